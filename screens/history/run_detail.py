"""One stored run in full: the result as the run screen showed it (per job for a suite,
fio's whole error text), the charts, the disks, the environment and the jobs.

Loaded from app.history.HistoryStore in a thread. The same n / t / d keys as the list;
c ("compare with...") goes back to the list with this run marked for a comparison: the
screen's result is the run's id; e exports the run as Markdown, CSV, JSON or HTML (screens/history/exporting).
"""

from __future__ import annotations

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

from ...app.tui.bench_messages import HistoryChanged, HistoryFailed, RunLoaded
from ...core.bench_models import EnvFingerprint, RunHost, RunResult
from ...core.errors import one_line
from ...widgets.bench.device_panel import DevicePanel
from ...widgets.bench.run_summary import show_cache_warnings
from ...widgets.bench.run_view import duration, result_renderable, status_text
from ...widgets.charts.run_charts import DiskRateChart, feed_charts, make_charts, plot_rows
from ...widgets.charts.series_chart import SeriesChart
from ...widgets.detail_pane import plain_row
from .exporting import Exporting
from .run_editing import RunEditing, StoreFactory, default_store, when


def env_renderable(env: EnvFingerprint, host: RunHost | None = None) -> RenderableType:
    """The environment, the machine first (when the run knows it: run over SSH, the
    history keeps runs of several)."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column()

    def row(key: str, value: str | None) -> None:
        if value:
            plain_row(grid, key, value)

    if host is not None:
        row("host", host.label)
    row("kernel", env.kernel)
    row("fio", env.fio_version)
    row("filesystem", env.fs_type)
    row("mount options", ",".join(env.mount_options))
    row("mergerfs", env.mergerfs_version)
    row("mergerfs options", " ".join(f"{k}={v}" for k, v in sorted(env.mergerfs_options.items())))
    row("ZFS", env.zfs_version)
    row("dataset", " ".join(f"{k}={v}" for k, v in sorted(env.zfs_properties.items())))
    for disk, model in sorted(env.disk_models.items()):
        row(f"disk {disk}", model)
    if not grid.rows:
        return Text("no environment recorded", style="dim")
    return grid


def head_renderable(run: RunResult) -> RenderableType:
    title = Text(f"#{run.id} ", style="bold")
    title.append(run.name, style="bold")
    if run.tags:
        title.append("  [" + " ".join(run.tags) + "]", style="cyan")
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column()
    disks = ", ".join(run.target.disks) if run.target.disks else "no local disk"
    where = run.target.label
    if run.target.path not in where:
        where += f" ({run.target.path})"
    plain_row(grid, "target", f"{where} · disks {disks}")
    plain_row(grid, "preset", run.preset or "custom job")
    plain_row(
        grid,
        "started",
        f"{when(run.started_at)} · {duration(run)} · " + status_text(run.status).plain,
    )
    return Group(title, grid)


class RunDetailScreen(RunEditing, Exporting, Screen[int | None]):
    CSS_PATH = "../common.tcss"

    BINDINGS = [
        Binding("n", "rename", "Rename", tooltip="rename this run"),
        Binding("t", "tag", "Tag", tooltip="set this run's tags"),
        Binding("d", "delete", "Delete", tooltip="delete this run (asks first)"),
        Binding(
            "c",
            "compare_with",
            "Compare with…",
            tooltip="compare with...: back to the list with this run marked (space marks more)",
        ),
        Binding("e", "export", "Export", tooltip="write this run as Markdown, CSV, JSON or HTML"),
        Binding("escape", "back", "Back", tooltip="back to the list"),
    ]
    HELP_TITLE = "tierdeck keys: stored run"
    HELP_NOTES = (
        ("up / down", "scroll: result, charts, disks, environment, jobs"),
        ("pgup / pgdn", "page up / down"),
        ("escape", "close this help"),
    )

    run: var[RunResult | None] = var(None)
    error: var[str | None] = var(None)

    def __init__(self, run_id: int, *, store_factory: StoreFactory | None = None) -> None:
        super().__init__(id="run-detail")
        self.run_id = run_id
        self.store_factory = store_factory or default_store
        self.charts = make_charts()

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="detail-body"):
            yield Static(Text("loading…", style="dim"), id="detail-head")
            yield Static(id="run-summary")
            yield Static(id="cache-warning")
            yield Static(id="detail-no-series")
            yield from self.charts
            yield Static(id="detail-disks-title")
            yield DevicePanel(average=True, id="devices")
            yield Static(Text("Environment", style="bold"), classes="detail-section")
            yield Static(id="detail-env")
            yield Static(Text("Jobs", style="bold"), classes="detail-section")
            yield Static(id="detail-jobs")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = f"run #{self.run_id}"
        self.query_one("#cache-warning").display = False
        self.query_one("#detail-no-series").display = False
        self.query_one("#detail-body").focus()
        self._load()

    @property
    def rows(self) -> int:
        # A scrolling page: fit the charts to one screen below the header and result.
        return plot_rows(self.size.height, 4, 12)

    def on_resize(self) -> None:
        for chart in self.query(SeriesChart):
            chart.rows = self.rows

    @work(thread=True, exclusive=True, group="history-load", exit_on_error=False)
    def _load(self) -> None:
        try:
            run = self.store_factory().get(self.run_id)
        except Exception as exc:  # noqa: BLE001
            self.post_message(HistoryFailed(one_line(exc)))
            return
        if run is None:
            self.post_message(HistoryFailed(f"no run #{self.run_id} in the history"))
            return
        self.post_message(RunLoaded(run))

    def on_run_loaded(self, message: RunLoaded) -> None:
        run = message.result
        first = self.run is None
        self.run = run
        self.query_one("#detail-head", Static).update(head_renderable(run))
        self.query_one("#run-summary", Static).update(result_renderable(run, cache_shown=True))
        cache = [w for w in run.warnings if w.kind.inflates_results]
        show_cache_warnings(self.query_one("#cache-warning", Static), cache)
        if first:
            for chart in self.charts:
                chart.span = len(run.series)
                chart.rows = self.rows
            feed_charts(self.charts, run.series, run.summary)
            self._say_no_series(run)
            self._show_disks(run)
        self.query_one("#detail-env", Static).update(env_renderable(run.env, run.host))
        jobs = "\n".join(job.to_jobfile() for job in run.jobs)
        self.query_one("#detail-jobs", Static).update(Text(jobs, style="dim"))

    def _say_no_series(self, run: RunResult) -> None:
        """No empty frames "waiting for data" for a run that has no seconds to draw."""
        if run.series:
            return
        for chart in self.charts:
            chart.display = False
        why = "it was imported from a file, " if run.imported is not None else ""
        note = self.query_one("#detail-no-series", Static)
        note.update(Text(f"No per-second series to draw: {why}fio's totals only.", style="dim"))
        note.display = True

    def _show_disks(self, run: RunResult) -> None:
        disks = list(dict.fromkeys([*run.target.disks, *(d.device for d in run.device_series)]))
        panel = self.query_one(DevicePanel)
        panel.set_disks(disks, run.env.disk_models)
        panel.load_series(run.device_series)
        title = self.query_one("#detail-disks-title", Static)
        if disks and run.device_series:
            seconds = len({d.t for d in run.device_series})
            chart = DiskRateChart(disks, rows=self.rows, span=seconds)
            self.query_one("#detail-body").mount(chart, before=title)
            chart.load_series(run.device_series)
            title.display = False
        else:
            title.update(Text("No device samples were recorded for this run.", style="dim"))

    def on_history_failed(self, message: HistoryFailed) -> None:
        self.error = message.error
        self.query_one("#detail-head", Static).update(
            Text(f"Could not load run #{self.run_id}: {message.error}", style="bold red")
        )

    def on_history_changed(self, message: HistoryChanged) -> None:
        self.notify(f"Run #{message.run_id} {message.what}.")
        if message.deleted:
            self.dismiss(None)
        else:
            self._load()

    def action_rename(self) -> None:
        if self.run is not None:
            self._edit_run(self.run, "rename")

    def action_tag(self) -> None:
        if self.run is not None:
            self._edit_run(self.run, "tag")

    def action_delete(self) -> None:
        if self.run is not None:
            self._edit_run(self.run, "delete")

    def action_export(self) -> None:
        if self.run is not None:
            self._export_runs([self.run])

    def action_compare_with(self) -> None:
        if self.run is not None:
            self.dismiss(self.run_id)

    def action_back(self) -> None:
        self.dismiss(None)
