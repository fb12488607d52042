"""The one chart of tierdeck: named series over time, on textual-plot's PlotWidget.

Every chart of a run is one of these: the live run screen's bandwidth, IOPS, latency and
per-disk charts, the stored run's, and the compare view's overlays. It adds to the
library what a benchmark chart needs: a value axis in a unit (MiB/s, k IOPS, ms; see
``series_axes``), a time axis in seconds since the start, a one-line legend above the
plot (each series' colour, name and current or mean value), and the live habits of
Dolphie's MetricGraph:

- each series is a ring buffer (``deque(maxlen=capacity)``): a run of any length costs
  bounded memory;
- the drawing downsamples each series to two points per cell of the plot (the braille
  resolution), so a redraw costs O(width), not O(run length);
- data may arrive at any rate, the plot is redrawn at most once a second
  (``MIN_REDRAW_S``), and not at all while out of view: hidden, on a covered screen or
  in a hidden tab, or scrolled out of its page. It catches up when it comes into view
  (a Show event, the screen's layout or scroll, or :meth:`resume`). Touching a widget
  out of view is not free: Textual then lays the whole screen out again to find it.

Live use (one shared clock, one point per interval)::

    chart = SeriesChart("Bandwidth", [("read", "read", "green"), ("write", "write", "magenta")],
                        unit=RATE, span=60, id="chart-bw")
    chart.push({"read": 1.2e8, "write": None}, t=1.0)    # or extend([(t, point), ...])

Overlay use (the compare view: one line per run, each on its own seconds since start)::

    chart = SeriesChart("Bandwidth", unit=RATE, legend=LegendValue.MEAN, id="compare-bw")
    chart.set_series([
        NamedSeries("#12 raw pool", [(1.0, 1.3e9), (2.0, 1.2e9), ...]),
        NamedSeries("#14 mergerfs", [(1.0, 3.9e8), ...], style="magenta"),
    ])

``set_series`` replaces every series (styles default to ``PALETTE`` in order). ``rows``
is the plot's height in cells, axes and tick labels included (the legend line is on
top). Tests read the data (:meth:`values`, :meth:`times`, :meth:`points`) and the legend
(:meth:`legend_text`), not pixels.

The library's own legend is a bordered box floating over the plot: at 80x24, where a
plot has three rows of data, it would hide them, so the legend is a line of text above.

The series' data types and downsampling are in ``series_data``, the library's plot as
this chart draws it in ``chart_plot``, the axes in ``series_axes``.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar, cast

from rich.text import Text
from textual.app import ComposeResult
from textual.errors import NoWidget
from textual.reactive import reactive
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static
from textual_plot import HiResMode, PlotWidget
from textual_plot.axis_formatter import AxisFormatter

from ...core.compare.series import RunningMean
from .chart_plot import ChartPlot
from .series_axes import LABEL_CHARS, RATE, AxisUnit, DecadeTicks, ValueTicks
from .series_data import Interval, LegendValue, Line, NamedSeries, Point, downsample, finite

DEFAULT_CAPACITY = 3600  # one hour of 1 Hz samples
DEFAULT_ROWS = 6  # tick labels, two box rows, three rows of data: the 80x24 size
MIN_REDRAW_S = 1.0  # the live screen's budget: one redraw a second, whatever comes in
EARLY_S = 0.2  # fio's next second may come a little early: drawn at once, not on a timer
POINTS_PER_CELL = 2  # braille has two dots a cell across
AVG_FROM_WIDTH = 100  # narrower legends keep to the current value
PALETTE = ("cyan", "magenta", "green", "yellow", "dodger_blue1", "red", "white", "dark_orange")

T = TypeVar("T")


class SeriesChart(Widget):
    """Named series of one metric over time, drawn as lines on a shared scale."""

    DEFAULT_CSS = """
    SeriesChart {
        height: auto;
        padding: 0 1 0 0;
    }
    SeriesChart > .chart-legend {
        height: auto;
    }
    """

    rows: reactive[int] = reactive(DEFAULT_ROWS)
    """The plot's height in cells (tick labels and frame included)."""

    def __init__(
        self,
        title: str,
        lines: Sequence[tuple[str, str, str]] = (),
        *,
        unit: AxisUnit = RATE,
        capacity: int = DEFAULT_CAPACITY,
        rows: int = DEFAULT_ROWS,
        span: float | None = None,
        log_scale: bool = False,
        hide_empty: bool = True,
        legend: LegendValue = LegendValue.LATEST,
        x_ticks: AxisFormatter | None = None,
        x_limits: tuple[float, float] | None = None,
        avg_format: Callable[[float], str] | None = None,
        from_zero: bool = True,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """``lines``: (key, label, style) in drawing order, for :meth:`push`. ``span``:
        the seconds the whole run should last, so the time axis is the run's from the
        start. ``log_scale``: decades on the value axis when the data spans one or more.
        ``hide_empty``: a series with no data yet is neither drawn nor in the legend.
        ``x_ticks`` and ``x_limits``: an x axis other than seconds since the start (the
        sweep view's axis values, see ``CategoryTicks``). ``avg_format``: how the
        legend writes an average (the compare view: as its table does), else in
        the axis unit. ``from_zero``: the value axis starts at 0 (a rate); else just
        under the lowest value drawn (a disk's temperature over months moves a few
        degrees around 35)."""
        super().__init__(name=name, id=id, classes=classes)
        self.from_zero = from_zero
        self.title = title
        self.unit = unit
        self.capacity = capacity
        self.span = span
        self.log_scale = log_scale
        self.hide_empty = hide_empty
        self.legend = legend
        self.x_ticks = x_ticks
        self.x_limits = x_limits
        self.avg_format = avg_format or unit.fmt
        self._lines = {
            key: Line(key, label, style, deque(maxlen=capacity)) for key, label, style in lines
        }
        self._clock = 0  # intervals pushed, for points pushed without a time
        self._dropped = False  # the ring buffer let old points go: the axis starts later
        self._stale = False
        self._version = 0  # data changes so far: what _memo's answers are good for
        self._memos: dict[str, tuple[int, object]] = {}
        self._last_draw = -math.inf
        self._timer: Timer | None = None
        self.draws = 0
        """Redraws of the plot so far (tests and the CPU budget count them)."""
        self.set_reactive(SeriesChart.rows, rows)

    def compose(self) -> ComposeResult:
        yield Static(self.legend_text(), classes="chart-legend")
        plot = ChartPlot(self.x_ticks)
        plot.styles.height = self.rows
        yield plot

    def on_mount(self) -> None:
        self._stale = False
        self._draw()
        # Scrolling brings no Show event; every layout or scroll of the screen ends here.
        self.screen.screen_layout_refresh_signal.subscribe(self, self._screen_laid_out)

    def on_unmount(self) -> None:
        self.screen.screen_layout_refresh_signal.unsubscribe(self)

    def on_show(self) -> None:
        self.resume()  # shown again (display, a scroll, its screen back): catch up

    def _screen_laid_out(self, _screen: Screen[object]) -> None:
        if self._stale:
            self.resume()

    def watch_rows(self, rows: int) -> None:
        for plot in self.query(ChartPlot):  # none before compose
            plot.styles.height = rows

    def on_resize(self) -> None:
        self._changed()  # downsample again for the new width

    # -- data ---------------------------------------------------------------------------

    def push(self, point: Mapping[str, float | None], t: float | None = None) -> None:
        """Append one interval to every series (keys missing from ``point``: None)."""
        self._append(point, t)
        self._changed()

    def extend(
        self, points: Sequence[tuple[float | None, Mapping[str, float | None]] | Interval]
    ) -> None:
        """Many (t, point) or :class:`Interval` at once (a coalesced batch, a stored
        run): one redraw."""
        for item in points:
            if isinstance(item, Interval):
                self._append(item.values, item.t, item.weights, drawn=item.drawn)
            else:
                self._append(item[1], item[0])
        self._changed()

    def set_average(self, key: str, value: float | None) -> None:
        """What the legend's avg says for ``key`` from now on (a stored run's figure,
        which the table beside it shows), whatever the points average to."""
        self._lines[key].average = value
        self._changed()

    def add_series(self, key: str, label: str, style: str) -> None:
        """A series that appears mid-run (a disk the target did not list): no data for
        the intervals before it."""
        if key in self._lines:
            return
        times = self.times
        points: deque[Point] = deque(((t, None) for t in times), maxlen=self.capacity)
        self._lines[key] = Line(key, label, style, points)
        self._changed()

    def set_series(self, series: Sequence[NamedSeries]) -> None:
        """Replace every series by ``series``, one line each, in order (the overlay)."""
        self._lines = {}
        for i, one in enumerate(series):
            style = one.style or PALETTE[i % len(PALETTE)]
            key = one.label if one.label not in self._lines else f"{one.label} ({i + 1})"
            line = Line(key, one.label, style, deque(maxlen=self.capacity), average=one.average)
            for t, value in one.points:
                self._add_value(line, t, value, 1.0)
            self._lines[key] = line
        self._dropped = any(len(s.points) > self.capacity for s in series)
        self._changed()

    def set_x_axis(self, ticks: AxisFormatter, limits: tuple[float, float]) -> None:
        """Another x axis (the sweep view's chart after its axes changed); call
        ``set_series`` after it to redraw."""
        self.x_ticks, self.x_limits = ticks, limits
        for plot in self.query(ChartPlot):
            plot.set_x_formatter(ticks)

    def clear(self) -> None:
        for line in self._lines.values():
            line.points.clear()
            line.seen = False
            line.running = RunningMean()
            line.average = None
        self._clock = 0
        self._dropped = False
        self._changed()

    def _append(
        self,
        point: Mapping[str, float | None],
        t: float | None,
        weights: Mapping[str, float] | None = None,
        *,
        drawn: bool = True,
    ) -> None:
        if drawn:
            self._clock += 1
        when = t if t is not None else float(self._clock - 1)
        for key, line in self._lines.items():
            weight = 1.0 if weights is None else weights.get(key, 1.0)
            if not drawn:
                line.running.add(finite(point.get(key)), weight)
                continue
            if len(line.points) == self.capacity:
                self._dropped = True
            self._add_value(line, when, point.get(key), weight)

    @staticmethod
    def _add_value(line: Line, t: float, value: float | None, weight: float) -> None:
        value = finite(value)
        line.points.append((t, value))
        line.running.add(value, weight)
        if value is not None and value > 0:
            line.seen = True

    # -- reading --------------------------------------------------------------------------

    @property
    def keys(self) -> list[str]:
        return list(self._lines)

    def values(self, key: str) -> list[float | None]:
        """Every value still in the ring buffer, oldest first."""
        return [v for _, v in self._lines[key].points]

    def times_of(self, key: str) -> list[float]:
        return [t for t, _ in self._lines[key].points]

    @property
    def times(self) -> list[float]:
        """The shared clock of pushed intervals (the first series' times)."""
        first = next(iter(self._lines.values()), None)
        return [] if first is None else [t for t, _ in first.points]

    def latest(self, key: str) -> float | None:
        """The newest real value of a series (None: none yet)."""
        for _, value in reversed(self._lines[key].points):
            if value is not None:
                return value
        return None

    def mean(self, key: str) -> float | None:
        """The legend's avg: the figure given (:meth:`set_average`, ``NamedSeries``),
        else the weighted mean of every interval pushed (partial ones included)."""
        line = self._lines[key]
        return line.average if line.average is not None else line.running.value

    def _memo(self, name: str, compute: Callable[[], T]) -> T:
        """``compute()`` once per change of the data. The legend, the scale and the axes
        each ask for the top, the mean ...: each a walk over every point (3600 a series
        after an hour), and they were a redraw's largest cost on a long run."""
        hit = self._memos.get(name)
        if hit is not None and hit[0] == self._version:
            return cast(T, hit[1])
        value = compute()
        self._memos[name] = (self._version, value)
        return value

    @property
    def visible_keys(self) -> list[str]:
        """Series drawn: those that have had data (all with ``hide_empty=False``)."""
        if not self.hide_empty:
            return list(self._lines)
        return [key for key, line in self._lines.items() if line.seen]

    def top(self) -> float:
        """The shared scale: the largest value any drawn series reached."""
        return self._memo(
            "top",
            lambda: max(
                (
                    v
                    for key in self.visible_keys
                    for _, v in self._lines[key].points
                    if v is not None
                ),
                default=0.0,
            ),
        )

    def low(self) -> float | None:
        """The smallest value above zero: the bottom of a log scale."""
        return self._memo(
            "low",
            lambda: min(
                (
                    v
                    for key in self.visible_keys
                    for _, v in self._lines[key].points
                    if v is not None and v > 0
                ),
                default=None,
            ),
        )

    def _time_extent(self) -> tuple[float, float] | None:
        """The first and last second of the drawn series (of any, before data)."""

        def compute() -> tuple[float, float] | None:
            times = [t for key in self.visible_keys for t in self.times_of(key)] or self.times
            return (min(times), max(times)) if times else None

        return self._memo("extent", compute)

    def logarithmic(self) -> bool:
        """Decades only when asked for and the data spans at least one."""
        low, top = self.low(), self.top()
        return self.log_scale and low is not None and top / low >= 10

    def plot_cells(self) -> int:
        """Cells across the plot's frame: what the series are downsampled to."""
        width = self.content_size.width or 80
        return max(1, width - (LABEL_CHARS + 1) - 2)

    def points(self, key: str, cells: int | None = None) -> list[Point]:
        """A series as drawn: at most POINTS_PER_CELL points per cell of the plot."""
        cells = self.plot_cells() if cells is None else cells
        return downsample(list(self._lines[key].points), cells * POINTS_PER_CELL)

    # -- drawing ----------------------------------------------------------------------------

    def legend_text(self) -> Text:
        """The line above the plot: the axis unit, the title, each series' colour,
        name and value."""
        top = self.top()
        _, unit = self.unit.step_for(top)
        out = Text(no_wrap=False, overflow="fold")
        out.append(unit.ljust(LABEL_CHARS) + " ", style="dim")
        out.append(self.title, style="bold")
        if self.logarithmic():
            out.append(" (log)", style="dim")
        keys = self.visible_keys
        if not keys:
            out.append("  waiting for data" if not self.times else "  no I/O yet", style="dim")
        wide = (self.content_size.width or 0) >= AVG_FROM_WIDTH
        for key in keys:
            line = self._lines[key]
            out.append("  ━ ", style=line.style)
            out.append(line.label, style=line.style)
            value = self._legend_value(key, wide)
            if value:
                out.append(" " + value, style="bold")
        return out

    def _legend_value(self, key: str, wide: bool) -> str:
        if self.legend is LegendValue.NONE:
            return ""
        mean = self.mean(key)
        if self.legend is LegendValue.MEAN:
            return "" if mean is None else "avg " + self.avg_format(mean)
        latest = self.latest(key)
        text = "—" if latest is None else self.unit.fmt(latest)
        if wide and mean is not None:
            text += f" (avg {self.unit.fmt(mean)})"
        return text

    def in_view(self) -> bool:
        """Some of the chart is on screen: displayed, on the current screen, not
        scrolled out of its page (as of the screen's last layout)."""
        if not (self.is_mounted and self.display and self.screen.is_current):
            return False
        try:
            return bool(self.screen.find_widget(self).visible_region)
        except NoWidget:  # not laid out yet, or under a hidden container
            return False

    def _changed(self) -> None:
        self._version += 1
        if not self.in_view():
            self._stale = True  # draw once, when it comes into view
            return
        if self._timer is not None:
            return  # a redraw is already due
        # A run's charts get their second together: a timer for the one that drew last
        # would split one screen update into several.
        wait = self._last_draw + MIN_REDRAW_S - time.monotonic()
        if wait <= EARLY_S:
            self._draw()
        else:
            self._timer = self.set_timer(wait, self._draw)

    def resume(self) -> None:
        """The chart may be in view again: draw what came meanwhile (if it is)."""
        if self._stale:
            self._stale = False
            self._changed()

    def _draw(self) -> None:
        self._timer = None
        if self.visible_keys:  # an empty frame costs little: the first data comes at once
            self._last_draw = time.monotonic()
        self.draws += 1
        self._update_legend()
        plot = self.query_one(ChartPlot)
        plot.clear()
        divisor, _ = self.unit.step_for(self.top())
        log = self.logarithmic()
        cells = self.plot_cells()
        for key in self.visible_keys:
            xs, ys = [], []
            for t, v in self.points(key, cells):
                if v is None or (log and v <= 0):
                    continue  # a gap: the line joins the seconds around it
                xs.append(t)
                ys.append(math.log10(v / divisor) if log else v / divisor)
            plot.plot(xs, ys, line_style=self._lines[key].style, hires_mode=HiResMode.BRAILLE)
        self._set_limits(plot, divisor, log)
        plot.paint()

    def _update_legend(self) -> None:
        legend = self.query_one(".chart-legend", Static)
        text = self.legend_text()
        width = legend.content_size.width
        # The values change every second, the height seldom: no page layout for a value.
        lines = len(text.wrap(self.app.console, width)) if width else 0
        legend.update(text, layout=lines != legend.size.height)

    @property
    def pending(self) -> bool:
        """A redraw is due: the once-a-second timer, or data that came while the chart
        was out of view, now that it is in view. (Out of view, nothing is on screen to
        be late.)"""
        return self._timer is not None or (self._stale and self.in_view())

    def _set_limits(self, plot: PlotWidget, divisor: float, log: bool) -> None:
        if self.x_limits is not None:
            plot.set_xlimits(*self.x_limits)
        else:
            extent = self._time_extent()
            start = extent[0] if extent and self._dropped else 0.0
            end = max(extent[1] if extent else 0.0, self.span or 0.0, start + 1.0)
            plot.set_xlimits(start, end)
        top, low = self.top(), self.low()
        if log and low is not None:
            plot.set_y_formatter(DecadeTicks(rows=self.rows - 1))  # the time labels' row
            plot.set_ylimits(
                math.floor(math.log10(low / divisor)), math.ceil(math.log10(top / divisor))
            )
        else:
            plot.set_y_formatter(ValueTicks(rows=self.rows - 1))
            high = top / divisor * 1.05 if top > 0 else 1.0
            plot.set_ylimits(self._bottom(divisor, high), high)

    def _bottom(self, divisor: float, high: float) -> float:
        """0, or (``from_zero`` False) a whole number just under the lowest value."""
        if self.from_zero:
            return 0.0
        lowest = self._memo(
            "lowest",
            lambda: min(
                (v for key in self.visible_keys for _, v in self._lines[key].points
                 if v is not None),
                default=0.0,
            ),
        )  # fmt: skip
        bottom = float(math.floor(lowest / divisor - (high - lowest / divisor) * 0.05))
        return bottom if bottom < high else 0.0
