"""The live run screen: fio's per-second numbers, the disks underneath, then the result.

The runner (app.bench_runner.run_benchmark) runs in an async worker on the app's own
event loop: fio's output is read by asyncio, so the screen stays responsive without a
thread. The worker only posts messages (app.bench_messages); the screen draws them.
Charts keep ring buffers and redraw themselves alone; the progress bar is text, not an
animated ProgressBar.

When the run ends, whatever the outcome, the result goes to the history store (in a
thread: SQLite must not block the loop), failed and cancelled runs with their status.

Keys: ``c`` or escape cancels (after a confirmation), then escape goes back; ``h``
opens the history at this run once it is saved; ``q`` quits (cancelling first).
"""

from __future__ import annotations

import asyncio

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from ...app.bench import events as ev
from ...app.bench.service import BenchRunner
from ...app.tui.bench_messages import (
    BenchCrashed,
    BenchDevices,
    BenchEnded,
    BenchNotice,
    BenchProgress,
    BenchSamples,
    BenchStarted,
    RunNotSaved,
    RunSaved,
    message_for,
)
from ...app.tui.context import context
from ...core.bench_models import RunRequest, RunResult
from ...core.errors import one_line
from ...core.jobspec import expected_seconds
from ...core.models import Inventory
from ...widgets.bench.device_panel import DevicePanel
from ...widgets.bench.run_summary import (
    command_text,
    notices_text,
    show_cache_warnings,
    show_crash,
    show_result,
)
from ...widgets.bench.run_view import run_head
from ...widgets.charts.run_charts import (
    DiskRateChart,
    feed_charts,
    live_run_rows,
    make_charts,
    show_figures,
)
from ...widgets.charts.series_chart import SeriesChart
from .run_keys import RunKeys

# -- the screen -----------------------------------------------------------------------------


