"""What a disk's chart of kept readings says in words (widgets/dashboard/health_trend),
its date axis, and the demo history's readings worked back from the demo disks'."""

from __future__ import annotations

from dataclasses import replace

import pytest
from tierdeck.app.history.demo_readings import demo_readings
from tierdeck.core.cache_wear import DAY_S, HealthReading
from tierdeck.widgets.charts.series_axes import DateTicks
from tierdeck.widgets.dashboard.health_trend import counter_changes, trend_note, trend_series

from tests.snapshots.apps.health_trend import START, trend_readings

pytestmark = pytest.mark.usefixtures("utc")


def of(name: str) -> list[HealthReading]:
    return [r for r in trend_readings() if r.name == name]


def test_no_reading_and_one_reading_are_said_in_words() -> None:
    assert "no readings kept yet" in trend_note([]).plain
    assert trend_note(of("sdb")).plain == "one reading so far (3 Nov): trend after the next"


def test_a_rise_in_pending_sectors_is_dated_by_the_last_reading_before_it() -> None:
    (change,) = counter_changes(of("sda"))
    assert change.plain == "pending sectors 0 → 3 since 29 Sep"  # the 5th week, still 0
    assert "yellow" in str(change.style)
    assert counter_changes(of("sdc")) == []  # an NVMe reports no sector counts


def test_a_counter_that_fell_is_shown_too_and_the_year_when_it_differs() -> None:
    old = [replace(r, t=r.t - 400 * DAY_S) for r in of("sda")[5:7]]  # pending 2, 2
    (change,) = counter_changes([*old, replace(of("sda")[-1], pending_sectors=0)])
    assert change.plain == "pending sectors 2 → 0 since 8 Sep 2024"
    assert "yellow" not in str(change.style)


def test_the_series_are_days_since_the_first_reading() -> None:
    temps, wear = trend_series(of("sdc"))
    assert [t for t, _ in temps.points] == [7.0 * i for i in range(10)]
    assert [v for _, v in wear.points][-1] == 75.0
    assert len(trend_series(of("sda"))) == 1  # no wear attribute: no wear line


def test_asleep_readings_say_why_nothing_is_drawn() -> None:
    asleep = [replace(r, temperature_c=None, state="asleep") for r in of("sda")]
    assert "none with a temperature or wear" in trend_note(asleep).plain


def test_date_ticks_fit_and_stay_off_the_right_edge() -> None:
    ticks = DateTicks(START)
    marks = ticks.get_ticks(0.0, 63.0)
    assert 2 <= len(marks) <= 4 and all(m <= 63.0 * 0.9 for m in marks)
    assert ticks.get_labels_for_ticks(marks)[0] == "1 Sep"
    year = DateTicks(START)
    assert year.get_labels_for_ticks(year.get_ticks(0.0, 730.0))[0] == "Sep 2025"


def test_the_demo_history_has_a_year_of_daily_readings_ending_on_the_seeds_night() -> None:
    from tierdeck.app.history.demo import SEED_NIGHT

    readings = demo_readings()
    nvme = [r for r in readings if r.name == "nvme0n1"]
    assert len(nvme) == 366 and nvme[-1].t == SEED_NIGHT
    # the last reading is the demo host's answer; the wear counts up to it in whole steps
    assert nvme[-1].percentage_used == 3 and nvme[-1].temperature_c == 35
    wear = [r.percentage_used for r in nvme]
    assert wear == sorted(wear) and wear[0] == 0
    hours = [r.power_on_hours for r in nvme]
    assert hours[-1] == 12798 and hours[0] == 12798 - 365 * 24
    # an 18 TB disk on for 1,730 hours (72 days) counts back 71, within its 24-38 °C
    sdc = [r for r in readings if r.name == "sdc"]
    assert len(sdc) == 72 and all(24 <= (r.temperature_c or 0) <= 38 for r in sdc)
    assert demo_readings() == readings  # worked out, not drawn at random
