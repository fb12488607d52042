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
from collections.abc import Awaitable, Callable
from typing import Protocol

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Footer, Header, Static
from tierdeck.app import bench_events as ev
from tierdeck.app.bench_messages import (
    BenchCrashed,
    BenchDevices,
    BenchEnded,
    BenchNotice,
    BenchProgress,
    BenchSamples,
    BenchStarted,
    RunNotSaved,
    RunSaved,
)
from tierdeck.backends.host import Host
from tierdeck.core.bench_models import RunRequest, RunResult, RunStatus
from tierdeck.core.errors import one_line
from tierdeck.core.fio_models import Sample
from tierdeck.core.jobspec import JobSpec
from tierdeck.widgets.bars import percent_bar
from tierdeck.widgets.device_panel import DevicePanel
from tierdeck.widgets.live_chart import LiveChart, fmt_count, fmt_ns, fmt_rate

Runner = Callable[
    [Host, RunRequest, Callable[[ev.BenchEvent], None], asyncio.Event | None],
    Awaitable[RunResult],
]


class RunStore(Protocol):
    """What the run screen needs of app.history.HistoryStore."""

    def save(self, result: RunResult) -> int: ...


def default_runner() -> Runner:
    from tierdeck.app.bench_runner import run_benchmark

    return run_benchmark


def default_store() -> RunStore:
    from tierdeck.app.history import HistoryStore

    return HistoryStore()


# -- shared renderers (the history screen uses them too) -------------------------------------

STATUS_LOOK = {
    RunStatus.OK: ("✔ ok", "bold green"),
    RunStatus.FAILED: ("✘ failed", "bold red"),
    RunStatus.CANCELLED: ("■ cancelled", "bold yellow"),
}

# Runner notices that mean "these numbers may not be the disks'": shown in a box.
_CACHE_HINTS = ("cache warning", "page cache", "measure ram", "inflate")


def is_cache_warning(text: str) -> bool:
    lowered = text.lower()
    return any(hint in lowered for hint in _CACHE_HINTS)


def status_text(status: RunStatus) -> Text:
    label, style = STATUS_LOOK[RunStatus(status)]
    return Text(label, style=style)


def duration(result: RunResult) -> str:
    if result.finished_at is None:
        return "?"
    seconds = max(0.0, result.finished_at - result.started_at)
    if seconds < 120:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes} min {secs:02d} s"


def summary_table(result: RunResult) -> RenderableType:
    """Per direction: bandwidth, IOPS, mean and p99 latency, as fio reported them."""
    if not result.summary:
        return Text("fio reported no completed I/O.", style="dim")
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    for _ in range(4):
        table.add_column(justify="right")
    table.add_row("", *(Text(h, style="dim") for h in ("bandwidth", "IOPS", "lat mean", "lat p99")))
    for direction, stats in result.summary.items():
        table.add_row(
            direction,
            Text(fmt_rate(stats.bw_bytes), style="bold"),
            fmt_count(stats.iops),
            fmt_ns(stats.lat_mean_ns) if stats.lat_mean_ns is not None else "—",
            fmt_ns(stats.lat_p99_ns) if stats.lat_p99_ns is not None else "—",
        )
    return table


def result_renderable(
    result: RunResult, saved: str | None = None, *, cache_shown: bool = False
) -> RenderableType:
    """The finished run: status line, numbers, fio's error, warnings. ``cache_shown``:
    the caller shows the cache warnings in their own box, so leave them out here."""
    head = Text.assemble(status_text(result.status), f"  after {duration(result)}")
    head.append(f" · {len(result.series)} samples", style="dim")
    if saved:
        head.append(f" · {saved}", style="dim")
    parts: list[RenderableType] = [head]
    if result.status is RunStatus.OK or result.summary:
        parts.append(summary_table(result))
    if result.status is RunStatus.CANCELLED:
        parts.append(Text("Cancelled: fio was stopped and its test files removed.", style="yellow"))
    if result.error:
        headline, _, details = result.error.strip().partition("\n")
        parts.append(Text(headline, style="bold red"))
        if details:
            parts.append(Text(details, style="red"))
    for warning in result.warnings:
        if not (cache_shown and is_cache_warning(warning)):
            parts.append(Text("⚠ " + warning, style="yellow"))
    return Group(*parts)