class RunScreen(RunKeys, Screen[RunResult | None]):
    CSS_PATH = "../common.tcss"

    _CANCEL = "cancel the run (asks first; fio stops, its files are removed)"
    BINDINGS = [
        Binding("c", "cancel_run", "Cancel run", tooltip=_CANCEL),
        # escape cancels while fio runs and goes back after: check_action picks one.
        Binding("escape", "cancel_run", "Cancel run", show=False, tooltip=_CANCEL),
        Binding("escape", "back", "Back", tooltip="after the run: back to the setup"),
        Binding("h", "history", "History", tooltip="after the run: this run in the history"),
        Binding("q", "quit", "Quit", tooltip="quit tierdeck (stops a running fio first, asking)"),
    ]
    HELP_TITLE = "tierdeck keys: benchmark run"
    HELP_NOTES = (
        ("up / down", "scroll: the charts, the disks, fio's command"),
        ("pgup / pgdn", "page up / down"),
        ("escape", "close this help"),
    )
    HELP_LEGEND = (
        "Rates in MiB/s (binary, as fio prints them), read before write. The disk strip "
        "and table show what each disk under the target moved (/proc/diskstats)."
    )
    ERROR_ROWS = 5  # of fio's error on a failed run: the rest is in the history
    CANCEL_ASK = "Cancel the benchmark?"
    QUIT_ASK = "Stop the benchmark and quit tierdeck?"
    CANCEL_DOES = (
        "fio is stopped (TERM, then KILL), its test files are removed, and the run is kept "
        "in the history as cancelled."
    )

    running: var[bool] = var(True)
    """True until the runner returned (or crashed)."""
    phase: var[ev.RunPhase] = var(ev.RunPhase.PREPARING)
    fraction: var[float] = var(0.0)
    eta_s: var[float | None] = var(None)
    samples_seen: var[int] = var(0)
    """fio samples drawn so far (tests wait on it)."""
    sample_batches: var[int] = var(0)
    """BenchSamples messages handled: fewer than samples when the queue coalesced."""
    device_intervals: var[int] = var(0)
    result: var[RunResult | None] = var(None)
    saved_id: var[int | None] = var(None)
    save_error: var[str | None] = var(None)

    def __init__(
        self,
        runner: BenchRunner,
        inventory: Inventory,
        request: RunRequest,
        *,
        models: dict[str, str] | None = None,
    ) -> None:
        """``runner`` is the app's BenchService (it runs and stores the result);
        ``inventory`` the one the request was planned on."""
        super().__init__(id="run")
        self.runner = runner
        self.inventory = inventory
        self.request = request
        self.models = models or {}
        self.command: tuple[str, ...] = ()
        self.notices: list[str] = list()
        self.cache_warnings: list[str] = []
        self.last_t = 0.0
        self._cancel: asyncio.Event | None = None
        self._cancel_asked = False
        self._quit_after = False
        span = expected_seconds(request.jobs)
        self.charts = make_charts(span=span)
        self.disk_chart = DiskRateChart(request.target.disks, span=span)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="run-head")
        with VerticalScroll(id="run-body"):
            yield Static(id="run-summary")
            yield Static(id="cache-warning")
            yield from self.charts
            yield self.disk_chart
            yield DevicePanel(self.request.target.disks, models=self.models, id="devices")
            yield Static(id="run-notices")
            yield Static(id="run-command")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = self.request.name
        self.query_one("#run-summary").display = False
        self.query_one("#cache-warning").display = False
        self._apply_rows()
        self._cancel = asyncio.Event()
        self._draw_head()
        self._start()

    def on_resize(self) -> None:
        self._apply_rows()

    def _apply_rows(self) -> None:
        rows = live_run_rows(self.size.height, len(self.request.target.disks))
        for chart in self.all_charts:
            chart.rows = rows

    @property
    def all_charts(self) -> tuple[SeriesChart, ...]:
        return (*self.charts, self.disk_chart)

    def on_screen_resume(self) -> None:
        # Charts skip drawing while another screen covers this one: catch up now.
        for chart in self.all_charts:
            chart.resume()
        self.query_one(DevicePanel).refresh(layout=True)

    # -- the worker ---------------------------------------------------------------------

    @work(exclusive=True, group="bench", exit_on_error=False)
    async def _start(self) -> None:
        assert self._cancel is not None
        try:
            await self.runner.run(self.inventory, self.request, self._on_event, self._cancel)
        except Exception as exc:  # noqa: BLE001 - a busy target or a bug: shown, not fatal
            self.post_message(BenchCrashed(one_line(exc)))

    def _on_event(self, event: ev.BenchEvent) -> None:
        # Called by the runner, on this loop: turn the event into a message, nothing more.
        self.post_message(message_for(event))

    # -- messages -------------------------------------------------------------------------

    def on_bench_started(self, message: BenchStarted) -> None:
        self.command = message.command
        self.query_one("#run-command", Static).update(command_text(message.command))

    def on_bench_samples(self, message: BenchSamples) -> None:
        feed_charts(self.charts, message.samples)
        self.samples_seen += len(message.samples)
        self.sample_batches += 1
        self.last_t = message.samples[-1].t
        self._draw_head()

    def on_bench_devices(self, message: BenchDevices) -> None:
        self.query_one(DevicePanel).add_intervals(message.intervals)
        self.disk_chart.add_intervals(message.intervals)
        self.device_intervals += len(message.intervals)

    def on_bench_progress(self, message: BenchProgress) -> None:
        self.phase, self.fraction, self.eta_s = message.phase, message.fraction, message.eta_s
        self._draw_head()

    def on_bench_notice(self, message: BenchNotice) -> None:
        if message.kind is not None and message.kind.inflates_results:
            self.cache_warnings.append(message.text)
            show_cache_warnings(self.query_one("#cache-warning", Static), self.cache_warnings)
        else:
            self.notices.append(message.text)
        self._draw_notices()

    def on_bench_ended(self, message: BenchEnded) -> None:
        self.running = False
        self.result = message.result
        if message.result.summary:  # the legends' avg become the summary's figures
            show_figures(self.charts, message.result.summary)
        self.phase = ev.RunPhase.DONE
        self._draw_head()
        self._draw_result()
        self.refresh_bindings()
        # The service stores it next: RunSaved or RunNotSaved follows.

    def on_bench_crashed(self, message: BenchCrashed) -> None:
        self.running = False
        self.save_error = None
        self.phase = ev.RunPhase.DONE
        show_crash(self.query_one("#run-summary", Static), message.error)
        self._draw_head()
        self.refresh_bindings()
        self._quit_if_asked()

    # -- saving ---------------------------------------------------------------------------

    def on_run_saved(self, message: RunSaved) -> None:
        self.saved_id = message.run_id
        self._draw_result()
        self.refresh_bindings()
        self._quit_if_asked()

    def on_run_not_saved(self, message: RunNotSaved) -> None:
        self.save_error = message.error
        self.notify(f"The run was not saved: {message.error}", severity="error", timeout=10)
        self._draw_result()
        self._quit_if_asked()

    # -- drawing --------------------------------------------------------------------------

    def _draw_head(self) -> None:
        progress = None if not self.running else (self.phase, self.fraction, self.eta_s)
        head = run_head(self.request.target, self.result, progress, self.last_t)
        # Twice a second while fio runs; its height is fixed (common.tcss): no page layout.
        self.query_one("#run-head", Static).update(head, layout=False)

    def _draw_notices(self) -> None:
        self.query_one("#run-notices", Static).update(notices_text(self.notices))

    def _draw_result(self) -> None:
        result = self.result
        if result is None:
            return
        summary = self.query_one("#run-summary", Static)
        show_result(summary, result, self.saved_id, self.save_error, error_rows=self.ERROR_ROWS)
        # The result's warnings are the complete list: its cache ones go in the box.
        self.cache_warnings = [w.text for w in result.warnings if w.kind.inflates_results]
        show_cache_warnings(self.query_one("#cache-warning", Static), self.cache_warnings)
        if not result.series:  # nothing was measured: empty charts would only take room
            for chart in self.all_charts:
                chart.display = False
        self.query_one("#run-body", VerticalScroll).scroll_home(animate=False)

    # -- actions --------------------------------------------------------------------------

    def _history_ready(self) -> bool:
        return self.saved_id is not None

    def _result_on_back(self) -> object:
        return self.result

    def action_history(self) -> None:
        if self.saved_id is None:
            return
        context(self).open_history(select=self.saved_id)

    def _stop(self, then_quit: bool) -> None:
        if self._cancel is not None:
            self._cancel.set()
            self._quit_after = then_quit
            self.phase = ev.RunPhase.STOPPING
            self._draw_head()
