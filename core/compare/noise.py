"""The noise rule of a comparison: how much a run's own per-second figures wander.

A delta between two runs means something only when it is larger than the spread each
run shows second by second (Phoronix Test Suite's habit: no winner inside the error
bars). The rule, documented in docs/compare-json.md, is deliberately plain:

1. A run's **spread** for one job, direction and metric is the coefficient of
   variation (population standard deviation / mean) of that metric's per-second values
   (``RunResult.series``), in percent.
2. The seconds counted are full status intervals (``interval_s`` >= 0.75 s: fio's 1 s
   timer drifts, the first and last intervals are partial) in which the direction had
   I/O and the job ran alone (``Sample.active_jobs``); when a job never ran alone (its
   jobs ran side by side), the seconds it ran in. A run with one job uses every second.
3. With fewer than ``MIN_SECONDS`` such seconds the spread is unknown.
4. A delta is **within noise** when ``|delta_pct| <= sqrt(spread_base^2 + spread_other^2)``;
   when either spread is unknown (an imported run has no series) the noise is unknown.

Pure arithmetic on typed samples; no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from enum import StrEnum

from ..fio_models import Direction, DirectionSample, Sample

MIN_SECONDS = 3
FULL_INTERVAL_S = 0.75


class Metric(StrEnum):
    """What a comparison shows per direction, in tierdeck's units (bytes/s, ns)."""

    BW = "bw_bytes"
    IOPS = "iops"
    LAT_MEAN = "lat_mean_ns"
    LAT_P99 = "lat_p99_ns"

    @property
    def higher_is_better(self) -> bool:
        return self in (Metric.BW, Metric.IOPS)


def sample_value(d: DirectionSample, metric: Metric) -> float | None:
    """A direction's ``metric`` in one interval (None: no latency without I/O)."""
    if metric is Metric.BW:
        return d.bw_bytes_per_s
    if metric is Metric.IOPS:
        return d.iops
    if metric is Metric.LAT_MEAN:
        return None if d.lat_mean_ns is None else float(d.lat_mean_ns)
    return None if d.lat_p99_ns is None else float(d.lat_p99_ns)


def _busy_value(d: DirectionSample, metric: Metric) -> float | None:
    if d.bw_bytes_per_s <= 0 and d.iops <= 0:
        return None  # the direction was idle this second
    return sample_value(d, metric)


def job_seconds(series: Sequence[Sample], job: str | None) -> tuple[Sample, ...]:
    """The full seconds that speak for ``job`` (None: the whole run, every second)."""
    full = tuple(s for s in series if s.interval_s >= FULL_INTERVAL_S)
    if job is None:
        return full
    alone = tuple(s for s in full if set(s.active_jobs) == {job})
    if alone:
        return alone
    return tuple(s for s in full if job in s.active_jobs or not s.active_jobs)


def spread_pct(samples: Sequence[Sample], direction: str, metric: Metric) -> float | None:
    """The coefficient of variation of ``metric`` over ``samples``, in percent; None
    with fewer than MIN_SECONDS values or a zero mean."""
    values = [
        v
        for s in samples
        if (v := _busy_value(s.direction(Direction(direction)), metric)) is not None
    ]
    if len(values) < MIN_SECONDS:
        return None
    mean = sum(values) / len(values)
    if mean <= 0:
        return None
    variance = sum((v - mean) ** 2 for v in values) / len(values)
    return 100.0 * math.sqrt(variance) / mean


def noise_pct(spread_a: float | None, spread_b: float | None) -> float | None:
    """The band a delta must leave to count: both spreads combined (root sum of
    squares); None when either run's spread is unknown."""
    if spread_a is None or spread_b is None:
        return None
    return math.hypot(spread_a, spread_b)
