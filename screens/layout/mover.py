"""The mover view: a layout's dry-run forecast, a live run, its report.

Opened from the dashboard (``m``, asking for a layout file) or from the compose screen
(its current layout). On opening it runs the mover as a dry run (the forecast: which
files, why, where each goes, how long) and shows the last recorded run's report. ``m``
moves the files after a confirmation; app/mover/run.run_mover then runs in a worker thread
and reports its progress through messages (the bar, bytes, files, rate, ETA, the
current file). ``c`` or escape cancels: the engine stops between two safe points, so no
file is left half-moved; the report follows.
"""

from __future__ import annotations

import threading
from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Footer, Header, ProgressBar, Static, TabbedContent, TabPane

from ...app.mover.history import MoverRecord
from ...app.mover.run import MoverOptions, MoverProgress, MoverRefused, MoverReport, run_mover
from ...app.tui.context import context
from ...core.errors import one_line
from ...core.layout.model import Layout
from ...widgets.layout.mover_views import (
    PlanTable,
    forecast_renderable,
    planned_bytes,
    progress_text,
    record_renderable,
    report_renderable,
)
from .mover_support import (
    LastRun,
    LastRunLoaded,
    MoverFailed,
    MoverFinished,
    MoverProgressed,
    Phase,
    RunMover,
    head_text,
    last_move,
    move_question,
)


