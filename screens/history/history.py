"""Benchmark history: the stored runs; enter opens one (screens/history/run_detail).

Everything comes from app.history.HistoryStore. The first page is read on the event
loop as the screen is composed, so the first paint lists it: an indexed query of the
newest 101 runs without their series, ~15 ms at 10,000 runs, where a thread worker
sharing the interpreter with the screen's first paint had delivered it ~300 ms later
(bench/history.py). Every later listing (paging, filters, reloads) reads in a thread
worker, so that SQLite never stalls a screen already shown. The list shows ok runs; ``f`` switches to the failed and
cancelled ones, which are never listed among the good ones. Filters by target and
preset go to ``HistoryStore.list``.

Marks before a name: ⚠ the page cache may have inflated the figures; † stored before
0.2, when numjobs clones shared one test file (figures lower than plain fio's); ⇲
imported from a file of fio output (``tierdeck history import``). A
legend under the table ("marks: ...") explains the marks listed; the highlighted run
names its own. A suite whose jobs differ shows how many jobs did each direction instead
of a mixed average. Under the table, the
highlighted run in full: its name, tags and target, and for a failed run its reason,
all of which a column at 80 characters would cut. A history holding runs of more than
one host (benchmarks run over SSH) has a host column, and the highlighted run names its
host.

Space marks runs for a comparison (screens/history/marks), c compares them
(screens/history/compare); a run's detail view comes back with ``c`` to mark its run.
"""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import DataTable, Header, Label, Select, Static

from ...app.compare.marks import CompareMarks
from ...app.tui.bench_messages import HistoryChanged, HistoryFailed, HistoryLoaded
from ...app.tui.context import context
from ...core.bench_models import RunResult, RunStatus, host_names
from ...core.errors import one_line
from ...widgets.bench.run_view import CACHE_MARK, IMPORTED_MARK, OLD_LAYOUT_MARK
from ...widgets.calm_footer import CalmFooter
from .importing import HistoryImport
from .marks import CompareMarking
from .run_editing import RunEditing, StoreFactory, default_store
from .sets import SET_BINDINGS, RunSetOpening
from .table import HistoryTable

__all__ = ["HistoryScreen"]

FAILED_VIEW = (RunStatus.FAILED, RunStatus.CANCELLED)
PAGE = 100  # runs per listing: all 10,000 at once took 8 s to show (bench/history.py)


