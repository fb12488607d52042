"""Did the disks really do what fio reports? Second by second, in both directions.

fio counts what the application saw; /proc/diskstats counts what the disks under the
target moved. When fio reads far more than the disks delivered, the page cache (or the
ZFS ARC) answered; when it writes far more than the disks absorbed, the cache took the
writes. Comparing whole-run totals misses the common case: readahead pulls the file in
during the first seconds (the disks even read *more* than fio then), and every later
second is served from memory. So each fio interval is compared with the disks' bytes
over the same stretch of time.

Both series come from different clocks: fio samples count from fio's first I/O, device
samples from the start of the fio process. ``offset_s`` (device t = fio t + offset)
lines them up; the runner knows it from fio's wall-clock timestamps. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from .bench_models import DeviceSample
from .fio_models import Direction, Sample

# fio moved more than this many times what the disks did ...
CACHE_RATIO = 1.5
# ... and at least this much in the interval: metadata and a few dirty pages are noise.
MIN_INTERVAL_BYTES = 4 * 1024 * 1024
# The warning needs flagged intervals to carry this share of fio's bytes in that
# direction: one cached second at the start of a long run is not worth a warning.
MIN_SHARE = 0.1
# The disks get this much time on each side of fio's interval: the two clocks are lined
# up to a few milliseconds, but under load the 1 Hz disk sampler wakes up late, and a
# cache that answers moves next to nothing anyway (flagged with or without the margin).
MARGIN_S = 0.25


@dataclass(frozen=True)
class CachedInterval:
    t: float  # the fio sample's t (end of the interval)
    interval_s: float
    direction: Direction
    fio_bytes: float
    disk_bytes: float


def disk_bytes_between(
    device_series: Sequence[DeviceSample],
    start: float,
    end: float,
    direction: Direction,
    disks: Collection[str] | None = None,
) -> float:
    """Bytes the disks moved in [start, end] (device clock). Each device sample is a
    constant rate over the interval that ends at its t (the first starts at 0)."""
    last_t: dict[str, float] = {}
    total = 0.0
    for sample in device_series:
        if disks is not None and sample.device not in disks:
            continue
        begin = last_t.get(sample.device, 0.0)
        last_t[sample.device] = sample.t
        overlap = min(end, sample.t) - max(start, begin)
        if overlap <= 0:
            continue
        rate = sample.read_bytes_per_s if direction is Direction.READ else sample.write_bytes_per_s
        total += rate * overlap
    return total


def covered_until(device_series: Sequence[DeviceSample]) -> float:
    """Device time up to which every sampled disk has data."""
    latest: dict[str, float] = {}
    for sample in device_series:
        latest[sample.device] = sample.t
    return min(latest.values(), default=0.0)


def cached_intervals(
    series: Sequence[Sample],
    device_series: Sequence[DeviceSample],
    *,
    offset_s: float = 0.0,
    disks: Collection[str] | None = None,
) -> list[CachedInterval]:
    """The fio intervals in which fio read (or wrote) much more than the disks did.
    Intervals the device series does not cover yet are skipped."""
    until = covered_until(device_series)
    flagged: list[CachedInterval] = []
    for sample in series:
        start = sample.t - sample.interval_s + offset_s
        end = sample.t + offset_s
        if end + MARGIN_S > until:  # the disks' seconds for it are not all sampled yet
            continue
        for direction in (Direction.READ, Direction.WRITE):
            fio_bytes = sample.direction(direction).bw_bytes_per_s * sample.interval_s
            if fio_bytes < MIN_INTERVAL_BYTES:
                continue
            disk = disk_bytes_between(
                device_series, start - MARGIN_S, end + MARGIN_S, direction, disks
            )
            if fio_bytes > CACHE_RATIO * disk:
                flagged.append(
                    CachedInterval(sample.t, sample.interval_s, direction, fio_bytes, disk)
                )
    return flagged


@dataclass(frozen=True)
class CacheFinding:
    """The flagged intervals of one direction, summed, when they matter."""

    direction: Direction
    intervals: int
    of_intervals: int
    first_t: float
    last_t: float
    fio_bytes: float
    disk_bytes: float


def findings(series: Sequence[Sample], flagged: Sequence[CachedInterval]) -> list[CacheFinding]:
    """One finding per direction whose flagged intervals carry at least MIN_SHARE of
    fio's bytes in that direction."""
    out: list[CacheFinding] = []
    for direction in (Direction.READ, Direction.WRITE):
        mine = [c for c in flagged if c.direction is direction]
        total = sum(s.direction(direction).bw_bytes_per_s * s.interval_s for s in series)
        cached = sum(c.fio_bytes for c in mine)
        if not mine or total <= 0 or cached < MIN_SHARE * total:
            continue
        active = sum(
            1
            for s in series
            if s.direction(direction).bw_bytes_per_s * s.interval_s >= MIN_INTERVAL_BYTES
        )
        out.append(
            CacheFinding(
                direction,
                len(mine),
                max(active, len(mine)),
                min(c.t for c in mine),
                max(c.t for c in mine),
                cached,
                sum(c.disk_bytes for c in mine),
            )
        )
    return out
