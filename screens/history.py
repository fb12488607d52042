"""Benchmark history: the stored runs, one run in detail, rename / tag / delete.

Everything comes from app.history.HistoryStore, always in thread workers (SQLite must
not stall the event loop). The list shows ok runs; ``f`` switches to the failed and
cancelled ones, which are never listed among the good ones. Filters by target and
preset go to ``HistoryStore.list``.

Runs whose numbers the page cache may have inflated carry a ⚠ before their name.

Keys (list): enter opens, ``f`` failed/cancelled, ``n`` rename, ``t`` tags, ``d``
delete (after a confirmation), escape back. The detail view has the same n/t/d.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Label, Select, Static
from tierdeck.app.bench_messages import HistoryChanged, HistoryFailed, HistoryLoaded, RunLoaded
from tierdeck.core.bench_models import EnvFingerprint, RunResult, RunStatus
from tierdeck.core.errors import one_line
from tierdeck.screens.confirm import ConfirmScreen, PromptScreen
from tierdeck.screens.run import (
    cache_warning_text,
    chart_rows,
    duration,
    feed_charts,
    is_cache_warning,
    make_charts,
    result_renderable,
    status_text,
)
from tierdeck.widgets.device_panel import DevicePanel
from tierdeck.widgets.live_chart import LiveChart, fmt_rate

StoreFactory = Callable[[], Any]  # -> app.history.HistoryStore (Any: tests pass stand-ins)

FAILED_VIEW = (RunStatus.FAILED, RunStatus.CANCELLED)


def default_store() -> Any:
    from tierdeck.app.history import HistoryStore

    return HistoryStore()


def when(epoch: float, *, short: bool = False) -> str:
    """Local time; ``short`` drops the year (the list at 80 columns)."""
    return time.strftime("%m-%d %H:%M" if short else "%Y-%m-%d %H:%M", time.localtime(epoch))


def cut_left(text: str, width: int) -> str:
    """Keep the end of a path, where the interesting part is: "…/pool/slow"."""
    return text if len(text) <= width else "…" + text[-(width - 1) :]


def split_tags(text: str) -> list[str]:
    return [t for t in text.replace(",", " ").split() if t]


class RunEditing:
    """Rename, tag and delete, shared by the list and the detail view. Each asks first
    (a prompt, or a confirmation for delete), then runs the store call in a thread."""

    store_factory: StoreFactory

    def _edit_run(self, run: RunResult, what: str) -> None:
        screen: Screen[Any] = self  # type: ignore[assignment]
        assert run.id is not None
        run_id = run.id
        if what == "rename":

            def renamed(name: str | None) -> None:
                if name is not None:
                    self._store_op(run_id, "renamed", lambda s: s.rename(run_id, name))

            screen.app.push_screen(
                PromptScreen(
                    f"New name for run #{run_id}:",
                    title="Rename run",
                    value=run.name,
                    validate=lambda v: None if v.strip() else "a name cannot be empty",
                ),
                renamed,
            )
        elif what == "tag":

            def tagged(text: str | None) -> None:
                if text is not None:
                    tags = split_tags(text)
                    self._store_op(run_id, "tagged", lambda s: s.set_tags(run_id, tags))

            screen.app.push_screen(
                PromptScreen(
                    f"Tags for run #{run_id}, separated by spaces or commas "
                    "(an empty line removes them):",
                    title="Tag run",
                    value=" ".join(run.tags),
                    placeholder="baseline nvme-cache",
                ),
                tagged,
            )
        elif what == "delete":

            def deleted(yes: bool | None) -> None:
                if yes:
                    self._store_op(run_id, "deleted", lambda s: s.delete(run_id), deleted=True)

            screen.app.push_screen(
                ConfirmScreen(
                    Text.assemble(
                        "Delete run ",
                        (f"#{run_id} {run.name}", "bold"),
                        f" ({when(run.started_at)})?\n\nIts series, device samples and fio "
                        "JSON are deleted with it. This cannot be undone.",
                    ),
                    title="Delete run",
                    yes="Delete",
                    no="Keep",
                    danger=True,
                ),
                deleted,
            )

    @work(thread=True, group="history-edit", exit_on_error=False)
    def _store_op(
        self, run_id: int, what: str, op: Callable[[Any], None], *, deleted: bool = False
    ) -> None:
        screen: Screen[Any] = self  # type: ignore[assignment]
        try:
            op(self.store_factory())
        except Exception as exc:  # noqa: BLE001 - shown, the list stays
            screen.post_message(HistoryFailed(one_line(exc)))
            return
        screen.post_message(HistoryChanged(run_id, what, deleted))


# -- the list -------------------------------------------------------------------------------


class HistoryScreen(RunEditing, Screen[None]):
    CSS_PATH = "bench.tcss"

    BINDINGS = [
        Binding("enter", "open", "Open", show=True),
        Binding("f", "toggle_failed", "Failed/cancelled"),
        Binding("n", "rename", "Rename"),
        Binding("t", "tag", "Tag"),
        Binding("d", "delete", "Delete"),
        Binding("r", "reload", "Reload", show=False),
        Binding("escape", "back", "Back"),
    ]

    show_failed: var[bool] = var(False)
    """False: ok runs. True: failed and cancelled runs (never mixed)."""
    loads: var[int] = var(0)
    """How many listings arrived (tests wait on it)."""
    error: var[str | None] = var(None)

    def __init__(
        self, *, select: int | None = None, store_factory: StoreFactory | None = None
    ) -> None:
        super().__init__(id="history")
        self.store_factory = store_factory or default_store
        self.select_id = select
        self.runs: list[RunResult] = []
        self._short_dates = True
        self._widths = (20, 20, 20)  # name, target, why: set for the table's width
        self._filters: tuple[str | None, str | None] = (None, None)

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="history-filters", classes="form-row"):
            yield Label("Target", classes="form-label")
            yield Select[str]([], prompt="all targets", compact=True, id="filter-target")
            yield Label(" Preset", classes="form-label-inline")
            yield Select[str]([], prompt="all presets", compact=True, id="filter-preset")
        yield Static(id="history-view")
        table: DataTable[Text | str] = DataTable(
            id="history-table", cursor_type="row", zebra_stripes=True
        )
        yield table
        yield Static(id="history-empty")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "benchmark history"
        self.query_one("#history-table").focus()
        self._draw_view_label()
        self.reload()

    def on_screen_resume(self) -> None:
        if self.loads:  # back from a detail view: it may have renamed or deleted
            self.reload()

    def on_resize(self) -> None:
        if self.loads:
            self._fill_table()  # column widths follow the terminal

    # -- loading ---------------------------------------------------------------------------

    def reload(self) -> None:
        target, preset = self._filters
        self._load(target, preset, self.show_failed)

    @work(thread=True, exclusive=True, group="history-load", exit_on_error=False)
    def _load(self, target: str | None, preset: str | None, failed: bool) -> None:
        try:
            store = self.store_factory()
            # The list shows summaries only; a run's series load when it is opened.
            runs = store.list(
                target=target,
                preset=preset,
                status=FAILED_VIEW if failed else RunStatus.OK,
                series=False,
            )
            targets, presets = store.filter_options()
        except Exception as exc:  # noqa: BLE001 - an unreadable store is shown, not fatal
            self.post_message(HistoryFailed(one_line(exc)))
            return
        self.post_message(HistoryLoaded(runs, targets, presets))

    def on_history_loaded(self, message: HistoryLoaded) -> None:
        self.error = None
        self.runs = message.runs
        self._set_options("#filter-target", [(label, path) for path, label in message.targets])
        self._set_options("#filter-preset", [(p, p) for p in message.presets])
        self._fill_table()
        self.loads += 1

    def on_history_failed(self, message: HistoryFailed) -> None:
        self.error = message.error
        self.notify(f"History: {message.error}", severity="error", timeout=10)
        self.query_one("#history-empty", Static).update(
            Text(f"Could not read the history: {message.error}", style="bold red")
        )
        self.loads += 1

    def on_history_changed(self, message: HistoryChanged) -> None:
        self.notify(f"Run #{message.run_id} {message.what}.")
        if message.deleted and self.select_id == message.run_id:
            self.select_id = None
        self.reload()

    def _set_options(self, selector: str, options: list[tuple[str, str]]) -> None:
        select: Select[str] = self.query_one(selector, Select)
        current = select.value
        with self.prevent(Select.Changed):
            select.set_options(options)
            if isinstance(current, str) and any(v == current for _, v in options):
                select.value = current

    # -- drawing ---------------------------------------------------------------------------

    def _draw_view_label(self) -> None:
        label = Text()
        if self.show_failed:
            label.append("Failed and cancelled runs", style="bold yellow")
            label.append(" · enter opens · f: back to the good runs", style="dim")
        else:
            label.append("Runs that finished ok", style="bold")
            label.append(" · enter opens · f: failed and cancelled ones", style="dim")
        self.query_one("#history-view", Static).update(label)

    def _fill_table(self) -> None:
        table: DataTable[Text | str] = self.query_one("#history-table", DataTable)
        keep = self.select_id if self.select_id is not None else self.selected_id
        table.clear(columns=True)
        # Each column costs its width plus 2 of cell padding; 1 more for the scrollbar.
        room = (table.size.width or self.size.width - 2) - 1
        self._short_dates = room < 110
        date_w = 11 if self._short_dates else 16
        if self.show_failed:
            fixed = 4 + date_w + 11
            flexible = max(30, room - fixed - 2 * 6)
            self._widths = (
                flexible * 3 // 10,
                flexible * 3 // 10,
                flexible - 2 * (flexible * 3 // 10),
            )
            table.add_column("#", width=4, key="id")
            table.add_column("when", width=date_w, key="when")
            table.add_column("name", width=self._widths[0], key="name")
            table.add_column("target", width=self._widths[1], key="target")
            table.add_column("status", width=11, key="status")
            table.add_column("why", width=self._widths[2], key="why")
        else:
            fixed = 4 + date_w + 11 + 11
            flexible = max(30, room - fixed - 2 * 6)
            self._widths = (flexible - flexible * 2 // 5, flexible * 2 // 5, 0)
            table.add_column("#", width=4, key="id")
            table.add_column("when", width=date_w, key="when")
            table.add_column("name", width=self._widths[0], key="name")
            table.add_column("target", width=self._widths[1], key="target")
            table.add_column(Text("read", justify="right"), width=11, key="read")
            table.add_column(Text("write", justify="right"), width=11, key="write")
        for run in self.runs:
            table.add_row(*self._row(run), key=str(run.id))
        empty = self.query_one("#history-empty", Static)
        if not self.runs:
            what = "failed or cancelled runs" if self.show_failed else "runs that finished ok"
            empty.update(Text(f"No {what} stored yet" + self._filter_note() + ".", style="dim"))
        else:
            empty.update("")
        empty.display = not self.runs
        if keep is not None:
            try:
                table.move_cursor(row=table.get_row_index(str(keep)))
            except Exception:  # noqa: BLE001 - the row is gone (deleted, filtered out)
                pass
        self.select_id = None

    def _filter_note(self) -> str:
        target, preset = self._filters
        parts = [f"on {target}" if target else "", f"with preset {preset}" if preset else ""]
        text = " ".join(p for p in parts if p)
        return f" {text}" if text else ""

    def _row(self, run: RunResult) -> list[Text | str]:
        name = Text()
        if any(is_cache_warning(w) for w in run.warnings):
            name.append("⚠ ", style="bold yellow")  # the cache may have inflated these numbers
        name.append(run.name)
        if run.tags:
            name.append(" [" + " ".join(run.tags) + "]", style="cyan")
        target = Text(cut_left(run.target.path, self._widths[1]), style="dim")
        cells: list[Text | str] = [
            str(run.id),
            when(run.started_at, short=self._short_dates),
            name,
            target,
        ]
        if self.show_failed:
            why = (run.error or "").strip().splitlines()
            cells += [status_text(run.status), Text(why[0] if why else "", style="dim")]
        else:
            for direction in ("read", "write"):
                stats = run.summary.get(direction)
                cells.append(
                    Text(fmt_rate(stats.bw_bytes), justify="right")
                    if stats
                    else Text("—", justify="right", style="dim")
                )
        return cells

    # -- selection ---------------------------------------------------------------------------

    @property
    def selected_id(self) -> int | None:
        table: DataTable[Text | str] = self.query_one("#history-table", DataTable)
        if not self.runs or table.row_count == 0:
            return None
        try:
            key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        except Exception:  # noqa: BLE001 - no cursor yet
            return None
        return int(key.value) if key.value is not None else None

    @property
    def selected_run(self) -> RunResult | None:
        run_id = self.selected_id
        return next((r for r in self.runs if r.id == run_id), None)

    # -- filters and keys ---------------------------------------------------------------------

    @on(Select.Changed, "#filter-target, #filter-preset")
    def _filter_changed(self) -> None:
        target = self.query_one("#filter-target", Select).value
        preset = self.query_one("#filter-preset", Select).value
        self._filters = (
            target if isinstance(target, str) else None,
            preset if isinstance(preset, str) else None,
        )
        self.reload()

    @on(DataTable.RowSelected, "#history-table")
    def _row_selected(self) -> None:
        self.action_open()

    def action_open(self) -> None:
        run_id = self.selected_id
        if run_id is not None:
            self.app.push_screen(RunDetailScreen(run_id, store_factory=self.store_factory))

    def action_toggle_failed(self) -> None:
        self.show_failed = not self.show_failed
        self._draw_view_label()
        self.reload()

    def action_rename(self) -> None:
        if (run := self.selected_run) is not None:
            self._edit_run(run, "rename")

    def action_tag(self) -> None:
        if (run := self.selected_run) is not None:
            self._edit_run(run, "tag")

    def action_delete(self) -> None:
        if (run := self.selected_run) is not None:
            self._edit_run(run, "delete")

    def action_reload(self) -> None:
        self.reload()

    def action_back(self) -> None:
        self.dismiss(None)


# -- one run --------------------------------------------------------------------------------


def env_renderable(env: EnvFingerprint) -> RenderableType:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column()

    def row(key: str, value: str | None) -> None:
        if value:
            grid.add_row(key, value)

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
    grid.add_row("target", f"{where} · disks {disks}")
    grid.add_row("preset", run.preset or "custom job")
    grid.add_row(
        "started", f"{when(run.started_at)} · {duration(run)} · " + status_text(run.status).plain
    )
    return Group(title, grid)


class RunDetailScreen(RunEditing, Screen[None]):
    CSS_PATH = "bench.tcss"

    BINDINGS = [
        Binding("n", "rename", "Rename"),
        Binding("t", "tag", "Tag"),
        Binding("d", "delete", "Delete"),
        Binding("escape", "back", "Back"),
    ]

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
        rows = chart_rows(self.size.height)
        for chart in self.charts:
            chart.rows = rows
        self.query_one("#detail-body").focus()
        self._load()

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
        cache = [w for w in run.warnings if is_cache_warning(w)]
        box = self.query_one("#cache-warning", Static)
        box.update(cache_warning_text(cache))
        box.display = bool(cache)
        if first:
            for chart in self.charts:
                chart.span = len(run.series)
            feed_charts(self.charts, run.series)
            self._show_disks(run)
        self.query_one("#detail-env", Static).update(env_renderable(run.env))
        jobs = "\n".join(job.to_jobfile() for job in run.jobs)
        self.query_one("#detail-jobs", Static).update(Text(jobs, style="dim"))

    def _show_disks(self, run: RunResult) -> None:
        disks = list(dict.fromkeys([*run.target.disks, *(d.device for d in run.device_series)]))
        panel = self.query_one(DevicePanel)
        panel.set_disks(disks, run.env.disk_models)
        panel.load_series(run.device_series)
        title = self.query_one("#detail-disks-title", Static)
        if disks and run.device_series:
            by_t: dict[float, dict[str, float | None]] = {}
            for sample in run.device_series:
                point = by_t.setdefault(sample.t, {})
                point[sample.device] = sample.read_bytes_per_s + sample.write_bytes_per_s
            chart = LiveChart(
                "Disks, read + write per second",
                [(d, d, style) for d, style in zip(disks, _DISK_STYLES * 8, strict=False)],
                fmt=fmt_rate,
                rows=self.charts[0].rows,
                span=len(by_t),
                hide_empty=False,  # an idle disk is the point: it gets its (empty) strip
                id="chart-disks",
            )
            self.query_one("#detail-body").mount(chart, before=title)
            chart.extend(sorted(by_t.items()))
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

    def action_back(self) -> None:
        self.dismiss(None)


_DISK_STYLES = ("cyan", "yellow", "green", "magenta", "blue", "red")
