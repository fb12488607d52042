"""Thinning the kept health readings: every reading of the last 30 days, one a day
older, one a week beyond a year, every reading where a counter moved; through the
store and through the history file's light path alike."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tierdeck.app.history.health_readings import disk_id
from tierdeck.app.history.readings_file import keep, kept
from tierdeck.app.history.store import HistoryStore
from tierdeck.core.cache_wear import DAY_S, HealthReading
from tierdeck.core.reading_thinning import readings_to_drop

NOW = 1_795_000_000.0 - 1_795_000_000.0 % DAY_S + 12 * 3600  # noon UTC, a fixed day
KEY = disk_id("S4EWNX0R123456")
HOUR = 3600.0


def hourly(days: int, **counters: int | None) -> list[HealthReading]:
    """One reading an hour for ``days`` days up to NOW, the same counters throughout."""
    values = {"pending_sectors": 0, "reallocated_sectors": 0, "percentage_used": 3, **counters}
    return [
        HealthReading(KEY, NOW - h * HOUR, "sda", "ok", 35, 10_000 - h, None, **values)
        for h in range(days * 24, -1, -1)
    ]  # type: ignore[arg-type]


def kept_times(readings: list[HealthReading]) -> list[float]:
    dropped = set(readings_to_drop(readings, NOW))
    return [r.t for r in readings if r.t not in dropped]


def test_the_last_30_days_stay_whole_then_one_a_day_then_one_a_week() -> None:
    readings = hourly(3 * 365)
    times = kept_times(readings)
    recent = [t for t in times if NOW - t < 30 * DAY_S]
    assert len(recent) == len([r for r in readings if NOW - r.t < 30 * DAY_S])
    daily = [t for t in times if 30 * DAY_S <= NOW - t < 365 * DAY_S]
    days = [int(t // DAY_S) for t in daily]
    assert len(days) == len(set(days)) and 334 <= len(days) <= 336
    weekly = [t for t in times if NOW - t >= 365 * DAY_S]
    weeks = [int(t // DAY_S) // 7 for t in weekly]
    assert len(weeks) == len(set(weeks)) and 103 <= len(weeks) <= 106
    assert times[0] == readings[0].t  # the long trend keeps its start
    assert len(times) < len(readings) / 10


def test_a_reading_where_a_counter_moved_stays() -> None:
    readings = hourly(200)
    rising = NOW - 100 * DAY_S + 5 * HOUR  # pending sectors 0 -> 3, mid-day, 100 days ago
    readings = [replace(r, pending_sectors=3) if r.t >= rising else r for r in readings]
    worn = NOW - 150 * DAY_S + 7 * HOUR
    readings = [replace(r, percentage_used=4) if r.t >= worn else r for r in readings]
    times = kept_times(readings)
    assert rising in times and worn in times
    # the reading before the rise is dropped, but its day keeps its first one at 0
    assert rising - HOUR not in times
    day_start = [r for r in readings if r.t // DAY_S == rising // DAY_S][0]
    assert day_start.t in times and day_start.pending_sectors == 0


def test_a_disk_asleep_is_no_change() -> None:
    """A parity disk asleep between syncs reports no counters: not a change each time."""
    readings = [
        replace(r, state="asleep", pending_sectors=None, reallocated_sectors=None,
                percentage_used=None, temperature_c=None) if i % 2 else r
        for i, r in enumerate(hourly(100))
    ]  # fmt: skip
    old = [t for t in kept_times(readings) if NOW - t >= 30 * DAY_S]
    assert len(old) <= 71


def test_thinning_twice_keeps_what_thinning_once_kept() -> None:
    readings = hourly(400)
    rising = NOW - 200 * DAY_S + 3 * HOUR
    readings = [replace(r, reallocated_sectors=8) if r.t >= rising else r for r in readings]
    kept_once = set(kept_times(readings))
    once = [r for r in readings if r.t in kept_once]
    assert kept_times(once) == [r.t for r in once]


def test_keeping_thins_once_a_day_through_either_path(tmp_path: Path) -> None:
    readings = hourly(90)
    old, today = readings[:-1], readings[-1]
    for path, save in (
        (tmp_path / "store.sqlite3", lambda p, rs: HistoryStore(p).save_health(rs, "h")),
        (tmp_path / "light.sqlite3", lambda p, rs: keep(p, rs, "h")),
    ):
        HistoryStore(path)  # a file at this schema version: keep() takes its light path
        save(path, old)  # the same day as the newest: not thinned yet
        assert len(kept(path, KEY)) == len(old)
        save(path, [replace(today, t=today.t + DAY_S)])  # the next day's first keeping
        after = kept(path, KEY)
        # 29 days whole before the new newest, one a day for the 61 days before them
        assert 29 * 24 + 60 < len(after) < 29 * 24 + 66
        assert after[0].t == readings[0].t and after[-1].t == today.t + DAY_S
        assert [r.t for r in after] == sorted(r.t for r in after)
