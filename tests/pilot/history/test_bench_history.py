"""The history screen by keyboard, over a real HistoryStore in tmp_path holding runs
recorded on the lab NAS: list, filter, failed/cancelled apart, open, rename, tag, delete.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Select, Static
from tierdeck.app.history.store import HistoryStore
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.app.tui.bench_messages import HistoryLoaded
from tierdeck.backends.host import RecordedHost
from tierdeck.core.bench_models import RunStatus
from tierdeck.core.compare.series import drawn
from tierdeck.core.units import fmt_rate
from tierdeck.screens.history.history import HistoryScreen
from tierdeck.screens.history.run_detail import RunDetailScreen
from tierdeck.screens.modals.confirm import ConfirmScreen, PromptScreen

from tests.pilot.waiting import open_history, screen_text, shown_text
from tests.snapshots.apps.bench_data import (
    as_stored_before_0_2,
    fill_history,
    load_events,
    result_of,
)
from tests.waiting import wait_until

SIZE = (80, 24)
RECORDED = (
    "pool_write",
    "branch_randrw",
    "stonewall_step",
    "pool_buffered",
    "cancelled_read",
    "failed_engine",
)


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> HistoryStore:
    """The app's default store (TIERDECK_DATA_DIR) with the six recorded runs."""
    monkeypatch.setenv("TIERDECK_DATA_DIR", str(tmp_path / "data"))
    history = HistoryStore()
    assert fill_history(history, RECORDED) == [1, 2, 3, 4, 5, 6]
    return history


async def reloaded(pilot: Pilot[None], screen: HistoryScreen, before: int) -> None:
    await wait_until(pilot, lambda: screen.loads > before, "a new listing")


def ids(screen: HistoryScreen) -> list[int | None]:
    return [run.id for run in screen.runs]


