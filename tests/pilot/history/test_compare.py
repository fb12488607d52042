"""Comparing runs in the TUI, by keyboard, over a real HistoryStore in tmp_path holding
runs recorded on the lab NAS: mark in the history list (space), compare (c), change the
baseline (b), export (e), the refusals, "compare with..." from a run's detail view, and
eight runs at 80 columns.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable
from tierdeck.app.compare.render import to_markdown
from tierdeck.app.history.fio_import import import_file
from tierdeck.app.history.store import HistoryStore
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.backends.host import RecordedHost
from tierdeck.core.compare.comparison import Verdict
from tierdeck.screens.history.compare import CompareScreen
from tierdeck.screens.history.history import HistoryScreen
from tierdeck.screens.history.run_detail import RunDetailScreen
from tierdeck.screens.modals.export_choice import ExportChoiceScreen
from tierdeck.screens.modals.help import HelpScreen
from tierdeck.widgets.charts.series_chart import SeriesChart
from tierdeck.widgets.compare.table import CompareTable

from tests.pilot.modals.test_help import check_page, open_help
from tests.pilot.waiting import open_history, screen_text, shown_text
from tests.snapshots.apps.bench_data import fill_history
from tests.waiting import wait_until

from ...paths import FIXTURES

SIZE = (80, 24)
RECORDED = ("pool_write", "branch_randrw", "stonewall_step", "pool_buffered", "failed_engine")
IMPORTED = FIXTURES / "fio_import"


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> HistoryStore:
    """The app's default store: four ok runs (listed 4, 3, 2, 1) and a failed one (5)."""
    monkeypatch.setenv("TIERDECK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)  # where the export key writes
    history = HistoryStore()
    assert fill_history(history, RECORDED) == [1, 2, 3, 4, 5]
    return history


def notes(app: TierdeckApp) -> list[str]:
    return [str(n.message) for n in app._notifications]  # noqa: SLF001


async def open_compare(pilot: Pilot[None], app: TierdeckApp) -> CompareScreen:
    await pilot.press("c")
    await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen), "the compare screen")
    screen = app.screen
    assert isinstance(screen, CompareScreen)
    await wait_until(pilot, lambda: screen.comparison is not None, "the comparison")
    return screen


def mark_column(screen: HistoryScreen) -> dict[int, str]:
    table = screen.query_one("#history-table", DataTable)
    return {
        run.id: str(table.get_cell(str(run.id), "mark"))
        for run in screen.runs
        if run.id is not None
    }


def store_bw(store: HistoryStore, run_id: int) -> float:
    """The run's stored write bandwidth, bytes/s: what the deltas must come from."""
    run = store.get(run_id)
    assert run is not None
    return float(run.summary["write"].bw_bytes)


def cell(screen: CompareScreen, row: int, column: int) -> str:
    return str(screen.query_one(CompareTable).get_cell_at((row, column)))


