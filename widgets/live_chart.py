"""A small live text chart: one metric, a few series (read/write, mean/p99), block bars.

Habits from Dolphie's MetricGraph and Textual's Sparkline: each series is a ring
buffer (``deque(maxlen=capacity)``), so a run of any length costs bounded memory; the
drawing downsamples the buffer to the columns it has (never more than
``MAX_POINTS_PER_CELL`` points per cell), so drawing costs O(width), not O(run length);
``push`` refreshes only this widget, and not at all while it is hidden (the screen
calls :meth:`LiveChart.resume` when it comes back).

Layout, for ``rows`` rows per series::

    Bandwidth · 0–42 s · top 152 MiB/s            <- title: axis span and scale
    read   ▁▂▅▇███▇▇█▇                 151 MiB/s   <- label, bars, current value
    write                                  0 B/s

From ``AVG_FROM_WIDTH`` columns on, the run's mean follows the current value on the
series' first row ("151 MiB/s  avg 120 MiB/s"): on a row of its own, under the label
column, it read as one more series.

Series with no data yet are not drawn (a write-only job shows one strip); all series of
a chart share one scale, so read and write compare at a glance. Tests read
``render_at(width).plain`` and :meth:`values` / :meth:`points` instead of pixels.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from ..core.units import fmt_rate

Formatter = Callable[[float], str]

BLOCKS = " ▁▂▃▄▅▆▇█"  # eighths of a cell, bottom-aligned
LABEL_WIDTH = 7
VALUE_WIDTH = 11
AVG_WIDTH = 6 + VALUE_WIDTH  # "  avg " and the mean, right after the current value
AVG_FROM_WIDTH = 100  # narrower charts keep their cells for the bars
MAX_POINTS_PER_CELL = 2  # the STYLE cap: downsample to at most ~2x the drawable width
DEFAULT_CAPACITY = 3600  # one hour of 1 Hz samples


# -- data ----------------------------------------------------------------------------------


@dataclass
class Series:
    key: str
    label: str
    style: str
    values: deque[float | None] = field(default_factory=deque)
    seen: bool = False  # any real (non-None) value yet: only then is the strip drawn


def downsample(values: Sequence[float | None], buckets: int) -> list[float | None]:
    """``values`` averaged into at most ``buckets`` consecutive buckets (None: no data in
    the bucket). Means keep the area under the curve, so a step stays a step."""
    n = len(values)
    if buckets <= 0:
        return []
    if n <= buckets:
        return list(values)
    out: list[float | None] = []
    for i in range(buckets):
        chunk = [v for v in values[i * n // buckets : (i + 1) * n // buckets] if v is not None]
        out.append(sum(chunk) / len(chunk) if chunk else None)
    return out


LOG_PAD = math.log10(2)  # the smallest value of a log chart still gets this much height


def bar_cells(fraction: float | None, rows: int) -> list[str]:
    """The column for one point (its height as a fraction of the chart), top row first.
    Anything above zero shows at least a sliver: "a little I/O" never looks like "none"."""
    if fraction is None or fraction <= 0:
        return [" "] * rows
    eighths = max(1, round(min(fraction, 1.0) * rows * 8))
    cells = []
    for row in range(rows):
        level = eighths - (rows - 1 - row) * 8
        cells.append(BLOCKS[min(max(level, 0), 8)])
    return cells


class LiveChart(Widget):
    """One metric over time; ``push`` one point per interval."""

    DEFAULT_CSS = """
    LiveChart {
        height: auto;
        padding: 0 1 0 0;
    }
    """

    rows: reactive[int] = reactive(1, layout=True)
    """Rows per series strip: 1 at 80x24, more where there is room."""

    def __init__(
        self,
        title: str,
        series: Sequence[tuple[str, str, str]],
        *,
        fmt: Formatter = fmt_rate,
        capacity: int = DEFAULT_CAPACITY,
        rows: int = 1,
        span: int | None = None,
        log_scale: bool = False,
        hide_empty: bool = True,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """``series``: (key, label, style) in drawing order. ``span``: how many points
        the whole run should have (its runtime in seconds), so a short run fills the
        width instead of a few columns. ``log_scale``: for latencies, which spread over
        orders of magnitude (a 200 µs mean next to a 100 ms p99)."""
        super().__init__(name=name, id=id, classes=classes)
        self.title = title
        self.fmt = fmt
        self.span = span
        self.log_scale = log_scale
        self.hide_empty = hide_empty
        self.capacity = capacity
        self._series = {
            key: Series(key, label, style, deque(maxlen=capacity)) for key, label, style in series
        }
        self._times: deque[float] = deque(maxlen=capacity)
        self._dropped = 0  # points that fell out of the ring buffer
        self._stale = False  # data arrived while hidden
        self._cache: tuple[tuple[int, int, int], dict[str, list[float | None]]] | None = None
        self._version = 0
        self._strips = len(self.visible_keys)
        self.set_reactive(LiveChart.rows, rows)

    # -- data -------------------------------------------------------------------------

    def push(self, point: Mapping[str, float | None], t: float | None = None) -> None:
        """Append one interval. Keys missing from ``point`` get None (no data)."""
        self._append(point, t)
        self._changed()

    def extend(self, points: Sequence[tuple[float | None, Mapping[str, float | None]]]) -> None:
        """Many (t, point) at once (a replayed or stored series): one refresh."""
        for t, point in points:
            self._append(point, t)
        self._changed()

    def add_series(self, key: str, label: str, style: str) -> None:
        """A series that appears mid-run (a disk the target did not list): no data for
        the intervals before it."""
        if key in self._series:
            return
        values: deque[float | None] = deque([None] * len(self._times), maxlen=self.capacity)
        self._series[key] = Series(key, label, style, values)
        self._changed()

    def clear(self) -> None:
        for series in self._series.values():
            series.values.clear()
            series.seen = False
        self._times.clear()
        self._dropped = 0
        self._changed()

    def _append(self, point: Mapping[str, float | None], t: float | None) -> None:
        if len(self._times) == self.capacity:
            self._dropped += 1
        self._times.append(t if t is not None else float(len(self._times) + self._dropped))
        for key, series in self._series.items():
            value = point.get(key)
            if value is not None and not math.isfinite(value):
                value = None
            series.values.append(value)
            if value is not None and value > 0:
                series.seen = True

    def _changed(self) -> None:
        self._version += 1
        strips = len(self.visible_keys)
        grew = strips != self._strips  # a series got its first data: the height changes
        self._strips = strips
        if self.is_mounted and self.display and self.screen.is_current:
            self.refresh(layout=grew)
        else:
            self._stale = True  # hidden: draw once, when shown again

    def resume(self) -> None:
        """The chart is visible again (its screen resumed): draw what came meanwhile."""
        if self._stale:
            self._stale = False
            self.refresh(layout=True)

    def values(self, key: str) -> list[float | None]:
        """Every point still in the ring buffer, oldest first."""
        return list(self._series[key].values)

    @property
    def times(self) -> list[float]:
        return list(self._times)

    def latest(self, key: str) -> float | None:
        """The newest real value of a series (None: none yet)."""
        for value in reversed(self._series[key].values):
            if value is not None:
                return value
        return None

    @property
    def visible_keys(self) -> list[str]:
        """Series drawn: those that have had data (all with ``hide_empty=False``). If
        none has, the first one (so a fresh chart keeps its height until data comes)."""
        if not self.hide_empty:
            return list(self._series)
        keys = [key for key, series in self._series.items() if series.seen]
        return keys or list(self._series)[:1]

    def points(self, key: str, width: int) -> list[float | None]:
        """The series downsampled for ``width`` cells of bars (cached per data
        version and width: a redraw without new data costs nothing)."""
        cache_key = (self._version, width, self.span or 0)
        if self._cache is None or self._cache[0] != cache_key:
            self._cache = (cache_key, {})
        cached = self._cache[1]
        if key not in cached:
            values = list(self._series[key].values)
            slots = max(len(values), self.span or 0)
            if 0 < slots <= width:
                # Fewer points than cells: each point gets the same whole number of cells.
                cached[key] = [v for v in values for _ in range(width // slots)]
            else:
                # Two points per cell at most, then one per cell for the bars themselves.
                coarse = downsample(values, width * MAX_POINTS_PER_CELL)
                cached[key] = downsample(coarse, width)
        return cached[key]

    def top(self) -> float:
        """The shared scale: the largest value any drawn series reached."""
        peaks = [v for key in self.visible_keys for v in self._series[key].values if v is not None]
        return max(peaks, default=0.0)

    def low(self) -> float | None:
        """The smallest value above zero: the bottom of a log scale."""
        values = [
            v
            for key in self.visible_keys
            for v in self._series[key].values
            if v is not None and v > 0
        ]
        return min(values, default=None)

    def scaler(self) -> tuple[Callable[[float | None], float | None], bool]:
        """value -> height fraction, and whether the scale is logarithmic (it is only
        when asked for and the data spans at least a decade)."""
        top, low = self.top(), self.low()
        if top <= 0:
            return (lambda v: None), False
        if self.log_scale and low is not None and top / low >= 10:
            bottom = math.log10(low) - LOG_PAD
            decades = math.log10(top) - bottom

            def log(v: float | None) -> float | None:
                return None if v is None or v <= 0 else (math.log10(v) - bottom) / decades

            return log, True
        return (lambda v: None if v is None else v / top), False

    # -- drawing ------------------------------------------------------------------------

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        return 1 + self.rows * len(self.visible_keys)

    def render(self) -> Text:
        return self.render_at(self.content_size.width or self.size.width)

    def render_at(self, width: int) -> Text:
        """The whole chart for ``width`` cells, as plain styled text."""
        top = self.top()
        scale, logarithmic = self.scaler()
        out = Text(no_wrap=True, overflow="crop")
        out.append(self.title, style="bold")
        if self._times:
            out.append(f" · {self._times[0]:.0f}–{self._times[-1]:.0f} s", style="dim")
            out.append(f" · top {self.fmt(top)}" if top > 0 else " · no I/O yet", style="dim")
            if logarithmic:
                low = self.low()
                out.append(f" · log scale from {self.fmt(low or 0)}", style="dim")
        else:
            out.append(" · waiting for data", style="dim")
        with_avg = width >= AVG_FROM_WIDTH
        bar_width = max(1, width - LABEL_WIDTH - VALUE_WIDTH - 1 - (AVG_WIDTH if with_avg else 0))
        for key in self.visible_keys:
            series = self._series[key]
            points = self.points(key, bar_width)
            columns = [bar_cells(scale(v), self.rows) for v in points]
            current = self.latest(key)
            for row in range(self.rows):
                out.append("\n")
                label = series.label if row == 0 else ""
                out.append(label[: LABEL_WIDTH - 1].ljust(LABEL_WIDTH), style=series.style)
                bars = "".join(col[row] for col in columns).ljust(bar_width)
                out.append(bars, style=series.style)
                if row != 0:
                    continue
                value = self.fmt(current) if current is not None else "—"
                out.append(" " + value.rjust(VALUE_WIDTH), style="bold")
                if with_avg:
                    mean = self._mean(key)
                    if mean is not None:
                        out.append(f"  avg {self.fmt(mean)}", style="dim")
        return out

    def _mean(self, key: str) -> float | None:
        real = [v for v in self._series[key].values if v is not None]
        return sum(real) / len(real) if real else None
