"""The sweep view's matrix (core/sweep/matrix): which cell lands where for any choice of
axes, the values held for the others, the units, the running and missing cells and the
colour scale (latency: lower is better)."""

from __future__ import annotations

import pytest
from tierdeck.core.compare.noise import Metric
from tierdeck.core.sweep.matrix import (
    CellState,
    Direction,
    build_matrix,
    default_choice,
    fixed_combinations,
    fmt_value,
    next_col_axis,
    next_direction,
    next_fixed,
    next_metric,
    next_row_axis,
    swap_axes,
)
from tierdeck.core.sweep.model import Axis, SweepSpec

from tests.snapshots.apps.sweep import SPEC, SWEEP, result_of, write_summary

THREE = SweepSpec(
    axes=(Axis("numjobs", (1, 2)), Axis("iodepth", (1, 8)), Axis("bs", ("4k", "1m"))),
    base={"rw": "read"},
)


def test_default_is_first_axis_down_second_across_and_values_in_mib() -> None:
    matrix = build_matrix(SWEEP, default_choice(SPEC))
    assert matrix.row_values == (1, 2, 3)
    assert matrix.col_values == (0, 50, 100)
    assert matrix.unit == "MiB/s"
    assert matrix.cells[1][2].value == pytest.approx(1010.3, abs=0.01)
    assert matrix.cells[1][2].run_id == 40 + 5
    assert matrix.cells[2][2].state is CellState.MISSING


def test_swap_puts_the_same_run_at_the_transposed_place() -> None:
    choice = swap_axes(SPEC, default_choice(SPEC))
    matrix = build_matrix(SWEEP, choice)
    assert (choice.rows, choice.cols) == ("buffer_compress_percentage", "numjobs")
    assert matrix.cells[2][1].run_id == 45
    assert next_row_axis(SPEC, default_choice(SPEC)) == choice  # two axes: the same


def test_running_cell_is_marked_and_failed_ones_apart() -> None:
    running = SWEEP.cells[8].cell.key
    matrix = build_matrix(SWEEP, default_choice(SPEC), running_key=running)
    assert matrix.cells[2][2].state is CellState.RUNNING
    assert sum(c.state is CellState.DONE for row in matrix.cells for c in row) == 8


def test_shade_is_green_for_the_best_and_lower_latency_is_better() -> None:
    bw = build_matrix(SWEEP, default_choice(SPEC))
    assert bw.cells[1][2].shade == 1.0  # 1010 MiB/s, the fastest
    assert bw.cells[0][0].shade == 0.0  # 148 MiB/s, the slowest
    lat_choice = next_metric(default_choice(SPEC))  # IOPS
    lat_choice = next_metric(lat_choice)
    assert lat_choice.metric is Metric.LAT_MEAN
    lat = build_matrix(SWEEP, lat_choice)
    assert lat.unit == "ms"
    assert lat.cells[0][2].value == pytest.approx(0.2)
    assert lat.cells[0][2].shade == 1.0  # the lowest latency is the best
    assert lat.cells[2][0].shade == 0.0


def test_direction_read_of_a_write_sweep_has_no_figures() -> None:
    choice = next_direction(default_choice(SPEC))
    assert choice.direction is Direction.READ
    matrix = build_matrix(SWEEP, choice)
    assert matrix.cells[0][0].state is CellState.NO_FIGURE


def test_three_axes_hold_the_third_and_cycle_its_values() -> None:
    choice = default_choice(THREE)
    assert choice.fixed == {"bs": "4k"}
    assert fixed_combinations(THREE, choice) == [{"bs": "4k"}, {"bs": "1m"}]
    choice = next_fixed(THREE, choice)
    assert choice.fixed == {"bs": "1m"}
    assert next_fixed(THREE, choice).fixed == {"bs": "4k"}
    # The columns move to bs: iodepth is held now, at its first value.
    cols = next_col_axis(THREE, choice)
    assert (cols.rows, cols.cols, cols.fixed) == ("numjobs", "bs", {"iodepth": 1})
    # rows to iodepth: the columns keep bs.
    rows = next_row_axis(THREE, cols)
    assert (rows.rows, rows.cols, rows.fixed) == ("iodepth", "bs", {"numjobs": 1})


def test_one_axis_is_a_single_column() -> None:
    spec = SweepSpec(axes=(Axis("numjobs", (1, 2)),), base={"rw": "write"})
    result = result_of(spec, {})
    choice = default_choice(spec)
    assert choice.cols is None and swap_axes(spec, choice) == choice
    matrix = build_matrix(result, choice)
    assert matrix.col_values == (None,) and len(matrix.cells) == 2


def test_cell_figures_keep_three_digits() -> None:
    assert fmt_value(1240.4, Metric.BW) == "1,240"
    assert fmt_value(14.25, Metric.BW) == "14.2"
    assert fmt_value(0.2153, Metric.LAT_MEAN) == "0.215"
    assert write_summary(128.0, 1.0)["write"].iops == pytest.approx(1024.0)