class MoverScreen(Screen[None]):
    CSS_PATH = "mover.tcss"

    _CANCEL = "cancel the move (the current file finishes or is undone: none is lost)"
    BINDINGS = [
        Binding("m", "move", "Move now", tooltip="move the forecast's files now (asks first)"),
        Binding("c", "cancel", "Cancel", tooltip=_CANCEL),
        Binding("escape", "cancel", "Cancel", show=False, tooltip=_CANCEL),
        Binding("escape", "back", "Back", tooltip="back (when no move runs)"),
        Binding("f", "forecast", "Forecast", tooltip="forecast again (a dry run: nothing moves)"),
        Binding("1", "view('tab-forecast')", "Forecast", show=False, tooltip="view: the forecast"),
        Binding("2", "view('tab-report')", "Report", show=False, tooltip="view: the run's report"),
        Binding("q", "quit", "Quit", tooltip="quit tierdeck (cancels a running move first)"),
    ]
    HELP_TITLE = "tierdeck keys: mover"
    HELP_NOTES = (
        ("up / down", "forecast: move in the list; report: scroll"),
        ("escape", "close this help"),
    )
    HELP_LEGEND = (
        "Why: age (older than the layout's min age) or fill (the cache is above its high "
        "watermark). To: the slow branch the slow pool's create policy picks. Skipped "
        "files stay on the cache, whole. '! N selected files fit on no slow branch' says "
        "why (a read-only slow branch, no room above minfreespace): they stay too."
    )

    phase: var[Phase] = var(Phase.FORECASTING)
    forecast: var[MoverReport | None] = var(None)
    report: var[MoverReport | None] = var(None)
    """This view's run, once it ended."""
    last_run: var[MoverRecord | None] = var(None)
    """The newest recorded run, shown until this view runs one."""
    progress: var[MoverProgress | None] = var(None)

    def __init__(
        self,
        layout: Layout,
        layout_path: Path,
        *,
        run: RunMover = run_mover,
        last_run: LastRun | None = None,
        on_host: str | None = None,
    ) -> None:
        """``on_host``: the machine whose own tierdeck runs the mover (``run`` starts
        it there), named in the title; None for this machine's."""
        super().__init__(id="mover")
        self.tier_layout = layout
        self.layout_path = layout_path
        self.on_host = on_host
        self._run = run
        self._last_run = last_run or (lambda: last_move(layout_path))
        self._cancel = threading.Event()
        self._quit_after = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="mover-head")
        with Vertical(id="mover-live"):
            yield ProgressBar(id="mover-bar", show_eta=False)
            yield Static(id="mover-progress")
        with TabbedContent(id="mover-views"):
            with TabPane("1 Forecast", id="tab-forecast"):
                yield Static(id="mover-forecast")
                yield PlanTable(id="mover-plan")
            with TabPane("2 Report", id="tab-report"), VerticalScroll(id="mover-report-box"):
                yield Static(id="mover-report")
        yield Footer()

    def on_mount(self) -> None:
        where = "" if self.on_host is None else f" on {self.on_host}"
        self.sub_title = f"mover: {self.layout_path.name}{where}"
        self.query_one("#mover-live").display = False
        self._draw_head()
        self._draw_report()
        self._load_last_run()
        self._start(dry_run=True)
        self.query_one(PlanTable).focus()

    def on_unmount(self) -> None:
        # The app is closing under a running move (ctrl+c, a test ending): a thread
        # cannot be killed, and closing waits for it, so stop it the clean way.
        self._cancel.set()

    # -- workers ----------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="mover", exit_on_error=False)
    def _start(self, *, dry_run: bool) -> None:
        try:
            report = self._run(
                context(self).host,
                self.tier_layout,
                self.layout_path,
                MoverOptions(dry_run=dry_run),
                on_progress=lambda p: self.post_message(MoverProgressed(p)),
                cancel=self._cancel,
            )
        except MoverRefused as exc:
            self.post_message(MoverFailed(exc.detail))
        except Exception as exc:  # noqa: BLE001 - shown in the view, never fatal
            self.post_message(MoverFailed(one_line(exc)))
        else:
            self.post_message(MoverFinished(report))

    @work(thread=True, group="mover-history", exit_on_error=False)
    def _load_last_run(self) -> None:
        try:
            record = self._last_run()
        except Exception as exc:  # noqa: BLE001 - a broken history must not hide the view
            self.post_message(LastRunLoaded(None, error=one_line(exc)))
            return
        self.post_message(LastRunLoaded(record))

    # -- messages ---------------------------------------------------------------------

    def on_last_run_loaded(self, message: LastRunLoaded) -> None:
        self.last_run = message.record
        self._draw_report()
        if message.error:
            self.notify(f"The mover history could not be read: {message.error}", severity="error")

    def on_mover_progressed(self, message: MoverProgressed) -> None:
        if self.phase not in (Phase.MOVING, Phase.STOPPING):
            return
        self.progress = p = message.progress
        bar = self.query_one(ProgressBar)
        bar.update(total=max(p.bytes_total, 1), progress=p.bytes_done)
        self.query_one("#mover-progress", Static).update(progress_text(p))

    def on_mover_finished(self, message: MoverFinished) -> None:
        report = message.report
        if report.dry_run:
            self.forecast = report
            self.phase = Phase.READY if report.planned else Phase.NOTHING
            self.query_one("#mover-forecast", Static).update(forecast_renderable(report))
            self.query_one(PlanTable).show(report.planned)
        else:
            self.report = report
            self.phase = Phase.DONE
            self._draw_report()
            self.query_one(TabbedContent).active = "tab-report"
        self._settled()

    def on_mover_failed(self, message: MoverFailed) -> None:
        if self.phase in (Phase.FORECASTING, Phase.MOVING, Phase.STOPPING):
            self.phase = Phase.FAILED
            self.query_one("#mover-forecast", Static).update(
                Text.assemble(("✘ ", "bold red"), message.error)
            )
            self._settled()
        else:
            self.notify(message.error, severity="error")

    def _settled(self) -> None:
        self._draw_head()
        self.refresh_bindings()
        if self._quit_after:
            self.app.exit()

    # -- drawing ----------------------------------------------------------------------

    def watch_phase(self) -> None:
        if self.is_mounted:
            self._draw_head()

    def _draw_head(self) -> None:
        head = head_text(self.layout_path.name, self.tier_layout, self.phase, self.report)
        self.query_one("#mover-head", Static).update(head)

    def _draw_report(self) -> None:
        box = self.query_one("#mover-report", Static)
        if self.report is not None:
            box.update(report_renderable(self.report))
        elif self.last_run is not None:
            box.update(record_renderable(self.last_run))
        else:
            box.update(Text("No mover run recorded for this layout yet.", style="dim"))

    # -- keys -------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self.phase in (Phase.FORECASTING, Phase.MOVING, Phase.STOPPING)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "move":
            return self.phase is Phase.READY and bool(self.forecast and self.forecast.planned)
        if action == "cancel":
            return self.phase is Phase.MOVING
        if action == "back":  # leaving a dry run stops it; a move is cancelled first
            return self.phase not in (Phase.MOVING, Phase.STOPPING)
        if action == "forecast":
            return not self.running
        return True

    def action_move(self) -> None:
        from ..modals.confirm import ConfirmScreen

        forecast = self.forecast
        if forecast is None or not forecast.planned or self.phase is not Phase.READY:
            return
        self.app.push_screen(
            ConfirmScreen(
                move_question(forecast), title="Move files", yes="Move", no="Not now", danger=True
            ),
            lambda yes: self._begin_move() if yes else None,
        )

    def _begin_move(self) -> None:
        if self.phase is not Phase.READY or self.forecast is None:
            return
        self._cancel.clear()
        self.phase = Phase.MOVING
        self.report = None
        total = planned_bytes(self.forecast.planned)
        self.query_one(ProgressBar).update(total=max(total, 1), progress=0)  # no animation
        self.query_one("#mover-progress", Static).update(Text("starting…", style="dim"))
        self.query_one("#mover-live").display = True
        self.refresh_bindings()
        self._start(dry_run=False)

    def action_cancel(self) -> None:
        if self.phase is Phase.MOVING:
            self._cancel.set()
            self.phase = Phase.STOPPING
            self.refresh_bindings()

    def action_forecast(self) -> None:
        if self.running:
            return
        self.phase = Phase.FORECASTING
        self.forecast = None
        self.query_one("#mover-live").display = False
        self.query_one("#mover-forecast", Static).update("")
        self.query_one(PlanTable).show(())
        self.query_one(TabbedContent).active = "tab-forecast"
        self.refresh_bindings()
        self._start(dry_run=True)

    def action_view(self, pane: str) -> None:
        self.query_one(TabbedContent).active = pane
        self.query_one("#mover-plan" if pane == "tab-forecast" else "#mover-report-box").focus()

    def action_back(self) -> None:
        if self.phase not in (Phase.MOVING, Phase.STOPPING):
            self._cancel.set()  # a dry run still scanning: it has nothing to leave behind
            self.dismiss(None)

    def action_quit(self) -> None:
        # A thread cannot be killed: a move is cancelled (a clean stop), then tierdeck quits.
        if self.running:
            self._quit_after = True
            self._cancel.set()
            if self.phase is Phase.MOVING:
                self.phase = Phase.STOPPING
            return
        self.app.exit()