async def test_a_listing_a_newer_reload_replaced_is_dropped(
    demo_host: RecordedHost, store: HistoryStore
) -> None:
    """A thread worker replaced by a newer load still posts its (older) listing; it must
    not overwrite the newer one (CI saw a delete and an import undone this way)."""
    app = TierdeckApp(demo_host, demo=True, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_history(pilot, app)
        assert ids(screen) == [4, 3, 2, 1]
        loads = screen.loads
        stale = HistoryLoaded([], [], [], screen._generation - 1)
        screen.post_message(stale)
        fresh = HistoryLoaded(list(screen.runs), [], [], screen._generation)
        screen.post_message(fresh)
        await wait_until(pilot, lambda: screen.loads > loads, "the current listing")
        assert screen.loads == loads + 1 and ids(screen) == [4, 3, 2, 1]


async def test_list_ok_runs_then_failed_and_cancelled_apart(
    demo_host: RecordedHost, store: HistoryStore
) -> None:
    app = TierdeckApp(demo_host, demo=True, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_history(pilot, app)
        assert ids(screen) == [4, 3, 2, 1]  # ok runs only, newest first
        table = screen.query_one("#history-table", DataTable)
        assert table.row_count == 4
        text = screen_text(app)
        assert "Runs that finished ok" in text
        assert "stonewall step" in text and "write MiB/s" in text
        # one unit down a column: a bare MiB/s figure, never KiB/s beside MiB/s
        writes = [str(table.get_cell(key, "write")) for key in table.rows]
        assert "64.7" in writes and "0.8" in writes
        assert not any("/s" in w for w in writes)
        assert "broken engine" not in text and "long read" not in text
        await pilot.press("f")
        await reloaded(pilot, screen, 1)
        assert ids(screen) == [6, 5]
        text = screen_text(app)
        assert "Failed and cancelled runs" in text
        assert "✘ failed" in text and "■ cancelled" in text
        assert "fio exited with" in text  # fio's verdict, first line
        await pilot.press("f")
        await reloaded(pilot, screen, 2)
        assert ids(screen) == [4, 3, 2, 1]


async def test_filter_by_target_and_preset(demo_host: RecordedHost, store: HistoryStore) -> None:
    app = TierdeckApp(demo_host, demo=True, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_history(pilot, app)
        pool = store.get(1)
        assert pool is not None
        targets = screen.query_one("#filter-target", Select)
        labels = [value for _, value in targets._options]  # noqa: SLF001
        assert pool.target.path in labels
        targets.focus()
        await pilot.press("enter")
        await pilot.pause()
        for _ in range(labels.index(pool.target.path)):
            await pilot.press("down")
        await pilot.press("enter")
        await wait_until(pilot, lambda: ids(screen) == [4, 1], "the runs on the pool only")
        # No run of these was started from a preset: the preset filter has nothing.
        assert screen.query_one("#filter-preset", Select)._options == [("", Select.NULL)]  # noqa: SLF001


async def test_open_rename_tag_and_delete(demo_host: RecordedHost, store: HistoryStore) -> None:
    app = TierdeckApp(demo_host, demo=True, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_history(pilot, app)
        await pilot.press("down")  # run 3, the stonewall step
        assert screen.selected_id == 3

        # rename, from the list
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen), "the rename prompt")
        await pilot.press("ctrl+u", *"step 20m->max", "enter")
        await wait_until(pilot, lambda: store.get(3) is not None and store.get(3).name == "step 20m->max",  # type: ignore[union-attr]
                         "the new name")  # fmt: skip
        await wait_until(pilot, lambda: "step 20m->max" in screen_text(app), "the list redrawn")

        # tags
        await pilot.press("t")
        await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen), "the tag prompt")
        await pilot.press(*"baseline, hdd", "enter")
        await wait_until(pilot, lambda: store.get(3).tags == ("baseline", "hdd"), "the tags")  # type: ignore[union-attr]
        assert [r.id for r in store.list(tag="hdd")] == [3]

        # open it: summary, charts, disks, environment
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, RunDetailScreen), "the detail view")
        detail = app.screen
        assert isinstance(detail, RunDetailScreen)
        await wait_until(pilot, lambda: detail.run is not None, "the run loaded")
        text = screen_text(app)
        assert "#3 step 20m->max" in text and "[baseline hdd]" in text
        assert "✔ ok" in text and "64.7 MiB/s" in text
        body = detail.query_one("#detail-body")
        body.scroll_to_widget(detail.query_one("#chart-disks"), animate=False, top=True)
        await wait_until(
            pilot, lambda: "Disks, read + write per second" in screen_text(app), "the disk chart"
        )
        stored = store.get(3)
        assert stored is not None
        full = [s for s in stored.series if drawn(s)]  # the 0.45 s tail is not drawn
        assert detail.charts[0].values("write") == [s.write.bw_bytes_per_s for s in full]
        assert detail.charts[0].mean("write") == stored.summary["write"].bw_bytes
        body = detail.query_one("#detail-body")
        body.scroll_to_widget(detail.query_one("#detail-env"), animate=False, top=True)
        await pilot.pause()
        text = screen_text(app)
        assert "kernel" in text and "fio-3.33" in text
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen, "back to the list")

        # delete asks first; n keeps it, y deletes it
        await pilot.press("d")
        await wait_until(
            pilot, lambda: isinstance(app.screen, ConfirmScreen), "the delete question"
        )
        assert "Delete run #3 step 20m->max" in screen_text(app)
        await pilot.press("n")
        await wait_until(pilot, lambda: app.screen is screen, "the list again")
        assert store.get(3) is not None
        loads = screen.loads
        await pilot.press("d")
        await wait_until(
            pilot, lambda: isinstance(app.screen, ConfirmScreen), "the delete question"
        )
        await pilot.press("y")
        await wait_until(pilot, lambda: store.get(3) is None, "the run deleted")
        await reloaded(pilot, screen, loads)
        assert ids(screen) == [4, 2, 1]


