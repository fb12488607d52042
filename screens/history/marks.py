"""Marking runs in the history list for a comparison: space marks, c compares.

Mixed into the history screen (as run_editing is). Marks live in an
app.compare_marks.CompareMarks, in the order made: the first is the baseline. The list's
first column shows each marked run's place (1 = baseline); the line above the table
names the marked runs. Refusals come as CompareRefused and are worded by their kind:
a failed or cancelled run, a ninth run, fewer than two runs when c is pressed.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.screen import Screen
from textual.widgets import DataTable

from ...app.compare.marks import CompareMarks
from ...app.tui.context import context
from ...core.bench_models import RunResult
from ...core.compare.comparison import MAX_RUNS, MIN_RUNS, CompareRefused, RefusalKind
from .run_editing import StoreFactory

MARK_COLUMN = "mark"


def mark_cell(order: int | None) -> Text:
    """The first column: the run's place among the marked (1: the baseline)."""
    if order is None:
        return Text("")
    return Text(str(order), style="bold reverse cyan" if order == 1 else "bold reverse")


def refusal_text(refusal: CompareRefused, run: RunResult | None, marked: int) -> str:
    if refusal.kind is RefusalKind.NOT_OK and run is not None:
        return f"Run #{run.id} is {run.status}: only runs that finished ok compare."
    if refusal.kind is RefusalKind.TOO_MANY:
        return f"At most {MAX_RUNS} runs compare at once: unmark one (space) first."
    if refusal.kind is RefusalKind.TOO_FEW:
        return f"Mark {MIN_RUNS} to {MAX_RUNS} runs with space, then press c ({marked} marked)."
    return refusal.reason


class CompareMarking:
    """The history screen's marks; it provides ``runs``, ``selected_run`` and a
    ``_draw_view_label`` that calls :meth:`marks_text`."""

    marks: CompareMarks
    runs: list[RunResult]
    store_factory: StoreFactory

    @property
    def selected_run(self) -> RunResult | None:
        raise NotImplementedError

    def _draw_view_label(self) -> None:
        raise NotImplementedError

    def marks_text(self) -> Text:
        """ "marked #3 #1 · c compares" (empty with no marks)."""
        if not self.marks:
            return Text("")
        out = Text(" · marked ", style="dim")
        out.append(" ".join(f"#{i}" for i in self.marks.ids), style="bold cyan")
        out.append(" · c compares" if len(self.marks) > 1 else " · mark one more", style="dim")
        return out

    def action_mark(self) -> None:
        run = self.selected_run
        if run is not None and self._marked(run, toggle=True):
            table: DataTable[Any] = self._screen.query_one("#history-table", DataTable)
            table.action_cursor_down()

    def mark_run(self, run_id: int | None) -> None:
        """A run's detail view asked to compare it with others: mark it, say what next."""
        run = next((r for r in self.runs if r.id == run_id), None)
        if run is not None and self._marked(run, toggle=False):
            more = "mark another with space" if len(self.marks) < MIN_RUNS else "c compares"
            self._screen.notify(f"Run #{run.id} marked for comparison: {more}.")

    def _marked(self, run: RunResult, *, toggle: bool) -> bool:
        """Mark (or toggle) ``run`` and redraw; False, with a notice, when refused."""
        try:
            if toggle:
                self.marks.toggle(run)
            else:
                self.marks.add(run)
        except CompareRefused as refusal:
            self._refused(refusal, run)
            return False
        self._redraw_marks()
        return True

    def action_compare(self) -> None:
        try:
            ids = self.marks.check()
        except CompareRefused as refusal:
            self._refused(refusal, None)
            return
        context(self._screen).open_compare(ids, store_factory=self.store_factory)

    def _refused(self, refusal: CompareRefused, run: RunResult | None) -> None:
        self._screen.notify(refusal_text(refusal, run, len(self.marks)), severity="warning")

    def _redraw_marks(self) -> None:
        table: DataTable[Any] = self._screen.query_one("#history-table", DataTable)
        for run in self.runs:
            # Only marked rows, and the one just unmarked, can have changed; cells of
            # rows that were never marked are already blank.
            key = str(run.id)
            if key in table.rows:
                current = table.get_cell(key, MARK_COLUMN)
                cell = mark_cell(self.marks.order(run.id))
                if cell.plain != getattr(current, "plain", ""):
                    table.update_cell(key, MARK_COLUMN, cell)
        self._draw_view_label()

    @property
    def _screen(self) -> Screen[Any]:
        return self  # type: ignore[return-value]