async def test_mark_compare_rebase_and_export(demo_host: RecordedHost, store: HistoryStore) -> None:
    app = TierdeckApp(demo_host, demo=True, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        history = await open_history(pilot, app)
        assert [r.id for r in history.runs] == [4, 3, 2, 1]
        await pilot.press("down", "down")  # run 2, the 4k randrw
        await pilot.press("space")  # marked first: the baseline; the cursor moves on
        assert history.selected_id == 1
        await pilot.press("space")
        assert history.marks.ids == [2, 1]
        assert mark_column(history) == {4: "", 3: "", 2: "1", 1: "2"}
        assert "marked #2 #1 · c compares" in screen_text(app)

        screen = await open_compare(pilot, app)
        comparison = screen.comparison
        assert comparison is not None
        assert [r.id for r in comparison.runs] == [2, 1] and comparison.baseline == 0
        assert screen.sub_title == "compare #2 #1"
        text = screen_text(app)
        assert "#2 branch randrw 4k" in text and "#1 pool write 1M" in text
        assert "baseline" in text and "% vs #2" in text
        # the write bandwidth row: 0.8 MiB/s on the branch, 879.8 in the pool
        table = screen.query_one(CompareTable)
        labels = [str(table.get_cell_at((r, 0))) for r in range(table.row_count)]
        write_bw = labels.index("  write MiB/s")
        branch_bw = store_bw(store, 2)
        pool_bw = store_bw(store, 1)
        assert cell(screen, write_bw, 1) == "0.8"
        assert cell(screen, write_bw, 2) == f"879.8 {100 * (pool_bw - branch_bw) / branch_bw:+.1f}%"
        pool = comparison.rows[0].direction("write")
        assert pool is not None and pool.metrics[0].cells[1].verdict is Verdict.BETTER

        # b: the run under the cursor (moved to #1's column) becomes the baseline
        await pilot.press("right", "b")
        await wait_until(pilot, lambda: screen.comparison.baseline == 1, "the new baseline")  # type: ignore[union-attr]
        assert cell(screen, write_bw, 1) == f"0.8 {100 * (branch_bw - pool_bw) / pool_bw:+.1f}%"
        assert cell(screen, write_bw, 2) == "879.8"
        assert "% vs #1" in screen_text(app)
        assert "Baseline: #1 pool write 1M" in notes(app)

        # e: the Markdown of what is on screen (against the new baseline), in the
        # folder tierdeck runs in; a second export never replaces the first
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, ExportChoiceScreen), "formats")
        await pilot.press("enter")  # the first: Markdown
        await wait_until(pilot, lambda: screen.exported is not None, "the export")
        path = Path(screen.exported or "")
        assert path == Path.cwd() / "tierdeck-runs-2-1.md"
        text = path.read_text(encoding="utf-8")
        assert to_markdown(screen.comparison) in text  # type: ignore[arg-type]
        assert "| job | dir | metric | #2 branch randrw 4k | #1 pool write 1M |" in text
        assert "baseline: #1 pool write 1M" in text
        assert f"Export: wrote {path}" in notes(app)
        await pilot.press("e", "m")
        again = path.with_name("tierdeck-runs-2-1_2.md")
        await wait_until(pilot, lambda: screen.exported == str(again), "the second export")
        assert path.read_text(encoding="utf-8") == text

        # the other views, by their keys
        await pilot.press("2")
        panel = shown_text(screen.query_one("#compare-panel"))
        assert "What differs" in panel and "job[randrw-4k].bs" in panel
        assert "#2 4k  #1 1M" in panel
        assert "#1 pool write 1M: cache:" in panel  # the cached run, to mind
        await pilot.press("3")
        charts = list(screen.query(SeriesChart))
        assert [c.id for c in charts] == ["compare-bw", "compare-iops", "compare-lat"]
        assert charts[0].keys == [
            "#2 branch randrw 4k read",
            "#2 branch randrw 4k write",
            "#1 pool write 1M",
        ]
        assert charts[0].legend_text().plain.count("avg") == 3

        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is history, "back to the list")
        assert history.marks.ids == [2, 1]  # kept: compare again, add one, ...