async def test_delete_from_the_detail_view(demo_host: RecordedHost, store: HistoryStore) -> None:
    app = TierdeckApp(demo_host, demo=True, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_history(pilot, app)
        await pilot.press("f")
        await reloaded(pilot, screen, 1)
        await pilot.press("enter")  # run 6: the failed one
        await wait_until(pilot, lambda: isinstance(app.screen, RunDetailScreen), "the detail view")
        detail = app.screen
        assert isinstance(detail, RunDetailScreen)
        await wait_until(pilot, lambda: detail.run is not None, "the run loaded")
        text = screen_text(app)
        assert "✘ failed" in text and "fio: engine nosuchengine not loadable" in text
        await pilot.press("d", "y")
        await wait_until(pilot, lambda: app.screen is screen, "back to the list")
        await wait_until(pilot, lambda: ids(screen) == [5], "the list without it")
        assert store.list(status=RunStatus.FAILED) == []


async def test_unreadable_history_is_shown_not_fatal(
    demo_host: RecordedHost, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "history.sqlite3").write_text("this is not a database\n")
    monkeypatch.setenv("TIERDECK_DATA_DIR", str(folder))
    app = TierdeckApp(demo_host, demo=True, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_history(pilot, app)
        assert screen.error is not None
        assert "Could not read the history" in screen_text(app)


@pytest.fixture
def suite_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> HistoryStore:
    """A suite (four jobs, 1M and 4K), a run stored before 0.2, and a cached run."""
    monkeypatch.setenv("TIERDECK_DATA_DIR", str(tmp_path / "data"))
    history = HistoryStore()
    fill_history(history, ("pool_write", "suite_mixed"))
    history.save(as_stored_before_0_2(result_of(load_events("clones_write"))))
    return history


async def test_a_suite_lists_jobs_not_a_mixed_average(
    demo_host: RecordedHost, suite_store: HistoryStore
) -> None:
    app = TierdeckApp(demo_host, demo=True, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_history(pilot, app)
        suite = suite_store.get(2)
        assert suite is not None and suite.mixed_jobs
        table = screen.query_one("#history-table", DataTable)
        row = [str(cell) for cell in table.get_row("2")]
        assert row[-2:] == ["2 jobs", "2 jobs"]  # read jobs, write jobs
        mixed_average = fmt_rate(suite.summary["read"].bw_bytes)
        assert mixed_average not in screen_text(app)
        # opened: one row per job, the whole run below them
        table.move_cursor(row=table.get_row_index("2"))
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, RunDetailScreen), "the detail")
        detail = app.screen
        assert isinstance(detail, RunDetailScreen)
        await wait_until(pilot, lambda: detail.run is not None, "the run loaded")
        text = screen_text(app)
        for job in suite.job_summaries:
            assert job.name in text
        assert "all jobs" in text and "compare the jobs" in text


async def test_old_runs_are_marked_in_the_list_and_the_detail(
    demo_host: RecordedHost, suite_store: HistoryStore
) -> None:
    app = TierdeckApp(demo_host, demo=True, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_history(pilot, app)
        table = screen.query_one("#history-table", DataTable)
        names = {key.value: str(table.get_cell(key, "name")) for key in table.rows}
        assert names["3"].startswith("† old clones")
        assert not names["2"].startswith("†") and not names["1"].startswith("†")
        legend = str(screen.query_one("#history-legend", Static).render())
        assert "† clones shared one file (stored before 0.2)" in legend
        assert "⚠ the page cache may have inflated" in legend  # run 1, pool_write
        assert "clones shared one file" in screen_text(app)
        table.move_cursor(row=table.get_row_index("3"))
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, RunDetailScreen), "the detail")
        detail = app.screen
        assert isinstance(detail, RunDetailScreen)
        await wait_until(pilot, lambda: detail.run is not None, "the run loaded")
        summary = shown_text(detail.query_one("#run-summary"))
        assert (
            "† stored before 0.2: its numjobs clones shared one test file, so these figures "
            "are lower than plain fio's"
        ) in summary.splitlines()
        assert suite_store.get(3) is not None  # marked, never deleted


async def test_the_marks_legend_is_a_key_to_the_list_and_a_runs_marks_go_with_it(
    demo_host: RecordedHost, suite_store: HistoryStore
) -> None:
    """The legend sits under the table, apart from the highlighted run, and says it is
    a key; the highlighted run names only its own marks, in words."""
    app = TierdeckApp(demo_host, demo=True, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_history(pilot, app)
        legend = screen.query_one("#history-legend", Static)
        current = screen.query_one("#history-current", Static)
        assert str(legend.render()).startswith("marks: ")
        assert legend.region.bottom <= current.region.y  # not under the run
        table = screen.query_one("#history-table", DataTable)
        shown = {}
        for run_id in ("1", "2", "3"):
            table.move_cursor(row=table.get_row_index(run_id))
            await pilot.pause()
            shown[run_id] = shown_text(current)
        assert "⚠ the page cache may have inflated the figures" in shown["1"]  # pool_write
        assert "page cache" not in shown["2"] and "clones shared" not in shown["2"]
        assert "† clones shared one file" in shown["3"] and "⚠" not in shown["3"]


async def test_the_highlighted_run_is_readable_in_full_at_80_columns(
    demo_host: RecordedHost, store: HistoryStore
) -> None:
    store.rename(2, "branch randrw 4k on the ext4 hdd0, after moving the journal")
    app = TierdeckApp(demo_host, demo=True, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_history(pilot, app)
        table = screen.query_one("#history-table", DataTable)
        table.move_cursor(row=table.get_row_index("2"))
        await pilot.pause()
        current = " ".join(screen_text(app).split())
        assert "#2 branch randrw 4k on the ext4 hdd0, after moving the journal" in current
        run = store.get(2)
        assert run is not None and run.target.path in current
        # the failed view: the reason, whole, for the highlighted run
        await pilot.press("f")
        await reloaded(pilot, screen, 1)
        table.move_cursor(row=table.get_row_index("6"))
        await pilot.pause()
        text = " ".join(screen_text(app).split())
        assert "fio: engine nosuchengine not loadable" in text
