"""A sweep's matrix: two axes as rows and columns, one metric in the cells, coloured
from worst (red) to best (green), and a line chart of the metric against the columns'
axis (one line per row value).

The slicing is ``core/sweep/matrix`` (pure); this widget draws a ``SweepResult`` through
it and keeps the user's choice (``MatrixChoice``) across updates, so cells fill in
while a sweep runs without moving the view. The keys are the screen's
(``MATRIX_BINDINGS``, action ``matrix('...')``): the help page lists a screen's own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from ...core.compare.noise import Metric
from ...core.sweep.matrix import (
    METRIC_DIVISOR,
    METRIC_LABEL,
    CellState,
    Direction,
    Matrix,
    MatrixCell,
    MatrixChoice,
    axis_value_label,
    build_matrix,
    default_choice,
    fmt_value,
    next_col_axis,
    next_direction,
    next_fixed,
    next_metric,
    next_row_axis,
    swap_axes,
)
from ...core.sweep.model import CellResult, SweepResult
from ..charts.series_axes import COUNT, LATENCY, RATE, AxisUnit, CategoryTicks
from ..charts.series_chart import SeriesChart
from ..charts.series_data import LegendValue, NamedSeries

MATRIX_BINDINGS = [
    Binding("m", "matrix('metric')", "Metric", tooltip="next metric: MiB/s, IOPS, mean, p99 ms"),
    Binding(
        "d",
        "matrix('direction')",
        "Direction",
        show=False,
        tooltip="direction of the figures: auto (the busier one), read, write",
    ),
    Binding("s", "matrix('swap')", "Swap", tooltip="swap the rows' and the columns' axes"),
    Binding("a", "matrix('rows')", "Rows", show=False, tooltip="the next axis as rows"),
    Binding("o", "matrix('cols')", "Columns", show=False, tooltip="the next axis as columns"),
    Binding(
        "f",
        "matrix('fixed')",
        "Fixed",
        show=False,
        tooltip="more than two axes: the next value of those not shown",
    ),
    Binding("g", "matrix('chart')", "Chart", tooltip="show or hide the line chart"),
]

SHADES = ("red1", "dark_orange", "yellow1", "chartreuse1", "green1")
_CHART_UNIT: dict[Metric, AxisUnit] = {
    Metric.BW: RATE,
    Metric.IOPS: COUNT,
    Metric.LAT_MEAN: LATENCY,
    Metric.LAT_P99: LATENCY,
}
CELL_WIDTH = 9


def _cut(name: str, width: int = 14) -> str:
    return name if len(name) <= width else name[: width - 1] + "…"


def cell_text(cell: MatrixCell, metric: Metric, *, live: bool) -> Text:
    """A cell: the figure in its colour; ``▶ …`` while its run goes, ``…`` waiting for
    its turn (``-`` in a stored sweep: not run), ``✘`` failed or cancelled."""
    if cell.state is CellState.RUNNING:
        return Text("▶ …", style="bold reverse cyan", justify="right")
    if cell.state is CellState.MISSING:
        return Text("…" if live else "-", style="dim", justify="right")
    if cell.state is CellState.FAILED:
        return Text("✘", style="bold red", justify="right")
    if cell.state is CellState.NO_FIGURE or cell.value is None:
        return Text("—", style="dim", justify="right")
    shade = cell.shade if cell.shade is not None else 1.0
    colour = SHADES[round(shade * (len(SHADES) - 1))]
    return Text(fmt_value(cell.value, metric), style=f"bold {colour}", justify="right")


def matrix_caption(matrix: Matrix, result: SweepResult) -> Text:
    """The line above the table: what the cells hold and which values the other axes
    are held at."""
    choice = matrix.choice
    out = Text()
    out.append(METRIC_LABEL[choice.metric], style="bold")
    out.append(f" ({matrix.unit}", style="bold")
    if choice.direction is not Direction.AUTO:
        out.append(f", {choice.direction.value}", style="bold")
    out.append(")", style="bold")
    if choice.metric.higher_is_better:
        out.append(" · green best", style="dim")
    else:
        out.append(" · lower is better, green best", style="dim")
    if choice.fixed:
        held = " ".join(f"{k}={axis_value_label(v)}" for k, v in choice.fixed.items())
        out.append(" · at ", style="dim")
        out.append(held, style="bold cyan")
    done = sum(1 for c in result.cells if c.run_id is not None and c.status == "ok")
    out.append(f" · {done}/{len(result.cells)} cells", style="dim")
    return out


def chart_series(matrix: Matrix) -> tuple[list[str], list[NamedSeries]]:
    """The x positions' names and one line per row (a one-axis sweep: one line along
    its rows), in the metric's raw unit (bytes/s, IOPS, ns) for the chart's axis."""
    divisor = METRIC_DIVISOR[matrix.choice.metric]

    def raw(cell: MatrixCell) -> float | None:
        return None if cell.value is None else cell.value * divisor

    if matrix.choice.cols is None:
        names = [axis_value_label(v) for v in matrix.row_values]
        points = [(float(i), raw(row[0])) for i, row in enumerate(matrix.cells)]
        return names, [NamedSeries(METRIC_LABEL[matrix.choice.metric], points)]
    names = [axis_value_label(v) for v in matrix.col_values]
    series = [
        NamedSeries(
            f"{matrix.choice.rows}={axis_value_label(rv)}",
            [(float(i), raw(cell)) for i, cell in enumerate(row)],
        )
        for rv, row in zip(matrix.row_values, matrix.cells, strict=True)
    ]
    return names, series


class SweepMatrix(Vertical):
    """The matrix of one sweep. :meth:`show` draws a result (again, as cells finish);
    :meth:`apply` does what a matrix key asks."""

    DEFAULT_CSS = """
    SweepMatrix { height: auto; }
    SweepMatrix > #matrix-caption { height: auto; }
    SweepMatrix > DataTable { height: auto; max-height: 14; }
    """

    def __init__(self, result: SweepResult, *, live: bool = False, id: str | None = None) -> None:
        super().__init__(id=id)
        self.result = result
        self.live = live
        self.running_key: str | None = None
        self.choice: MatrixChoice = default_choice(result.spec)
        self.matrix: Matrix = build_matrix(result, self.choice)
        self._ready = False

    def compose(self) -> ComposeResult:
        yield Static(id="matrix-caption")
        yield DataTable(cursor_type="cell", zebra_stripes=False, id="matrix-table")
        yield SeriesChart(
            "",
            unit=RATE,
            legend=LegendValue.NONE,
            x_ticks=CategoryTicks([]),
            x_limits=(0.0, 1.0),
            id="matrix-chart",
        )

    def on_mount(self) -> None:
        self._ready = True  # is_mounted turns True only after this handler
        self._draw()

    # -- changes ------------------------------------------------------------------------

    def show(self, result: SweepResult, running_key: str | None = None) -> None:
        self.result = result
        self.running_key = running_key
        self._draw()

    def cell_done(self, done: CellResult) -> None:
        """One cell finished: put it in the result (by key) and redraw."""
        cells = tuple(done if c.cell.key == done.cell.key else c for c in self.result.cells)
        if self.running_key == done.cell.key:
            self.running_key = None
        self.show(replace(self.result, cells=cells), self.running_key)

    def apply(self, what: str) -> None:
        spec = self.result.spec
        if what == "chart":
            chart = self.query_one(SeriesChart)
            chart.display = not chart.display
            return
        changes: dict[str, Callable[[MatrixChoice], MatrixChoice]] = {
            "metric": next_metric,
            "direction": next_direction,
            "swap": lambda c: swap_axes(spec, c),
            "rows": lambda c: next_row_axis(spec, c),
            "cols": lambda c: next_col_axis(spec, c),
            "fixed": lambda c: next_fixed(spec, c),
        }
        self.choice = changes[what](self.choice)
        self._draw()

    def cell_at_cursor(self) -> MatrixCell | None:
        """The matrix cell under the table's cursor (None on the axis' own column)."""
        table: DataTable[Text] = self.query_one(DataTable)
        row, col = table.cursor_coordinate
        if col < 1 or row >= len(self.matrix.cells) or col > len(self.matrix.cells[row]):
            return None
        return self.matrix.cells[row][col - 1]

    # -- drawing --------------------------------------------------------------------------

    def _draw(self) -> None:
        self.matrix = build_matrix(self.result, self.choice, self.running_key)
        if not self._ready:
            return
        self.query_one("#matrix-caption", Static).update(matrix_caption(self.matrix, self.result))
        self._fill_table()
        self._draw_chart()

    def _fill_table(self) -> None:
        table: DataTable[Text] = self.query_one(DataTable)
        cursor = table.cursor_coordinate
        table.clear(columns=True)
        choice, matrix = self.choice, self.matrix
        corner = _cut(choice.rows) + ("" if choice.cols is None else f" ↓ {_cut(choice.cols)} →")
        table.add_column(Text(corner, style="bold"), key="axis")
        if choice.cols is None:
            table.add_column(Text(matrix.unit, justify="right"), width=CELL_WIDTH, key="c0")
        else:
            for i, value in enumerate(matrix.col_values):
                label = Text(axis_value_label(value), style="bold", justify="right")
                table.add_column(label, width=CELL_WIDTH, key=f"c{i}")
        table.fixed_columns = 1
        for value, row in zip(matrix.row_values, matrix.cells, strict=True):
            cells = [cell_text(c, choice.metric, live=self.live) for c in row]
            table.add_row(Text(axis_value_label(value), style="bold"), *cells)
        if table.is_valid_coordinate(cursor):
            table.cursor_coordinate = cursor

    def _draw_chart(self) -> None:
        chart = self.query_one(SeriesChart)
        metric = self.choice.metric
        names, series = chart_series(self.matrix)
        axis = self.choice.cols or self.choice.rows
        chart.title = f"{METRIC_LABEL[metric]} by {axis}"
        chart.unit = _CHART_UNIT[metric]
        chart.log_scale = False
        pad = 0.25
        chart.set_x_axis(CategoryTicks(names), (-pad, max(1.0, len(names) - 1 + pad)))
        chart.set_series(series)
