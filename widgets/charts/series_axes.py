"""The axes of a series chart: the value axis' unit, and tick labels that fit its margin.

A chart draws its values divided by one step of its unit (MiB/s, k IOPS, ms), chosen
from the largest value on screen, so the library's 1-2-5 ticks fall on round figures of
that unit and the labels stay short; the unit itself is written above the axis. The time
axis is seconds since the run's start ("30s"). Latencies, which spread over orders of
magnitude (a 200 µs mean beside a 100 ms p99), can be drawn on decades instead.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from textual_plot.axis_formatter import AxisFormatter, NumericAxisFormatter

from ...core.units import fmt_count, fmt_ns, fmt_rate

LABEL_CHARS = 5  # the widest tick label; the value axis' margin is one more


@dataclass(frozen=True)
class AxisUnit:
    """What a chart's values are: ``steps`` (divisor, name) from the smallest, and
    ``fmt`` for a single value in words (the legend's current value)."""

    steps: tuple[tuple[float, str], ...]
    fmt: Callable[[float], str]

    def step_for(self, top: float) -> tuple[float, str]:
        """The largest step the value ``top`` reaches (the first one below it)."""
        chosen = self.steps[0]
        for step in self.steps:
            if top >= step[0]:
                chosen = step
        return chosen


RATE = AxisUnit(
    ((1.0, "B/s"), (1024.0, "KiB/s"), (1024.0**2, "MiB/s"), (1024.0**3, "GiB/s"),
     (1024.0**4, "TiB/s")),
    fmt_rate,
)  # fmt: skip
COUNT = AxisUnit(((1.0, "IOPS"), (1e3, "k IOPS"), (1e6, "M IOPS")), fmt_count)
LATENCY = AxisUnit(((1.0, "ns"), (1e3, "µs"), (1e6, "ms"), (1e9, "s")), fmt_ns)


def short_number(value: float) -> str:
    """A tick label of at most LABEL_CHARS characters: 0, 2.5, 150, 1000."""
    if value == 0:
        return "0"
    if abs(value) >= 100 or value == int(value):
        return f"{value:.0f}"
    return f"{value:.3g}"[:LABEL_CHARS]


class ValueTicks(AxisFormatter):
    """Round ticks (1, 2, 5 x 10^k apart), no more than every other row of the plot can
    show apart (the library's own choice crowds a 6-row plot until labels overwrite one
    another), with labels short enough for the margin."""

    def __init__(self, rows: int = 8) -> None:
        self.rows = rows

    def get_ticks(self, min_: float, max_: float, max_ticks: int = 8) -> list[float]:
        most = max(2, (self.rows - 1) // 2 + 1)
        span = max_ - min_
        if span <= 0:
            return [min_]
        power = 10.0 ** math.floor(math.log10(span / most))
        for nice in (1.0, 2.0, 5.0, 10.0, 20.0):
            interval = nice * power
            first = math.ceil(min_ / interval)
            count = math.floor(max_ / interval) - first + 1
            if count <= most:
                return [(first + i) * interval for i in range(count)]
        return [min_, max_]

    def get_labels_for_ticks(self, ticks: Sequence[float]) -> list[str]:
        return [short_number(t) for t in ticks]


class SecondsTicks(NumericAxisFormatter):
    """Seconds since the start, at round intervals: 0s 10s 20s."""

    def get_ticks(self, min_: float, max_: float, max_ticks: int = 8) -> list[float]:
        # Fewer labels than the library's default: "120s" takes four cells, not two.
        return super().get_ticks(min_, max_, max_ticks=5)

    def get_labels_for_ticks(self, ticks: Sequence[float]) -> list[str]:
        return [f"{t:.0f}s" for t in ticks]


class DecadeTicks(AxisFormatter):
    """A log axis: the values drawn are log10 of the unit's figures; a tick a decade,
    or every other one when the plot has fewer rows than decades."""

    def __init__(self, rows: int = 8) -> None:
        self.rows = rows

    def get_ticks(self, min_: float, max_: float, max_ticks: int = 8) -> list[float]:
        decades = range(math.ceil(min_), math.floor(max_) + 1)
        step = max(1, math.ceil(len(decades) / max(1, self.rows)))
        return [float(k) for k in decades if (k - decades.start) % step == 0]

    def get_labels_for_ticks(self, ticks: Sequence[float]) -> list[str]:
        return [short_number(10**t) if t >= -2 else f"1e{t:.0f}" for t in ticks]


class CategoryTicks(AxisFormatter):
    """Named positions 0, 1, 2 ... (a sweep axis' values: ``4k``, ``128k``, ``/mnt/a``),
    each labelled by its name, cut to the room a position has."""

    def __init__(self, names: Sequence[str], width: int = 8) -> None:
        self.names = list(names)
        self.width = width

    def get_ticks(self, min_: float, max_: float, max_ticks: int = 8) -> list[float]:
        return [float(i) for i in range(len(self.names)) if min_ <= i <= max_]

    def get_labels_for_ticks(self, ticks: Sequence[float]) -> list[str]:
        labels = []
        for t in ticks:
            name = self.names[int(t)] if 0 <= int(t) < len(self.names) else ""
            labels.append(name if len(name) <= self.width else name[: self.width - 1] + "…")
        return labels


class DateTicks(AxisFormatter):
    """Days since ``origin`` (epoch seconds), labelled by their date in local time: a
    disk's kept readings over weeks or years. Ticks a round number of days apart, few
    enough for "12 Nov" (or "Nov 2025" over long spans) to fit side by side."""

    STEPS_DAYS = (1, 2, 7, 14, 30, 61, 91, 182, 365, 730, 1461)

    def __init__(self, origin: float, most: int = 4) -> None:
        self.origin = origin
        self.most = most
        self._long = False

    def get_ticks(self, min_: float, max_: float, max_ticks: int = 8) -> list[float]:
        most = max(2, min(self.most, max_ticks))
        span = max_ - min_
        self._long = span > 180
        step = next((s for s in self.STEPS_DAYS if span / s < most), self.STEPS_DAYS[-1])
        first = math.ceil(min_ / step)
        ticks = [float(k * step) for k in range(first, math.floor(max_ / step) + 1)]
        # a label centred on the right edge is cut off: none in the last tenth
        return [t for t in ticks if t <= max_ - span / 10] or ticks[:1]

    def get_labels_for_ticks(self, ticks: Sequence[float]) -> list[str]:
        import time

        pattern = "%b %Y" if self._long else "%-d %b"
        return [time.strftime(pattern, time.localtime(self.origin + t * 86400)) for t in ticks]
