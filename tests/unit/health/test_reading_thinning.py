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
    today = int(NOW // DAY_S)

    def age(t: float) -> int:  # in whole UTC days
        return today - int(t // DAY_S)

    recent = [t for t in times if age(t) < 30]
    assert len(recent) == len([r for r in readings if age(r.t) < 30])
    days = [int(t // DAY_S) for t in times if 30 <= age(t) < 365]
    assert days == sorted(set(days)) and len(days) == 335
    weekly = [t for t in times if age(t) >= 365]
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
    old = [t for t in kept_times(readings) if NOW - t >= 31 * DAY_S]
    assert len(old) <= 70


def test_thinning_twice_keeps_what_thinning_once_kept() -> None:
    readings = hourly(400)
    rising = NOW - 200 * DAY_S + 3 * HOUR
    readings = [replace(r, reallocated_sectors=8) if r.t >= rising else r for r in readings]
    kept_once = set(kept_times(readings))
    once = [r for r in readings if r.t in kept_once]
    assert kept_times(once) == [r.t for r in once]


def test_keeping_day_by_day_thins_as_thinning_all_at_once_does(tmp_path: Path) -> None:
    """Each day's first keeping thins only what crossed a line since the day before
    (the history file's light path): after 35 days of keepings four times a day, the
    rows are those thinning the whole at once keeps."""
    readings = hourly(35)[::6]
    rising = NOW - 20 * DAY_S
    readings = [replace(r, pending_sectors=3) if r.t >= rising else r for r in readings]
    by_day: dict[int, list[HealthReading]] = {}
    for reading in readings:
        by_day.setdefault(int(reading.t // DAY_S), []).append(reading)
    # the last thinning is at the last day's first keeping: its lines, then that day's
    last_first = by_day[max(by_day)][0].t
    dropped = set(readings_to_drop([r for r in readings if r.t <= last_first], last_first))
    wanted = [r.t for r in readings if r.t not in dropped]
    path = tmp_path / "history.sqlite3"
    HistoryStore(path)  # a file at this schema version: keep() takes its light path
    for day in sorted(by_day):
        first, *rest = by_day[day]
        keep(path, [first], "h")  # the day's first keeping thins
        if rest:
            keep(path, rest, "h")  # the rest of the day's: not again
    assert [r.t for r in kept(path, KEY)] == wanted
    assert len(wanted) < len(readings)


def test_the_store_thins_what_crossed_the_line_too(tmp_path: Path) -> None:
    store = HistoryStore(tmp_path / "history.sqlite3")
    readings = hourly(31)
    store.save_health(readings[:-24], "h")  # 30 days at once: nothing thinned
    crossing = int(readings[0].t // DAY_S)  # the oldest day, 31 days old tomorrow
    store.save_health(readings[-24:], "h")  # the next day's keeping
    left = [r for r in store.health_readings(KEY) if int(r.t // DAY_S) == crossing]
    assert left == [readings[0]]


def test_keeping_every_few_days_thins_across_the_year_line(tmp_path: Path) -> None:
    """Through the history file's light path, a keeping once a week for over a
    year (each thins what crossed the 30-day and the one-year lines since the one
    before) leaves what thinning the whole at once does."""
    readings = hourly(380)[::6]
    readings = [replace(r, percentage_used=4) if r.t >= NOW - 200 * DAY_S else r
                for r in readings]  # fmt: skip
    path = tmp_path / "history.sqlite3"
    HistoryStore(path)  # a file at this schema version: keep() takes its light path
    chunks: dict[int, list[HealthReading]] = {}
    for reading in readings:
        chunks.setdefault(int(reading.t // DAY_S) // 7, []).append(reading)
    for chunk in sorted(chunks):
        keep(path, chunks[chunk], "h")
    assert [r.t for r in kept(path, KEY)] == kept_times(readings)
