"""How long a cache SSD lasts at the rate it is written: a forecast from its stored
health readings (app/history/health_readings.py), with the basis it rests on.

The wear rate is the drive's own percentage used (NVMe, or an ATA SSD's wear
indicator) over the time between the oldest and the newest reading of the last
RECENT_DAYS: 100 % is the rated endurance. One reading gives no rate, and a rate from the lifetime (wear over
power-on hours) would hide that a cache written harder since its first year wears
faster, so a single reading is honestly unknown. The drive counts wear in whole
percents: when it has not moved between the readings, the lifetime wear per byte
written is applied to the recent write rate, and the basis says so.

Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

DAY_S = 86400.0
MONTH_DAYS = 30.44  # a mean Gregorian month: "about N months" needs no more


@dataclass(frozen=True)
class HealthReading:
    """One stored collection of one disk: the figures its trends are drawn from."""

    disk_id: str  # "serial:..." or "wwn:...": the disk, whatever its kernel name
    t: float  # epoch seconds
    name: str  # its kernel name then ("sda")
    state: str  # HealthState's value
    temperature_c: int | None = None
    power_on_hours: int | None = None
    bytes_written: int | None = None
    percentage_used: int | None = None
    pending_sectors: int | None = None
    reallocated_sectors: int | None = None


@dataclass(frozen=True)
class CacheWear:
    """One cache SSD's write and wear rates and when it reaches its rated wear."""

    branch: str  # the cache branch it holds
    disk: str  # kernel name
    serial: str | None
    model: str | None
    percentage_used: int | None
    bytes_written: int | None
    power_on_hours: int | None
    lifetime_write_bytes_per_day: float | None  # bytes written over power-on hours
    recent_write_bytes_per_day: float | None  # between the oldest and newest reading
    wear_pct_per_month: float | None
    months_to_rated_wear: float | None  # None: unknown, the basis says why
    basis: str  # what the forecast rests on, or why there is none
    readings: int  # stored readings the rates come from
    days_covered: float  # between the oldest and the newest of them
    # what the benchmark history wrote to the branch's filesystem between the readings
    # the recent rate is from, and its share of what the drive counted: None unknown
    benchmark_bytes_written: int | None = None
    benchmark_write_share: float | None = None


def write_window(readings: Sequence[HealthReading]) -> tuple[float, float, int] | None:
    """(from, to, bytes the drive counted) between the oldest and newest readings with
    bytes written: the window the recent write rate is from."""
    span = _span(recent_readings(readings), "bytes_written")
    if span is None:
        return None
    first, newest = span
    assert first.bytes_written is not None and newest.bytes_written is not None
    return first.t, newest.t, max(0, newest.bytes_written - first.bytes_written)


RECENT_DAYS = 90  # "the current rate": a cache's load changes with its use


def recent_readings(readings: Sequence[HealthReading]) -> list[HealthReading]:
    """The readings of the last RECENT_DAYS before the newest, oldest first; with the
    one just before them when the newest is alone there (a monthly timer, a gap)."""
    ordered = sorted(readings, key=lambda r: r.t)
    if not ordered:
        return []
    start = ordered[-1].t - RECENT_DAYS * DAY_S
    inside = [r for r in ordered if r.t >= start]
    if len(inside) < 2 and len(ordered) >= 2:
        return ordered[-2:]
    return inside


def _per_day(delta: float, seconds: float) -> float:
    return delta / seconds * DAY_S


def _span(
    readings: Sequence[HealthReading], key: str
) -> tuple[HealthReading, HealthReading] | None:
    """The oldest and newest readings that have ``key``, if they are apart in time."""
    having = [r for r in readings if getattr(r, key) is not None]
    if len(having) < 2 or having[-1].t <= having[0].t:
        return None
    return having[0], having[-1]


def forecast(
    branch: str, disk: str, serial: str | None, model: str | None,
    readings: Sequence[HealthReading],
) -> CacheWear:  # fmt: skip
    """The forecast from ``readings`` (the newest is the current one): those of the last
    ``RECENT_DAYS`` before it, and the one just before them when they are alone."""
    readings = recent_readings(readings)
    last = readings[-1] if readings else None
    used = last.percentage_used if last else None
    written = last.bytes_written if last else None
    hours = last.power_on_hours if last else None
    lifetime = written / hours * 24 if written is not None and hours else None
    days = (readings[-1].t - readings[0].t) / DAY_S if readings else 0.0
    writes = _span(readings, "bytes_written")
    recent = None
    if writes is not None:
        first, newest = writes
        assert first.bytes_written is not None and newest.bytes_written is not None
        recent = max(0.0, _per_day(newest.bytes_written - first.bytes_written, newest.t - first.t))
    rate, months, basis = _wear(readings, used, written, recent)
    return CacheWear(branch, disk, serial, model, used, written, hours, lifetime, recent,
                     rate, months, basis, len(readings), days)  # fmt: skip


def _wear(
    readings: Sequence[HealthReading], used: int | None, written: int | None,
    recent: float | None,
) -> tuple[float | None, float | None, str]:  # fmt: skip
    """(wear % per month, months to 100 %, basis)."""
    if used is None:
        return None, None, "unknown: the drive reports no wear attribute (percentage used)"
    if used >= 100:
        return None, 0.0, f"already at {used} % of its rated wear"
    span = _span(readings, "percentage_used")
    if span is None:
        return (
            None,
            None,
            (
                f"unknown: {len(readings)} reading{'s' if len(readings) != 1 else ''} kept; the "
                "wear rate needs two, some days apart (each `tierdeck health` keeps one)"
            ),
        )
    first, newest = span
    assert first.percentage_used is not None and newest.percentage_used is not None
    span_days = (newest.t - first.t) / DAY_S
    rose = newest.percentage_used - first.percentage_used
    if rose > 0:
        rate = rose / span_days * MONTH_DAYS
        basis = (f"wear rose from {first.percentage_used} % to {newest.percentage_used} % "
                 f"in {span_days:.0f} days")  # fmt: skip
        return rate, (100 - used) / rate, basis
    if recent and written and used > 0:
        # whole percents: no step yet. Lifetime wear per byte at the recent write rate.
        rate = used / written * recent * MONTH_DAYS
        basis = (
            f"wear unchanged at {used} % over {span_days:.0f} days; its lifetime wear "
            f"per byte written ({used} % for {written} bytes) at the recent write rate"
        )
        return rate, (100 - used) / rate, basis
    return 0.0, None, (f"unknown: wear unchanged at {used} % over {span_days:.0f} days "
                       "and no write rate to scale it by")  # fmt: skip
