"""widgets/compare/table.column_widths: a cell is never cut, the width there is goes to
the headers. Runs are the recorded lab runs of tests/fixtures/bench_screens."""

from __future__ import annotations

from tierdeck.app.compare.render import rich_cell, run_label
from tierdeck.core.compare.comparison import compare_runs
from tierdeck.widgets.compare.table import PADDING, column_widths

from tests.unit.core.compare.test_compare import recording

RUNS = ("pool_write", "pool_buffered", "branch_randrw", "stonewall_step", "suite_mixed")


def comparison():  # type: ignore[no-untyped-def]
    return compare_runs([recording(name, i + 1) for i, name in enumerate(RUNS)])


def test_no_cell_loses_its_percent_sign_even_at_80_columns() -> None:
    c = comparison()
    widths = column_widths(c, 80 - 17 - 2 - 1)
    for row in c.rows:
        for d in row.directions:
            for m in d.metrics:
                for index, cell in enumerate(m.cells):
                    assert rich_cell(m.metric, cell).cell_len <= widths[index]
    assert max(rich_cell(m.metric, cell).cell_len for row in c.rows for d in row.directions
               for m in d.metrics for cell in m.cells) > 17  # "122.2 ms ? +451.5%"  # fmt: skip


def test_a_wide_terminal_widens_the_columns_to_whole_names() -> None:
    c = comparison()
    room = 160 - 17 - 2 - 1
    widths = column_widths(c, room)
    assert widths == [max(w, len(run_label(r))) for w, r in zip(widths, c.runs, strict=True)]
    assert sum(w + PADDING for w in widths) <= room
    assert widths != column_widths(c, 80 - 17 - 2 - 1)