def cache_warning_text(warnings: list[str]) -> Text:
    return Text("\n".join(f"⚠ {w}" for w in warnings), style="bold")


# -- chart feeding --------------------------------------------------------------------------


def bw_point(sample: Sample) -> dict[str, float | None]:
    return {"read": sample.read.bw_bytes_per_s, "write": sample.write.bw_bytes_per_s}


def iops_point(sample: Sample) -> dict[str, float | None]:
    return {"read": sample.read.iops, "write": sample.write.iops}


def lat_point(sample: Sample) -> dict[str, float | None]:
    def ns(value: float | int | None) -> float | None:
        return None if value is None else float(value)

    return {
        "read_mean": ns(sample.read.lat_mean_ns),
        "read_p99": ns(sample.read.lat_p99_ns),
        "write_mean": ns(sample.write.lat_mean_ns),
        "write_p99": ns(sample.write.lat_p99_ns),
    }


def expected_seconds(jobs: tuple[JobSpec, ...]) -> int | None:
    """How long fio should measure: stonewall groups run in turn, each as long as its
    longest runtime. None when a group is bound by size alone (unknown in advance)."""
    groups: list[list[JobSpec]] = []
    for job in jobs:
        if job.stonewall or not groups:
            groups.append([])
        groups[-1].append(job)
    total = 0
    for group in groups:
        runtimes = [j.runtime for j in group if j.runtime is not None]
        if not runtimes:
            return None
        total += max(runtimes)
    return total or None


def make_charts(rows: int = 1, span: int | None = None) -> tuple[LiveChart, LiveChart, LiveChart]:
    rw = (("read", "read", "green"), ("write", "write", "magenta"))
    return (
        LiveChart("Bandwidth", rw, fmt=fmt_rate, rows=rows, span=span, id="chart-bw"),
        LiveChart("IOPS", rw, fmt=fmt_count, rows=rows, span=span, id="chart-iops"),
        LiveChart(
            "Latency",
            (
                ("read_mean", "r mean", "green"),
                ("read_p99", "r p99", "dark_green"),
                ("write_mean", "w mean", "magenta"),
                ("write_p99", "w p99", "dark_magenta"),
            ),
            fmt=fmt_ns,
            rows=rows,
            span=span,
            log_scale=True,
            id="chart-lat",
        ),
    )


def feed_charts(
    charts: tuple[LiveChart, LiveChart, LiveChart], samples: tuple[Sample, ...]
) -> None:
    bw, iops, lat = charts
    bw.extend([(s.t, bw_point(s)) for s in samples])
    iops.extend([(s.t, iops_point(s)) for s in samples])
    lat.extend([(s.t, lat_point(s)) for s in samples])


def chart_rows(height: int) -> int:
    """Rows per series strip: one at 80x24, more on a tall terminal."""
    return 1 if height < 34 else 2 if height < 46 else 3


# -- the screen -----------------------------------------------------------------------------


