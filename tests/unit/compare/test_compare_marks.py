"""Marks for a comparison (app/compare/marks), the compare view's panel texts
(widgets/compare/panel), on recorded runs."""

from __future__ import annotations

import io
from dataclasses import replace

import pytest
from rich.console import Console
from tierdeck.app.compare.marks import CompareMarks
from tierdeck.app.compare.render import COMPARABLE
from tierdeck.core.bench_models import RunStatus
from tierdeck.core.compare.comparison import MAX_RUNS, CompareRefused, RefusalKind, compare_runs
from tierdeck.widgets.compare.panel import baseline_line, chart_note, panel_renderable

from tests.unit.core.compare.test_compare import one_write_job, plain, recording, write_series


def text_of(renderable: object, width: int = 80) -> str:
    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    console.print(renderable)
    return "\n".join(line.rstrip() for line in console.export_text().splitlines())


def test_marks_keep_their_order_and_toggle() -> None:
    marks = CompareMarks()
    assert marks.toggle(plain(3)) is True
    assert marks.toggle(plain(1)) is True
    assert marks.ids == [3, 1] and marks.order(3) == 1 and marks.order(1) == 2
    marks.add(plain(3))  # already marked: nothing moves
    assert marks.ids == [3, 1]
    assert marks.toggle(plain(3)) is False
    assert marks.ids == [1] and marks.order(1) == 1 and marks.order(3) is None
    marks.discard(1)
    assert len(marks) == 0


@pytest.mark.parametrize("status", [RunStatus.FAILED, RunStatus.CANCELLED])
def test_a_failed_or_cancelled_run_is_refused_as_not_ok(status: RunStatus) -> None:
    marks = CompareMarks()
    with pytest.raises(CompareRefused) as refused:
        marks.add(plain(5, status=status))
    assert refused.value.kind is RefusalKind.NOT_OK
    assert marks.ids == []


def test_a_ninth_run_is_refused_and_fewer_than_two_do_not_compare() -> None:
    marks = CompareMarks()
    with pytest.raises(CompareRefused) as few:
        marks.check()
    assert few.value.kind is RefusalKind.TOO_FEW
    marks.add(plain(1))
    with pytest.raises(CompareRefused):
        marks.check()
    for run_id in range(2, MAX_RUNS + 1):
        marks.add(plain(run_id))
    with pytest.raises(CompareRefused) as many:
        marks.add(plain(99))
    assert many.value.kind is RefusalKind.TOO_MANY
    assert marks.check() == list(range(1, MAX_RUNS + 1))


def test_panel_lists_differences_per_run_and_warnings() -> None:
    comparison = compare_runs([recording("pool_write", 1), recording("branch_randrw", 2)])
    wide = text_of(panel_renderable(comparison, 78))
    assert "What differs" in wide
    assert "job[pool-write].bs\n  #1 1M  #2 4k\n" in wide
    assert "#1 pool write 1M: cache:" in wide  # the run to mind
    assert "target.path  (information: what was compared)" in wide
    # values that do not fit one line get a line each
    narrow = text_of(panel_renderable(comparison, 40), width=40)
    assert "mount_options\n  #1 rw,nosuid,nodev,relatime,user_id=0,\n     group_id=0" in narrow
    line = baseline_line(comparison).plain
    assert line.startswith("baseline #1 pool write 1M · ≈ within noise · 2: ")
    assert "to mind" in line


def test_identical_runs_are_comparable() -> None:
    runs = [one_write_job(1, 400, write_series([400, 401, 399])), one_write_job(2, 401)]
    comparison = compare_runs(runs)
    assert comparison.comparable
    assert COMPARABLE in text_of(panel_renderable(comparison, 78))
    assert baseline_line(comparison).plain.endswith("· comparable")
    assert chart_note(comparison).plain == "no per-second series, not drawn: #2 " + runs[1].name


def test_chart_note_is_empty_when_every_run_has_series() -> None:
    runs = [replace(recording("pool_write", 1)), recording("pool_buffered", 2)]
    assert chart_note(compare_runs(runs)).plain == ""
