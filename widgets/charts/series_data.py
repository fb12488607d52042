"""The data behind a SeriesChart: its series, the intervals fed to it, and the
downsampling that keeps a redraw O(width).

Apart from the widget: plain values and arithmetic, no Textual, which callers build
(overlays, stored runs) and tests check without mounting a chart.
"""

from __future__ import annotations

import enum
import math
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ...core.compare.series import RunningMean

Point = tuple[float, float | None]


class LegendValue(enum.Enum):
    """What the legend says after each series' name."""

    LATEST = "latest"  # a live run: the newest value (and the mean, when wide)
    MEAN = "mean"  # a comparison: each run's mean over its series
    NONE = "none"


@dataclass(frozen=True)
class NamedSeries:
    """One line of an overlay: its legend label, (seconds since start, value) points
    (None: no data that second), and a colour (None: the next of PALETTE)."""

    label: str
    points: Sequence[Point]
    style: str | None = None
    average: float | None = None  # the legend's avg (the run's figure); None: the points'


@dataclass(frozen=True)
class Interval:
    """One interval for :meth:`SeriesChart.extend`: its time, each series' value, what
    each value weighs in the legend's average (missing: 1), and whether it is drawn (a
    partial interval counts in the average only; see ``core.compare.series``)."""

    t: float | None
    values: Mapping[str, float | None]
    weights: Mapping[str, float] = field(default_factory=dict)
    drawn: bool = True


@dataclass
class Line:
    key: str
    label: str
    style: str
    points: deque[Point] = field(default_factory=deque)
    seen: bool = False  # a real (positive) value yet: only then is it drawn
    # Over every interval pushed, not only those the ring buffer keeps: the run's mean.
    running: RunningMean = field(default_factory=RunningMean)
    average: float | None = None  # given (a stored run's own figure): the legend says it


def finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def downsample(points: Sequence[Point], buckets: int) -> list[Point]:
    """``points`` averaged into at most ``buckets`` consecutive buckets: the mean time
    and the mean of the real values (None if none). Means keep the area under the
    curve, so a step stays a step."""
    n = len(points)
    if buckets <= 0:
        return []
    if n <= buckets:
        return list(points)
    out: list[Point] = []
    for i in range(buckets):
        chunk = points[i * n // buckets : (i + 1) * n // buckets]
        real = [v for _, v in chunk if v is not None]
        t = sum(t for t, _ in chunk) / len(chunk)
        out.append((t, sum(real) / len(real) if real else None))
    return out
