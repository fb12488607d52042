"""2 to 8 stored runs side by side: the table, what differs, the per-second charts.

Opened from the history list with the marked runs (the first marked is the baseline).
The runs load with their fio series (the noise rule and the charts read them) but
without fio's document and the disks' series, which nothing here shows; that and
core.compare's Comparison take ~10 ms, so they are done as the screen is composed and
its first paint has the table (a thread worker sharing the interpreter with that paint
delivered it ~150 ms later: bench/history.py). ``b`` rebases the comparison on the run
under the cursor (``Comparison.rebased``: the rows stay, the deltas change).

Three views, one at a time so that each has the whole 80x24 screen: 1 the table
(widgets/compare/table: run columns scroll sideways past the fixed label column), 2 the
comparability panel (widgets/compare/panel), 3 one overlay chart per metric, a line
per run (widgets/charts/run_charts.overlay_charts on the one SeriesChart). ``e`` asks for a
format and writes the comparison into the folder tierdeck runs in (app/export/formats through
screens/history/exporting) and says where.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Header, Static, TabbedContent, TabPane

from ...app.compare.render import run_label
from ...app.tui.bench_messages import CompareLoaded, HistoryFailed
from ...core.compare.comparison import Comparison, compare_runs
from ...core.errors import one_line
from ...widgets.calm_footer import CalmFooter
from ...widgets.charts.run_charts import overlay_charts, plot_rows
from ...widgets.charts.series_chart import SeriesChart
from ...widgets.compare.panel import baseline_line, chart_note, panel_renderable
from ...widgets.compare.table import CompareTable
from .exporting import Exporting
from .run_editing import StoreFactory, default_store

VIEWS = {"1": "tab-table", "2": "tab-differences", "3": "tab-charts"}


class CompareScreen(Exporting, Screen[None]):
    CSS_PATH = "compare.tcss"

    BINDINGS = [
        Binding("b", "baseline", "Baseline", tooltip="make the run under the cursor the baseline"),
        Binding("e", "export", "Export", tooltip="write the comparison to a file to share"),
        Binding("1", "view('1')", "Table", tooltip="the table: one column per run"),
        Binding("2", "view('2')", "Differs", tooltip="what differs between the runs, warnings"),
        Binding("3", "view('3')", "Charts", tooltip="per-second charts, one line per run"),
        Binding("escape", "back", "Back", tooltip="back to the history list"),
    ]
    HELP_TITLE = "tierdeck keys: compare runs"
    HELP_NOTES = (
        ("left / right", "table: from run to run; the columns scroll, the labels stay"),
        ("up / down", "table: rows; differences and charts: scroll"),
        ("escape", "close this help"),
    )
    HELP_LEGEND = (
        "Each cell: the value, then its % delta against the baseline column. Green is "
        "better (more MiB/s or IOPS, less latency), red worse; ≈ and dim: within the runs' "
        "own second-to-second noise, no winner; ? and plain: the noise is unknown (a run "
        "without per-second series, such as an imported one, or too few full seconds). "
        "'by position': the job's name differs, it was matched by its place in the run."
    )

    comparison: var[Comparison | None] = var(None)
    error: var[str | None] = var(None)

    def __init__(self, run_ids: list[int], *, store_factory: StoreFactory | None = None) -> None:
        super().__init__(id="compare")
        self.run_ids = list(run_ids)
        self.store_factory = store_factory or default_store
        self._charts_mounted = False
        self._first: CompareLoaded | HistoryFailed | None = None  # read by compose()

    def compose(self) -> ComposeResult:
        self._first = self._read()
        yield Header()
        yield Static(Text("loading the runs…", style="dim"), id="compare-status")
        with TabbedContent(id="compare-views"):
            with TabPane("1 Table", id="tab-table"):
                yield CompareTable(id="compare-table")
                yield Static(id="compare-baseline")
            with (
                TabPane("2 Differences", id="tab-differences"),
                VerticalScroll(id="compare-panel-scroll"),
            ):
                yield Static(id="compare-panel")
            with TabPane("3 Charts", id="tab-charts"), VerticalScroll(id="compare-charts"):
                yield Static(id="compare-chart-note")
        yield CalmFooter()  # one redraw of the keys for the burst of focus changes

    def on_mount(self) -> None:
        self.sub_title = "compare " + " ".join(f"#{i}" for i in self.run_ids)
        first, self._first = self._first, None
        if isinstance(first, CompareLoaded):
            self.on_compare_loaded(first)
        elif first is not None:
            self.query_one("#compare-views").display = False
            self.on_history_failed(first)

    def _read(self) -> CompareLoaded | HistoryFailed:
        """The runs compared, or why not."""
        try:
            store = self.store_factory()
            runs = []
            for run_id in self.run_ids:
                run = store.get(run_id, fio=False, devices=False)
                if run is None:
                    raise LookupError(f"no run #{run_id} in the history")
                runs.append(run)
            comparison = compare_runs(runs)
        except Exception as exc:  # noqa: BLE001 - shown on the screen, which stays
            return HistoryFailed(one_line(exc))
        return CompareLoaded(comparison)

    def on_history_failed(self, message: HistoryFailed) -> None:
        self.error = message.error
        self.query_one("#compare-status", Static).update(
            Text(f"Could not compare: {message.error}", style="bold red")
        )

    def on_compare_loaded(self, message: CompareLoaded) -> None:
        comparison = message.comparison
        self.query_one("#compare-status").display = False
        self.query_one("#compare-views").display = True
        self._show(comparison)
        if self.query_one(TabbedContent).active == "tab-charts":
            self._mount_charts()
        note = chart_note(comparison)
        box = self.query_one("#compare-chart-note", Static)
        box.update(note)
        box.display = bool(note.plain)
        self.query_one(CompareTable).focus()

    def _show(self, comparison: Comparison) -> None:
        self.comparison = comparison
        self.query_one(CompareTable).show(comparison)
        self.query_one("#compare-baseline", Static).update(baseline_line(comparison))
        self._draw_panel()

    def _draw_panel(self) -> None:
        if self.comparison is not None:
            width = max(40, self.query_one("#compare-panel-scroll").size.width or self.size.width)
            panel = panel_renderable(self.comparison, width - 2)
            self.query_one("#compare-panel", Static).update(panel)

    def _mount_charts(self) -> None:
        """The overlay charts, built the first time their view is shown: three
        textual-plot charts cost the table's first paint ~100 ms it need not wait for."""
        if self.comparison is None or self._charts_mounted:
            return
        self._charts_mounted = True
        runs = [
            (run_label(run), run.series, run.summary) for run in self.comparison.runs if run.series
        ]
        if not runs:
            return  # the note says there is nothing to draw: no empty frames
        charts = overlay_charts(runs, rows=self._chart_rows())
        self.query_one("#compare-charts").mount_all(charts)

    def _chart_rows(self) -> int:
        # Reserved: header, tabs (2), the note, footer.
        return plot_rows(self.size.height, 3, 5)

    def on_resize(self) -> None:
        for chart in self.query(SeriesChart):
            chart.rows = self._chart_rows()
        self._draw_panel()

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id == "tab-differences":
            self._draw_panel()  # its width is known once shown
        if event.pane.id == "tab-charts":
            self._mount_charts()
        for chart in self.query(SeriesChart):
            chart.resume()

    # -- keys ----------------------------------------------------------------------------

    def action_view(self, key: str) -> None:
        views = self.query_one(TabbedContent)
        views.active = VIEWS[key]
        focus = {"1": "#compare-table", "2": "#compare-panel-scroll", "3": "#compare-charts"}
        self.query_one(focus[key]).focus()

    def action_baseline(self) -> None:
        comparison = self.comparison
        if comparison is None:
            return
        pointed = self.query_one(CompareTable).run_under_cursor
        if pointed is None or pointed == comparison.baseline:
            pointed = (comparison.baseline + 1) % len(comparison.runs)
        self._show(comparison.rebased(pointed))
        self.notify(f"Baseline: {run_label(comparison.runs[pointed])}")

    def action_export(self) -> None:
        if self.comparison is not None:
            self._export_runs(self.comparison.runs, self.comparison.baseline)

    def action_back(self) -> None:
        self.dismiss(None)
