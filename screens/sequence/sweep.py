"""The sweep view: the whole sweep's progress (run k of n, the sweep's ETA), its matrix
filling in as cells finish, and the run in progress below.

Opened on a stored sweep (``w``/``W`` in the history, ``screens/history/sets``; nothing
runs) or to run one (``w`` on the dashboard asks for a sweep file,
``screens/sequence/sweep_open.py``: the view checks the plan in a thread first). Enter on a
cell opens its run. The run is a ``SweepRun`` (``app.sweep_run.run_sweep`` bound to
the service, the inventory and the plan) run by ``SequenceView``; its events come back
as ``app.sequence_messages``. A cancelled or failed sweep keeps its finished cells: ``R``
(or ``tierdeck bench sweep --resume ID``) runs the missing ones.
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from ...app.tui.context import context
from ...app.tui.sequence_messages import (
    CellFinished,
    CellStarted,
    SweepPlanner,
    SweepRun,
    SweepStart,
    sweep_message,
)
from ...core.errors import TierdeckError, one_line
from ...core.sweep.model import SweepResult
from ...core.units import fmt_clock
from ...widgets.bars import percent_bar
from ...widgets.bench.live_run import LiveRun
from ...widgets.charts.run_charts import plot_rows
from ...widgets.charts.series_chart import SeriesChart
from ...widgets.sequence.sweep_matrix import MATRIX_BINDINGS, SweepMatrix
from .view import SequenceView, sequence_bindings


class SweepScreen(SequenceView, Screen[None]):
    CSS_PATH = "../common.tcss"

    BINDINGS = [
        Binding("enter", "open_cell", "Open run", tooltip="the highlighted cell's run, in full"),
        *MATRIX_BINDINGS,
        *sequence_bindings("sweep", "the finished cells stay, R resumes"),
        Binding("e", "export", "Export", tooltip="the sweep as a file: Markdown, CSV or JSON"),
        Binding(
            "R",
            "resume",
            "Resume",
            tooltip="an unfinished sweep: run its missing cells (as --resume ID)",
        ),
    ]
    HELP_TITLE = "tierdeck keys: sweep"
    HELP_NOTES = (
        ("arrows", "move in the matrix; the page scrolls with it"),
        ("escape", "close this help"),
    )
    HELP_LEGEND = (
        "Cells: green best, red worst of the cells shown (latency: lower is better); "
        "▶ running, … waiting for its turn, - not run, ✘ failed or cancelled, — no figure "
        "in that direction."
    )
    CANCEL_TITLE = "Sweep"

    running: var[bool] = var(False)
    planning: var[bool] = var(False)
    cells_done: var[int] = var(0)
    """Cells finished while this view ran the sweep (tests wait on it)."""
    exported: str | None = None
    """The last file the export key wrote (tests wait on it)."""

    def __init__(
        self,
        result: SweepResult,
        run: SweepRun | None = None,
        *,
        resume: SweepPlanner | None = None,
        planner: SweepPlanner | None = None,
    ) -> None:
        """``result``: the sweep as stored (cells not run are missing); ``run``: run it
        at once; ``planner``: check it first (in a thread), then run what it gives;
        ``resume``: the planner ``R`` runs on an unfinished sweep."""
        super().__init__(id="sweep")
        self.setup_sequence()
        self.result = result
        self._run = run
        self._planner = planner
        self._resume = resume
        self.position: tuple[int, int] | None = None
        self.cell_label: str | None = None
        self._eta_at_start: float | None = None
        self._set_cancel_question()

    def _set_cancel_question(self) -> None:
        self.CANCEL_QUESTION = (
            "The run in progress stops (fio TERM, then KILL; its files are removed) and no "
            "further cell starts. The finished cells stay in the history: R here, or "
            f"tierdeck bench sweep --resume {self.result.id}, runs the missing ones."
        )

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="sweep-head")
        with VerticalScroll(id="sweep-body"):
            yield SweepMatrix(self.result, live=self._run is not None, id="matrix")
            yield LiveRun(id="live-run")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(LiveRun).display = False
        self.query_one("#matrix-table").focus()
        if self._run is not None:
            self._start(self._run)
        elif self._planner is not None:
            self.plan_first(self._planner)
        self.draw_head()

    def planned(self, planned: object) -> None:
        assert isinstance(planned, SweepStart)
        self.result = planned.result
        self._resume = planned.resume or self._resume
        self._set_cancel_question()
        self.query_one(SweepMatrix).show(self.result)
        self._start(planned.run)

    def on_resize(self) -> None:
        # A tall terminal gives the matrix's chart the rows the live run does not need.
        live = 9 if self.query_one(LiveRun).display else 0
        reserved = 6 + len(self.result.spec.axes[0].values) + live
        self.query_one(SweepMatrix).query_one(SeriesChart).rows = plot_rows(
            self.size.height, 1, reserved
        )

    def _start(self, run: SweepRun) -> None:
        self.position = None
        self.query_one(SweepMatrix).live = True
        self.begin(run, sweep_message)

    # -- messages -------------------------------------------------------------------------

    def on_cell_started(self, message: CellStarted) -> None:
        self.position = (message.position, message.total)
        self.cell_label = message.cell.label
        self._eta_at_start = message.eta_s
        self.query_one(SweepMatrix).show(self.result, running_key=message.cell.key)
        self.draw_head()

    def on_cell_finished(self, message: CellFinished) -> None:
        matrix = self.query_one(SweepMatrix)
        matrix.cell_done(message.result)
        self.result = matrix.result
        self.cells_done += 1
        if message.refusal:
            self.notify(f"{message.result.cell.label}: {message.refusal}", severity="warning")

    def finished(self, result: object | None, error: str | None) -> None:
        if isinstance(result, SweepResult):
            self.result = result
        matrix = self.query_one(SweepMatrix)
        matrix.live = False
        matrix.show(self.result)

    # -- drawing ------------------------------------------------------------------------

    def draw_head(self) -> None:
        result = self.result
        number = f" #{result.id}" if result.id else ""  # 0: not created yet (checking)
        self.sub_title = f"{number.strip()} {result.spec.name or 'sweep'}".strip()
        line1 = Text(f"Sweep{number}", style="bold", no_wrap=True, overflow="ellipsis")
        if result.spec.name:
            line1.append(f" {result.spec.name}", style="bold")
        axes = " × ".join(f"{a.name} ({len(a.values)})" for a in result.spec.axes)
        line1.append(f" · {axes} = {len(result.cells)} runs", style="dim")
        line2 = Text(no_wrap=True, overflow="ellipsis")
        planning = self.plan_line("sweep", "fio --parse-only, each cell's preflight")
        if planning is not None:
            line2 = planning
        elif self.running and self.position is not None:
            k, n = self.position
            line2.append(f"run {k} of {n} ", style="bold cyan")
            line2.append_text(percent_bar((k - 1) / n * 100, width=12))
            line2.append(f"  sweep ETA {fmt_clock(self._sweep_eta())}", style="dim")
            line2.append(f"  {self.cell_label or ''}", style="cyan")
        elif self.running:
            line2.append("starting…", style="bold cyan")
        else:
            line2.append_text(self._state_line())
        self.query_one("#sweep-head", Static).update(Group(line1, line2))

    def _sweep_eta(self) -> float | None:
        """The sweep's ETA at the cell's start less what fio has run of it since: no
        clock, so a replay draws the same figure every time."""
        if self._eta_at_start is None:
            return None
        return max(0.0, self._eta_at_start - self.query_one(LiveRun).last_t)

    def _state_line(self) -> Text:
        missing = len(self.result.missing)
        if not missing:
            return Text("✔ every cell done · escape: back", style="bold green")
        out = Text(f"{missing} of {len(self.result.cells)} cells not run", style="bold yellow")
        if self.outcome not in (None, "done"):
            out.append(f" · ✘ {self.outcome}", style="bold red")
        hint = " · R resumes" if self._resume is not None else ""
        out.append(f"{hint} · tierdeck bench sweep --resume {self.result.id}", style="dim")
        return out

    # -- actions --------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "resume":
            idle = not (self.running or self.planning)
            return idle and self._resume is not None and not self.result.complete
        return super().check_action(action, parameters)

    def action_matrix(self, what: str) -> None:
        self.query_one(SweepMatrix).apply(what)

    @on(DataTable.CellSelected, "#matrix-table")
    def _cell_selected(self, event: DataTable.CellSelected) -> None:
        event.stop()
        self.action_open_cell()

    def action_open_cell(self) -> None:
        """enter: the cell's run in the run detail view (as the history opens it)."""
        cell = self.query_one(SweepMatrix).cell_at_cursor()
        if cell is None:
            self.notify("enter: move onto a cell of the matrix (left / right).")
        elif cell.run_id is None:
            self.notify("This cell has no run yet.")
        else:
            context(self).open_run(cell.run_id)

    def action_export(self) -> None:
        """e: the sweep as a file in the folder tierdeck was started from (never over
        another file), as ``tierdeck bench sweep-export`` writes it."""
        from ...app.sweep.export import SweepExportFormat
        from ..modals.choice import ChoiceScreen

        if not self.result.id:
            self.notify("The sweep is still being checked: nothing stored to export yet.")
            return
        sweep_id = self.result.id

        def picked(key: str | None) -> None:
            if key is not None:
                self._export_worker(sweep_id, SweepExportFormat(key))

        choices = [("md", "Markdown (the matrix)"), ("csv", "CSV (every figure)"),
                   ("json", "JSON (tierdeck.sweep-result/1)")]  # fmt: skip
        self.app.push_screen(ChoiceScreen(f"Export sweep #{sweep_id}", choices), picked)

    @work(thread=True, group="export", exit_on_error=False)
    def _export_worker(self, sweep_id: int, fmt: object) -> None:
        from ...app.history.run_sets import RunSetStore
        from ...app.sweep.export import SweepExportFormat, write_sweep_export

        assert isinstance(fmt, SweepExportFormat)
        try:
            written = write_sweep_export(RunSetStore(), sweep_id, fmt)
        except (TierdeckError, OSError) as exc:
            self.app.call_from_thread(
                self.notify, f"Export failed: {one_line(exc)}", severity="error", timeout=10
            )
            return
        self.exported = str(written.path)
        self.app.call_from_thread(self.notify, f"Export: {written.message()}", timeout=10)

    def action_resume(self) -> None:
        if self.check_action("resume", ()) and self._resume is not None:
            self.plan_first(self._resume)
            self.draw_head()