class HistoryScreen(
    HistoryTable, RunEditing, HistoryImport, CompareMarking, RunSetOpening, Screen[None]
):
    CSS_PATH = "../common.tcss"

    BINDINGS = [
        Binding("enter", "open", "Open", show=True, tooltip="open the run: per job, charts, disks"),
        Binding("space", "mark", "Mark", tooltip="mark/unmark the run for a comparison"),
        Binding("c", "compare", "Compare", tooltip="compare the marked runs (2 to 8)"),
        Binding("f", "toggle_failed", "Failed/cancelled", tooltip="failed and cancelled runs"),
        Binding("i", "import", "Import", tooltip="import files of fio output (JSON or text)"),
        Binding("n", "rename", "Rename", tooltip="rename the highlighted run"),
        Binding("t", "tag", "Tag", tooltip="set the highlighted run's tags"),
        Binding("d", "delete", "Delete", tooltip="delete the highlighted run (asks first)"),
        *SET_BINDINGS,
        Binding("r", "reload", "Reload", show=False, tooltip="read the history again"),
        Binding("escape", "back", "Back", tooltip="back to the dashboard"),
    ]
    HELP_TITLE = "tierdeck keys: benchmark history"
    HELP_NOTES = (
        ("up / down", "move in the list; the line under it shows the run in full"),
        ("pgdn / ctrl+end", f"down the list; its last row loads {PAGE} older runs"),
        ("tab / shift+tab", "the target and preset filters, then the list"),
        ("1, 2 ...", "first column: the marked runs' order; 1 is the comparison's baseline"),
        ("escape", "close this help"),
    )
    HELP_LEGEND = (
        f"{CACHE_MARK} the page cache may have inflated the figures. {OLD_LAYOUT_MARK} stored "
        "before 0.2: numjobs clones shared one test file, so the figures are lower than "
        f"plain fio's. {IMPORTED_MARK} imported from a file of fio output: no per-second series, so no "
        "noise in a comparison. 'N jobs' under read/write: a suite whose jobs differ; open "
        "it for each job's figures. Rates in MiB/s, read before write."
    )

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
        self._target_width = 0  # 0: no target column (narrow terminal)
        self._room = 0  # the table_room() the table was last filled for
        self.several_hosts = False  # runs of two hosts or more: a host column
        self._filters: tuple[str | None, str | None] = (None, None)
        self.marks = CompareMarks()
        self.limit = PAGE  # the newest this many are listed; the end of the list adds a page
        self._generation = 0  # the newest reload; listings of older ones are dropped
        self.more = False  # the store holds runs beyond ``limit`` for this view
        self._away = False  # another screen covers this one: reload when it is back
        self._first: HistoryLoaded | HistoryFailed | None = None  # read by compose()

    def compose(self) -> ComposeResult:
        self._first = self._read(None, None, self.show_failed, self.limit, self._generation)
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
        yield Static(id="history-legend")  # a key to the list, above the highlighted run
        yield Static(id="history-current")
        yield CalmFooter()  # one redraw of the keys for the burst of focus changes

    def on_mount(self) -> None:
        self.sub_title = "benchmark history"
        self.query_one("#history-table").focus()
        self._draw_view_label()
        first, self._first = self._first, None
        if isinstance(first, HistoryLoaded):
            self.on_history_loaded(first)
        elif first is not None:
            self.on_history_failed(first)

    def on_screen_suspend(self) -> None:
        self._away = True

    def on_screen_resume(self) -> None:
        # Back from a detail view, which may have renamed or deleted; not the resume that
        # follows the first mount, whose listing is already shown.
        if self._away:
            self._away = False
            self.reload()

    def on_resize(self) -> None:
        # Not after an error: the table's "no runs" line would replace what went wrong.
        if self.loads and self.error is None and self._room != self.table_room():
            self._fill_table()  # column widths follow the terminal

    # -- loading ---------------------------------------------------------------------------

    def reload(self, *, first_page: bool = False) -> None:
        if first_page:
            self.limit = PAGE
        target, preset = self._filters
        self._generation += 1
        self._load(target, preset, self.show_failed, self.limit, self._generation)

    @work(thread=True, exclusive=True, group="history-load", exit_on_error=False)
    def _load(
        self, target: str | None, preset: str | None, failed: bool, limit: int, generation: int
    ) -> None:
        self.post_message(self._read(target, preset, failed, limit, generation))

    def _read(
        self, target: str | None, preset: str | None, failed: bool, limit: int, generation: int
    ) -> HistoryLoaded | HistoryFailed:
        """A listing, or why the store could not give one."""
        try:
            store = self.store_factory()
            # The list shows summaries only; a run's series load when it is opened.
            runs = store.list(
                target=target,
                preset=preset,
                status=FAILED_VIEW if failed else RunStatus.OK,
                series=False,
                limit=limit + 1,  # one more says whether there is more
            )
            targets, presets = store.filter_options()
            hosts = store.hosts()
        except Exception as exc:  # noqa: BLE001 - an unreadable store is shown, not fatal
            return HistoryFailed(one_line(exc))
        return HistoryLoaded(runs, targets, presets, generation, hosts)

    def on_history_loaded(self, message: HistoryLoaded) -> None:
        if message.generation != self._generation:
            return  # a load a newer one replaced: it read the store before the change
        self.error = None
        self.more = len(message.runs) > self.limit
        self.runs = message.runs[: self.limit]
        # Of the whole history, not the page: the column does not come and go with paging.
        self.several_hosts = len(host_names(message.hosts)) > 1
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
        if message.deleted:
            self.marks.discard(message.run_id)
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
            if self.marks:
                label.append_text(self.marks_text())
            else:
                label.append(" · enter opens · space marks · f: failed ones", style="dim")
        self.query_one("#history-view", Static).update(label)

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

    @on(DataTable.RowHighlighted, "#history-table")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._draw_current()
        if self.more and event.cursor_row == event.data_table.row_count - 1:
            # The last row of a page: the next page, staying on this row.
            self.limit += PAGE
            self.more = False
            self.select_id = self.selected_id
            self.reload()

    # -- filters and keys ---------------------------------------------------------------------

    @on(Select.Changed, "#filter-target, #filter-preset")
    def _filter_changed(self) -> None:
        target = self.query_one("#filter-target", Select).value
        preset = self.query_one("#filter-preset", Select).value
        self._filters = (
            target if isinstance(target, str) else None,
            preset if isinstance(preset, str) else None,
        )
        self.reload(first_page=True)

    @on(DataTable.RowSelected, "#history-table")
    def _row_selected(self) -> None:
        self.action_open()

    def action_open(self) -> None:
        run_id = self.selected_id
        if run_id is not None:
            # The detail view's "compare with..." comes back with its run to mark.
            context(self).open_run(run_id, store_factory=self.store_factory, callback=self.mark_run)

    def action_toggle_failed(self) -> None:
        self.show_failed = not self.show_failed
        self._draw_view_label()
        self.reload(first_page=True)

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
