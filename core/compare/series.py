"""What a chart of a run draws and what its "avg" says: one rule for every drawer.

The live run screen, the stored run's detail, the compare view's overlays and the HTML
export all draw fio's per-interval samples through this module, so that a chart and the
table beside it never disagree:

1. **Drawn seconds** are the full status intervals, as the noise rule counts them
   (``compare_noise.FULL_INTERVAL_S``). The last interval of a run is a fraction of a
   second (a 0.14 s tail at 10 GiB/s is page-cache flushing, not the disks' pace); drawn
   as a point it would squash the whole axis, so it is dropped, the same way the noise
   rule drops it.
2. **The average** of a stored run is the table's figure: fio's own summary of the
   direction (``bw`` = bytes / runtime). A run still running has no summary yet; its
   average is every interval so far, partial ones included, weighted by what it stands
   for: its seconds for a rate (bytes/s, IOPS: so the mean is bytes / seconds, fio's
   definition), its completed I/Os for a mean latency. A p99 has no average: a mean
   of percentiles is not a percentile.

Pure arithmetic on typed samples; no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..bench_models import DirectionSummary
from ..fio_models import Direction, DirectionSample, Sample
from .noise import FULL_INTERVAL_S, Metric, sample_value

Point = tuple[float, float | None]


def drawn(sample: Sample) -> bool:
    """A full interval: one the charts draw (a partial one only counts in the average)."""
    return sample.interval_s >= FULL_INTERVAL_S


def weight(sample: Sample, d: DirectionSample, metric: Metric) -> float:
    """What one interval's value counts for in the average: its seconds for a rate,
    its completed I/Os for a mean latency, nothing for a p99."""
    if metric in (Metric.BW, Metric.IOPS):
        return sample.interval_s
    if metric is Metric.LAT_MEAN:
        return d.iops * sample.interval_s
    return 0.0


def summary_value(summary: DirectionSummary | None, metric: Metric) -> float | None:
    """fio's own figure for a direction: what the tables show."""
    if summary is None:
        return None
    value = getattr(summary, metric.value)  # the metric is named after the field
    return None if value is None else float(value)


@dataclass
class RunningMean:
    """A weighted mean fed one value at a time (a live run's seconds as they come)."""

    total: float = 0.0
    weight: float = 0.0

    def add(self, value: float | None, weight: float) -> None:
        if value is not None and weight > 0:
            self.total += value * weight
            self.weight += weight

    @property
    def value(self) -> float | None:
        return self.total / self.weight if self.weight > 0 else None


def weighted_mean(values: Iterable[tuple[float | None, float]]) -> float | None:
    """The mean of (value, weight) pairs; None without a real value of positive weight."""
    mean = RunningMean()
    for value, w in values:
        mean.add(value, w)
    return mean.value


@dataclass(frozen=True)
class DrawnSeries:
    """One direction's metric as a chart shows it: the points drawn and the average."""

    points: tuple[Point, ...]
    average: float | None


def direction_series(
    series: Sequence[Sample],
    direction: str,
    metric: Metric,
    summary: DirectionSummary | None = None,
) -> DrawnSeries:
    """``direction``'s ``metric`` per full interval, and its average: ``summary``'s
    figure when the run has one (a stored run), else the weighted mean of every
    interval (a p99: none)."""
    picked = [(s, s.direction(Direction(direction))) for s in series]
    points = tuple((s.t, sample_value(d, metric)) for s, d in picked if drawn(s))
    if summary is not None:
        average = summary_value(summary, metric)
    else:
        average = weighted_mean((sample_value(d, metric), weight(s, d, metric)) for s, d in picked)
    return DrawnSeries(points, None if metric is Metric.LAT_P99 else average)


def directions_with_io(series: Sequence[Sample]) -> list[str]:
    """Directions that moved data in any interval, in fio's order."""
    return [
        name
        for name in ("read", "write", "trim")
        if any(s.direction(Direction(name)).bw_bytes_per_s > 0 for s in series)
    ]