class RunScreen(Screen[RunResult | None]):
    CSS_PATH = "bench.tcss"

    BINDINGS = [
        Binding("c", "cancel_run", "Cancel run"),
        # escape cancels while fio runs and goes back after: check_action picks one.
        Binding("escape", "cancel_run", "Cancel run", show=False),
        Binding("escape", "back", "Back"),
        Binding("h", "history", "History"),
        Binding("q", "quit", "Quit"),
    ]

    running: var[bool] = var(True)
    """True until the runner returned (or crashed)."""
    phase: var[str] = var(ev.PHASE_PREPARING)
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
        host: Host,
        request: RunRequest,
        *,
        runner: Runner | None = None,
        store_factory: Callable[[], RunStore] | None = None,
        models: dict[str, str] | None = None,
    ) -> None:
        super().__init__(id="run")
        self.host = host
        self.request = request
        self._runner = runner or default_runner()
        self._store_factory = store_factory or default_store
        self.models = models or {}
        self.command: tuple[str, ...] = ()
        self.notices: list[str] = list()
        self.cache_warnings: list[str] = []
        self.last_t = 0.0
        self._cancel: asyncio.Event | None = None
        self._cancel_asked = False
        self._quit_after = False
        self.charts = make_charts(span=expected_seconds(request.jobs))

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="run-head")
        with VerticalScroll(id="run-body"):
            yield Static(id="run-summary")
            yield Static(id="cache-warning")
            yield from self.charts
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
        rows = chart_rows(self.size.height)
        for chart in self.charts:
            chart.rows = rows

    def on_screen_resume(self) -> None:
        # Charts skip drawing while another screen covers this one: catch up now.
        for chart in self.charts:
            chart.resume()
        self.query_one(DevicePanel).refresh(layout=True)

    # -- the worker ---------------------------------------------------------------------

    @work(exclusive=True, group="bench", exit_on_error=False)
    async def _start(self) -> None:
        assert self._cancel is not None
        try:
            await self._runner(self.host, self.request, self._on_event, self._cancel)
        except Exception as exc:  # noqa: BLE001 - a busy target or a bug: shown, not fatal
            self.post_message(BenchCrashed(one_line(exc)))

    def _on_event(self, event: ev.BenchEvent) -> None:
        # Called by the runner, on this loop: turn the event into a message, nothing more.
        if isinstance(event, ev.SampleReady):
            self.post_message(BenchSamples((event.sample,)))
        elif isinstance(event, ev.DevicesReady):
            self.post_message(BenchDevices((event.samples,)))
        elif isinstance(event, ev.Progress):
            self.post_message(BenchProgress(event.fraction, event.eta_s, event.phase))
        elif isinstance(event, ev.Notice):
            self.post_message(BenchNotice(event.text))
        elif isinstance(event, ev.RunStarted):
            self.post_message(BenchStarted(event.request, event.command))
        elif isinstance(event, ev.RunEnded):
            self.post_message(BenchEnded(event.result))

    # -- messages -------------------------------------------------------------------------

    def on_bench_started(self, message: BenchStarted) -> None:
        self.command = message.command
        text = Text("fio command: ", style="bold dim")
        text.append(" ".join(message.command), style="dim")
        self.query_one("#run-command", Static).update(text)

    def on_bench_samples(self, message: BenchSamples) -> None:
        feed_charts(self.charts, message.samples)
        self.samples_seen += len(message.samples)
        self.sample_batches += 1
        self.last_t = message.samples[-1].t
        self._draw_head()

    def on_bench_devices(self, message: BenchDevices) -> None:
        panel = self.query_one(DevicePanel)
        for interval in message.intervals:
            panel.add_interval(interval)
        self.device_intervals += len(message.intervals)

    def on_bench_progress(self, message: BenchProgress) -> None:
        self.phase, self.fraction, self.eta_s = message.phase, message.fraction, message.eta_s
        self._draw_head()

    def on_bench_notice(self, message: BenchNotice) -> None:
        self.notices.append(message.text)
        if is_cache_warning(message.text):
            self.cache_warnings.append(message.text)
            self._draw_cache_warning(self.cache_warnings)
        self._draw_notices()

    def on_bench_ended(self, message: BenchEnded) -> None:
        self.running = False
        self.result = message.result
        self.phase = ev.PHASE_DONE
        self._draw_head()
        self._draw_result()
        self.refresh_bindings()
        self._save(message.result)

    def on_bench_crashed(self, message: BenchCrashed) -> None:
        self.running = False
        self.save_error = None
        self.phase = ev.PHASE_DONE
        summary = self.query_one("#run-summary", Static)
        summary.update(Text.assemble(("✘ the run did not start: ", "bold red"), message.error))
        summary.display = True
        self._draw_head()
        self.refresh_bindings()
        if self._quit_after:
            self.app.exit()

    # -- saving ---------------------------------------------------------------------------

    @work(thread=True, group="history", exit_on_error=False)
    def _save(self, result: RunResult) -> None:
        try:
            run_id = self._store_factory().save(result)
        except Exception as exc:  # noqa: BLE001 - a full disk must not lose the screen
            self.post_message(RunNotSaved(one_line(exc)))
            return
        self.post_message(RunSaved(run_id))

    def on_run_saved(self, message: RunSaved) -> None:
        self.saved_id = message.run_id
        self._draw_result()
        self.refresh_bindings()
        if self._quit_after:
            self.app.exit()

    def on_run_not_saved(self, message: RunNotSaved) -> None:
        self.save_error = message.error
        self.notify(f"The run was not saved: {message.error}", severity="error", timeout=10)
        self._draw_result()
        if self._quit_after:
            self.app.exit()

    # -- drawing --------------------------------------------------------------------------

    def _draw_head(self) -> None:
        target = self.request.target
        # One line each, whatever the path length: the phase line must stay visible.
        line1 = Text(target.label, style="bold", no_wrap=True, overflow="ellipsis")
        disks = ", ".join(target.disks) if target.disks else "no local disk"
        line1.append(f" · disks {disks}", style="dim")
        line2 = Text(no_wrap=True, overflow="ellipsis")
        if self.result is not None:
            line2.append_text(status_text(self.result.status))
            line2.append(" · finished · escape: back to the setup", style="dim")
        elif not self.running:
            line2.append("✘ the run did not start", style="bold red")
        else:
            style = "bold yellow" if self.phase == ev.PHASE_STOPPING else "bold cyan"
            line2.append(f"{self.phase:<12}", style=style)
            line2.append_text(percent_bar(self.fraction * 100, width=20))
            eta = f"{self.eta_s:.0f} s" if self.eta_s is not None else "…"
            line2.append(f"  ETA {eta}  t={self.last_t:.0f} s", style="dim")
        self.query_one("#run-head", Static).update(Group(line1, line2))

    def _draw_cache_warning(self, warnings: list[str]) -> None:
        box = self.query_one("#cache-warning", Static)
        box.update(cache_warning_text(warnings))
        box.display = bool(warnings)

    def _draw_notices(self) -> None:
        shown = [n for n in self.notices if not is_cache_warning(n)][-3:]
        self.query_one("#run-notices", Static).update(
            Text("\n".join(shown), style="dim") if shown else ""
        )

    def _draw_result(self) -> None:
        result = self.result
        if result is None:
            return
        if self.saved_id is not None:
            saved = f"saved as run #{self.saved_id} (h: history)"
        elif self.save_error is not None:
            saved = "NOT saved: " + self.save_error
        else:
            saved = "saving…"
        summary = self.query_one("#run-summary", Static)
        summary.update(result_renderable(result, saved, cache_shown=True))
        summary.display = True
        summary.set_class(result.status is not RunStatus.OK, "-problem")
        # The result's warnings are the complete list: its cache ones go in the box.
        self.cache_warnings = [w for w in result.warnings if is_cache_warning(w)]
        self._draw_cache_warning(self.cache_warnings)
        if not result.series:  # nothing was measured: empty charts would only take room
            for chart in self.charts:
                chart.display = False
        self.query_one("#run-body", VerticalScroll).scroll_home(animate=False)

    # -- actions --------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # False hides the key from the footer and lets the next binding of the same
        # key (escape: cancel while running, back after) take it.
        if action == "cancel_run":
            return self.running
        if action == "back":
            return not self.running
        if action == "history":
            return self.saved_id is not None
        return True

    def action_cancel_run(self) -> None:
        if not self.running or self._cancel_asked:
            return
        self._ask_cancel(then_quit=False)

    def action_back(self) -> None:
        if not self.running:
            self.dismiss(self.result)

    def action_quit(self) -> None:
        if self.running:
            self._ask_cancel(then_quit=True)
        else:
            self.app.exit()

    def action_history(self) -> None:
        if self.saved_id is None:
            return
        from tierdeck.screens.history import HistoryScreen

        self.app.push_screen(HistoryScreen(select=self.saved_id))

    def _ask_cancel(self, *, then_quit: bool) -> None:
        from tierdeck.screens.confirm import ConfirmScreen

        question = (
            "Stop the benchmark and quit tierdeck?" if then_quit else "Cancel the benchmark?"
        ) + (
            "\n\nfio is stopped (TERM, then KILL), its test files are removed, and the run "
            "is kept in the history as cancelled."
        )

        def answered(yes: bool | None) -> None:
            self._cancel_asked = False
            if yes and self.running and self._cancel is not None:
                self._cancel.set()
                self._quit_after = then_quit
                self.phase = ev.PHASE_STOPPING
                self._draw_head()

        self._cancel_asked = True
        self.app.push_screen(
            ConfirmScreen(question, title="Cancel run", yes="Stop fio", no="Keep running"),
            answered,
        )