async def test_refusals_by_kind(demo_host: RecordedHost, store: HistoryStore) -> None:
    app = TierdeckApp(demo_host, demo=True, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        history = await open_history(pilot, app)
        await pilot.press("c")  # nothing marked
        await pilot.press("space", "c")  # one marked
        await pilot.pause()
        assert not isinstance(app.screen, CompareScreen)
        assert notes(app) == [
            "Mark 2 to 8 runs with space, then press c (0 marked).",
            "Mark 2 to 8 runs with space, then press c (1 marked).",
        ]
        # space again on the same run unmarks it
        await pilot.press("up", "space")
        assert history.marks.ids == []

        await pilot.press("f")
        await wait_until(pilot, lambda: [r.id for r in history.runs] == [5], "the failed run")
        await pilot.press("space")
        assert history.marks.ids == []
        assert notes(app)[-1] == "Run #5 is failed: only runs that finished ok compare."


async def test_at_most_eight_and_eight_read_at_80_columns(
    demo_host: RecordedHost, store: HistoryStore
) -> None:
    fill_history(
        store, ("pool_write", "branch_randrw", "stonewall_step", "pool_buffered", "pool_write")
    )
    app = TierdeckApp(demo_host, demo=True, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        history = await open_history(pilot, app)
        assert len(history.runs) == 9
        await pilot.press(*["space"] * 9)
        assert len(history.marks) == 8
        assert notes(app)[-1] == "At most 8 runs compare at once: unmark one (space) first."
        screen = await open_compare(pilot, app)
        table = screen.query_one(CompareTable)
        assert table.fixed_columns == 1
        await pilot.press(*["right"] * 7)
        await wait_until(pilot, lambda: table.scroll_x > 0, "the columns to scroll")
        text = screen_text(app)
        assert "job / metric" in text  # the labels stay
        assert "  write MiB/s" in text
        last = screen.comparison.runs[-1]  # type: ignore[union-attr]
        assert f"#{last.id} " in text  # the eighth run's column is on screen


async def test_compare_with_from_the_detail_view(
    demo_host: RecordedHost, store: HistoryStore
) -> None:
    app = TierdeckApp(demo_host, demo=True, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        history = await open_history(pilot, app)
        await pilot.press("down", "enter")  # run 3

        def loaded() -> bool:
            return isinstance(app.screen, RunDetailScreen) and app.screen.run is not None

        await wait_until(pilot, loaded, "the run detail")
        detail = app.screen
        assert isinstance(detail, RunDetailScreen)
        await pilot.press("e", "m")  # the run view's export: this run alone, Markdown
        await wait_until(pilot, lambda: detail.exported is not None, "the run's export")
        path = Path(detail.exported or "")
        assert path == Path.cwd() / "tierdeck-run-3.md"
        assert "stonewall step" in path.read_text(encoding="utf-8")
        assert f"Export: wrote {path}" in notes(app)
        await pilot.press("c")
        await wait_until(pilot, lambda: app.screen is history, "back to the list")
        assert history.marks.ids == [3]
        assert "Run #3 marked for comparison: mark another with space." in notes(app)
        await pilot.press("up", "space", "c")  # and run 4: two runs
        screen = await open_compare(pilot, app)
        assert [r.id for r in screen.comparison.runs] == [3, 4]  # type: ignore[union-attr]


async def test_imported_run_has_no_chart_line(demo_host: RecordedHost, store: HistoryStore) -> None:
    imported = import_file(store, IMPORTED / "fio333_seqwrite_group.json", now=time.time())
    app = TierdeckApp(demo_host, demo=True, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        history = await open_history(pilot, app)
        assert history.runs[0].id == imported.id
        await pilot.press("space", "space")  # the imported run, then run 4
        screen = await open_compare(pilot, app)
        await pilot.press("3")
        note = shown_text(screen.query_one("#compare-chart-note"))
        assert note == f"no per-second series, not drawn: #{imported.id} {imported.name} (imported)"
        chart = screen.query_one("#compare-bw", SeriesChart)
        assert chart.keys == ["#4 pool write 1M, refused direct=1"]
        # without its series the noise is unknown: a delta, but no verdict
        cells = [
            c
            for row in screen.comparison.rows
            for d in row.directions
            for m in d.metrics
            for c in m.cells
        ]  # type: ignore[union-attr]
        assert Verdict.UNKNOWN in {c.verdict for c in cells}


async def test_help_lists_every_key(demo_host: RecordedHost, store: HistoryStore) -> None:
    app = TierdeckApp(demo_host, demo=True, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_history(pilot, app)
        await pilot.press("space", "space")
        screen = await open_compare(pilot, app)
        page = await open_help(pilot, screen)
        assert isinstance(page, HelpScreen)
        text = check_page(app, page, screen)
        assert "make the run under the cursor the baseline" in text


async def test_export_asks_the_format_and_can_redact(
    demo_host: RecordedHost, store: HistoryStore
) -> None:
    app = TierdeckApp(demo_host, demo=True, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_history(pilot, app)
        await pilot.press("space", "down", "space", "c")
        screen = await open_compare(pilot, app)
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, ExportChoiceScreen), "formats")
        await pilot.press("escape")  # cancelled: nothing written
        await wait_until(pilot, lambda: app.screen is screen, "back to the compare view")
        assert screen.exported is None and not list(Path.cwd().glob("tierdeck-*"))

        await pilot.press("e", "r", "h")  # redacted HTML
        await wait_until(pilot, lambda: screen.exported is not None, "the export")
        path = Path(screen.exported or "")
        assert path.name == "tierdeck-runs-4-2-redacted.html"
        html = path.read_text(encoding="utf-8")
        assert "<table" in html and "Redacted: serials, WWNs, UUIDs and hostnames" in html
        assert f"Export: wrote {path}" in notes(app)


async def test_imported_runs_only_say_there_is_no_series_and_the_noise_is_unknown(
    demo_host: RecordedHost, store: HistoryStore
) -> None:
    now = time.time()
    first = import_file(store, IMPORTED / "fio333_seqwrite_group.json", now=now)
    second = import_file(store, IMPORTED / "seed003_fio38_write.txt", now=now + 1)
    app = TierdeckApp(demo_host, demo=True, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        history = await open_history(pilot, app)
        table = history.query_one("#history-table", DataTable)
        for run in (first, second):
            table.move_cursor(row=table.get_row_index(str(run.id)))
            await pilot.press("space")
        assert history.marks.ids == [first.id, second.id]
        screen = await open_compare(pilot, app)
        baseline = shown_text(screen.query_one("#compare-baseline"))
        assert "? noise unknown (imported)" in baseline
        assert "? " in cell(screen, 1, 2)  # the delta says it has no verdict
        await pilot.press("3")
        await pilot.pause()
        note = shown_text(screen.query_one("#compare-chart-note"))
        assert note.startswith("No per-second series to draw: they were imported")
        assert not screen.query(SeriesChart)  # no empty frames "waiting for data"
