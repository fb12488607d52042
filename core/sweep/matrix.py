"""A sweep's results as a two-axis matrix: what the sweep view and its chart show.

A sweep has one or more axes; a matrix shows two of them (rows and columns) and holds
the others at one value each (``fixed``, chosen by the user one combination at a time).
Each cell is the metric of one run in one direction (auto: the direction that moved the
most bytes), in the units people read fio in: MiB/s, IOPS, ms. ``shade`` places a value
between the worst and the best cell of the slice (1.0 best; for latency lower is
better), for the colour scale. Pure: no Textual, no I/O.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

from ..compare.noise import Metric
from .model import AxisValue, CellResult, SweepResult, SweepSpec, fio_value, metric_value

METRICS = (Metric.BW, Metric.IOPS, Metric.LAT_MEAN, Metric.LAT_P99)
METRIC_LABEL = {
    Metric.BW: "bandwidth",
    Metric.IOPS: "IOPS",
    Metric.LAT_MEAN: "mean latency",
    Metric.LAT_P99: "p99 latency",
}
METRIC_UNIT = {Metric.BW: "MiB/s", Metric.IOPS: "IOPS", Metric.LAT_MEAN: "ms", Metric.LAT_P99: "ms"}
METRIC_DIVISOR = {Metric.BW: 1024.0**2, Metric.IOPS: 1.0, Metric.LAT_MEAN: 1e6, Metric.LAT_P99: 1e6}


class Direction(StrEnum):
    AUTO = "auto"
    READ = "read"
    WRITE = "write"


DIRECTIONS = (Direction.AUTO, Direction.READ, Direction.WRITE)


class CellState(StrEnum):
    DONE = "done"  # run, with a figure
    NO_FIGURE = "no-figure"  # run, but nothing in this direction/metric
    FAILED = "failed"  # run, not ok (failed or cancelled)
    MISSING = "missing"  # not run (yet)
    RUNNING = "running"


@dataclass(frozen=True)
class MatrixCell:
    state: CellState
    value: float | None = None  # in the metric's unit (MiB/s, IOPS, ms)
    run_id: int | None = None
    shade: float | None = None  # 0 worst .. 1 best within the slice


@dataclass(frozen=True)
class MatrixChoice:
    """Which axes are rows and columns (None: a one-axis sweep, a single column), the
    values the other axes are held at, and what the cells show."""

    rows: str
    cols: str | None
    fixed: Mapping[str, AxisValue] = field(default_factory=dict, hash=False)
    metric: Metric = Metric.BW
    direction: Direction = Direction.AUTO


@dataclass(frozen=True)
class Matrix:
    choice: MatrixChoice
    row_values: tuple[AxisValue, ...]
    col_values: tuple[AxisValue | None, ...]  # (None,) stands for the one column of a 1-axis sweep
    cells: tuple[tuple[MatrixCell, ...], ...]  # [row][col]

    @property
    def unit(self) -> str:
        return METRIC_UNIT[self.choice.metric]


def default_choice(spec: SweepSpec) -> MatrixChoice:
    """The first axis as rows, the second as columns (seed 003: numjobs down, the
    compressibility across), the others at their first value."""
    names = [a.name for a in spec.axes]
    cols = names[1] if len(names) > 1 else None
    fixed = {a.name: a.values[0] for a in spec.axes[2:]}
    return MatrixChoice(rows=names[0], cols=cols, fixed=fixed)


def _values_of(spec: SweepSpec, name: str) -> tuple[AxisValue, ...]:
    return next(a.values for a in spec.axes if a.name == name)


def _with_axes(spec: SweepSpec, choice: MatrixChoice, rows: str, cols: str | None) -> MatrixChoice:
    # An axis leaving the matrix is held at its first value (or the one it had before).
    fixed = {
        a.name: choice.fixed.get(a.name, a.values[0])
        for a in spec.axes
        if a.name not in (rows, cols)
    }
    return replace(choice, rows=rows, cols=cols, fixed=fixed)


def swap_axes(spec: SweepSpec, choice: MatrixChoice) -> MatrixChoice:
    if choice.cols is None:
        return choice
    return _with_axes(spec, choice, choice.cols, choice.rows)


def next_row_axis(spec: SweepSpec, choice: MatrixChoice) -> MatrixChoice:
    """The next axis as rows; the columns keep theirs unless it is that one (then the
    old row axis takes the columns)."""
    names = [a.name for a in spec.axes]
    if len(names) < 2:
        return choice
    rows = names[(names.index(choice.rows) + 1) % len(names)]
    cols = choice.cols if choice.cols != rows else choice.rows
    return _with_axes(spec, choice, rows, cols)


def next_col_axis(spec: SweepSpec, choice: MatrixChoice) -> MatrixChoice:
    """The next axis (other than the rows') as columns."""
    others = [a.name for a in spec.axes if a.name != choice.rows]
    if len(others) < 2 or choice.cols is None:
        return choice
    cols = others[(others.index(choice.cols) + 1) % len(others)]
    return _with_axes(spec, choice, choice.rows, cols)


def fixed_combinations(spec: SweepSpec, choice: MatrixChoice) -> list[dict[str, AxisValue]]:
    """Every way to hold the axes outside the matrix, in the sweep's own order."""
    held = [a for a in spec.axes if a.name in choice.fixed]
    return [
        dict(zip((a.name for a in held), combo, strict=True))
        for combo in itertools.product(*(a.values for a in held))
    ]


def next_fixed(spec: SweepSpec, choice: MatrixChoice) -> MatrixChoice:
    combos = fixed_combinations(spec, choice)
    if len(combos) < 2:
        return choice
    now = dict(choice.fixed)
    i = combos.index(now) if now in combos else -1
    return replace(choice, fixed=combos[(i + 1) % len(combos)])


def next_metric(choice: MatrixChoice) -> MatrixChoice:
    return replace(choice, metric=METRICS[(METRICS.index(choice.metric) + 1) % len(METRICS)])


def next_direction(choice: MatrixChoice) -> MatrixChoice:
    i = DIRECTIONS.index(choice.direction)
    return replace(choice, direction=DIRECTIONS[(i + 1) % len(DIRECTIONS)])


def _cell_of(found: CellResult | None, choice: MatrixChoice, running: bool) -> MatrixCell:
    if running:
        return MatrixCell(CellState.RUNNING)
    if found is None or found.run_id is None:
        return MatrixCell(CellState.MISSING)
    if found.status != "ok":
        return MatrixCell(CellState.FAILED, run_id=found.run_id)
    direction = None if choice.direction is Direction.AUTO else choice.direction.value
    value = metric_value(found.summary, choice.metric, direction)
    if value is None:
        return MatrixCell(CellState.NO_FIGURE, run_id=found.run_id)
    return MatrixCell(CellState.DONE, value / METRIC_DIVISOR[choice.metric], found.run_id)


def build_matrix(
    result: SweepResult, choice: MatrixChoice, running_key: str | None = None
) -> Matrix:
    """The slice ``choice`` names; ``running_key``: the cell whose run is under way."""
    spec = result.spec
    by_values = {tuple(sorted(c.cell.as_dict.items(), key=str)): c for c in result.cells}
    running = {
        tuple(sorted(c.cell.as_dict.items(), key=str))
        for c in result.cells
        if c.cell.key == running_key
    }
    row_values = _values_of(spec, choice.rows)
    col_values: tuple[AxisValue | None, ...] = (
        _values_of(spec, choice.cols) if choice.cols is not None else (None,)
    )
    rows = []
    for rv in row_values:
        row = []
        for cv in col_values:
            values = dict(choice.fixed) | {choice.rows: rv}
            if choice.cols is not None and cv is not None:
                values[choice.cols] = cv
            key = tuple(sorted(values.items(), key=str))
            row.append(_cell_of(by_values.get(key), choice, key in running))
        rows.append(tuple(row))
    cells = _shaded(rows, choice.metric)
    return Matrix(choice, row_values, col_values, cells)


def _shaded(
    rows: Sequence[Sequence[MatrixCell]], metric: Metric
) -> tuple[tuple[MatrixCell, ...], ...]:
    values = [c.value for row in rows for c in row if c.value is not None]
    if not values:
        return tuple(tuple(row) for row in rows)
    low, high = min(values), max(values)

    def shade(value: float | None) -> float | None:
        if value is None:
            return None
        if high == low:
            return 1.0
        frac = (value - low) / (high - low)
        return frac if metric.higher_is_better else 1.0 - frac

    return tuple(tuple(replace(c, shade=shade(c.value)) for c in row) for row in rows)


def fmt_value(value: float, metric: Metric) -> str:
    """A cell's figure in its column's unit: ``1,240`` MiB/s, ``12,345`` IOPS,
    ``0.215`` ms: three significant digits at least, no unit (the header has it)."""
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    if value >= 1:
        return f"{value:.2f}"
    return f"{value:.3f}" if value >= 0.001 or value == 0 else f"{value:.1e}"


def axis_value_label(value: AxisValue | None) -> str:
    return "" if value is None else fio_value(value)
