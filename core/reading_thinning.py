"""Which kept health readings to let go: an hourly timer adds ~8,760 rows a disk a year.

Every reading of the last ``KEEP_ALL_DAYS`` (UTC) days stays; older, one a day (the
first of each); older than ``DAILY_DAYS``, one a week. A reading whose counters moved (pending
or reallocated sectors, the wear percentage) always stays, so a chart still
shows when pending sectors rose and the wear forecast's rates keep their ends. The
first and the newest reading always stay: the long trend keeps its start.

Thinning twice gives the same rows as thinning once: a reading kept for a change still
differs from the one kept before it, since every change between them was kept too. So
a keeping need only thin the readings that crossed an age line since the disk's
previous one (``crossed``): a few dozen rows a disk, where all of a year's old readings
of 240 disks took ~0.6 s.

Nothing here does I/O: app/history/health_readings.py deletes what this picks.
"""

from __future__ import annotations

from collections.abc import Sequence

from .cache_wear import DAY_S, HealthReading

KEEP_ALL_DAYS = 30
DAILY_DAYS = 365
WEEK_DAYS = 7


COUNTERS = ("pending_sectors", "reallocated_sectors", "percentage_used")


def _moved(reading: HealthReading, last: dict[str, int]) -> bool:
    """Whether a counter ``reading`` reports differs from the last one reported (and
    note it). A disk asleep reports none: that is no change, or a parity disk that
    sleeps between syncs would keep every reading."""
    moved = False
    for name in COUNTERS:
        value = getattr(reading, name)
        if value is None:
            continue
        if name in last and last[name] != value:
            moved = True
        last[name] = value
    return moved


def _bucket(t: float, now: float) -> tuple[str, int] | None:
    """The day or week a reading shares with the others of its age, by whole UTC days
    (a day changes zone at once, so thinning it later keeps what thinning it then
    did); None: keep all."""
    day = int(t // DAY_S)
    age_days = int(now // DAY_S) - day
    if age_days < KEEP_ALL_DAYS:
        return None
    if age_days < DAILY_DAYS:
        return ("day", day)
    return ("week", day // WEEK_DAYS)


def readings_to_drop(
    readings: Sequence[HealthReading], now: float, *, keep_newest: bool = True
) -> list[float]:
    """The times of ``readings`` (one disk's) that thinning lets go, oldest first.
    ``keep_newest``: the last of them is the disk's newest (not so for a span of its
    old readings, ``crossed``); the first always stays (the context of a span)."""
    ordered = sorted(readings, key=lambda r: r.t)
    drop: list[float] = []
    seen: set[tuple[str, int]] = set()
    last: dict[str, int] = {}
    for i, reading in enumerate(ordered):
        changed = _moved(reading, last)
        bucket = _bucket(reading.t, now)
        if bucket is None or changed or (keep_newest and i == len(ordered) - 1):
            if bucket is not None:
                seen.add(bucket)
            continue
        if bucket in seen:
            drop.append(reading.t)
        else:
            seen.add(bucket)
    return drop


def crossed(before: float, now: float) -> list[tuple[float, float]]:
    """The spans [from, to) of readings whose day crossed the 30-day or the one-year
    line between the previous keeping (``before``) and this one (``now``), from a
    whole day or week earlier (a day or week thinned before is thinned whole again:
    the same rows stay)."""
    spans = []
    for days, bucket in ((KEEP_ALL_DAYS, 1), (DAILY_DAYS, WEEK_DAYS)):
        last_day = int(now // DAY_S) - days  # the newest day at that age now
        first_day = (int(before // DAY_S) - days) // bucket * bucket - bucket
        if first_day <= last_day:
            spans.append((first_day * DAY_S, (last_day + 1) * DAY_S))
    return spans
