"""SVG snapshots of the benchmark screens, fed runs recorded on the lab NAS.

The run screen replays event sequences captured once from real fio runs
(tests/fixtures/bench_screens/*.json): no fio, no root, nothing from the clock. Plain
sync functions (an ``asyncio.run`` inside an async test breaks later snapshots), fixed
sizes, no blinking cursor. Update after a deliberate UI change with
``pytest tests/snapshots --snapshot-update`` and look at the SVGs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable
from tierdeck.app.history.store import HistoryStore
from tierdeck.app.machine.demo import load_demo_host
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.screens.bench.run import RunScreen
from tierdeck.screens.history.history import HistoryScreen
from tierdeck.screens.history.run_detail import RunDetailScreen
from tierdeck.widgets.charts.series_chart import SeriesChart

from tests.pilot.waiting import wait_for_inventory
from tests.snapshots.apps.bench_data import (
    HistoryApp,
    RunScreenApp,
    as_stored_before_0_2,
    fill_history,
    load_events,
    result_of,
)
from tests.snapshots.apps.inventories import lab_inventory
from tests.waiting import wait_until

SMALL = (80, 24)
LARGE = (160, 50)


def run_screen(pilot: Pilot[None]) -> RunScreen:
    screen = pilot.app.screen
    if not isinstance(screen, RunScreen):
        screen = next(s for s in pilot.app.screen_stack if isinstance(s, RunScreen))
    return screen


def charts_drawn(pilot: Pilot[None]) -> bool:
    """Every chart is mounted (one mounted after its data, such as the detail view's disk
    chart, draws in its mount handler) and none holds data for its next redraw."""
    charts = list(pilot.app.screen.query(SeriesChart))
    return all(chart.is_mounted for chart in charts) and not any(c.pending for c in charts)


async def finished(pilot: Pilot[None]) -> None:
    await wait_until(pilot, lambda: run_screen(pilot).saved_id is not None, "the run to be saved")
    await wait_until(pilot, lambda: charts_drawn(pilot), "the charts drawn")


async def paused(pilot: Pilot[None]) -> None:
    app = pilot.app
    assert isinstance(app, RunScreenApp)
    await wait_until(pilot, lambda: app.paused, "the replay to pause mid-run")
    await wait_until(pilot, lambda: charts_drawn(pilot), "the charts drawn")
    await pilot.pause()


# -- the run screen ----------------------------------------------------------------------------


def test_run_midway_randrw_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """Both directions live: bandwidth, IOPS, mean and p99 latency, the one disk busy."""
    app = RunScreenApp("branch_randrw", samples=4)
    assert snap_compare(app, terminal_size=SMALL, run_before=paused)


def test_run_midway_randrw_160x50(snap_compare) -> None:  # type: ignore[no-untyped-def]
    app = RunScreenApp("branch_randrw", samples=4)
    assert snap_compare(app, terminal_size=LARGE, run_before=paused)


def test_run_cancel_asks_first_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    app = RunScreenApp("pool_write", samples=3)
    assert snap_compare(app, press=["c"], terminal_size=SMALL, run_before=paused)


def test_run_finished_cache_warning_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """Buffered writes through mergerfs: fio says ~1 GiB/s, the disks moved 116M."""
    assert snap_compare(RunScreenApp("pool_write"), terminal_size=SMALL, run_before=finished)


def test_run_finished_cache_warning_160x50(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(RunScreenApp("pool_write"), terminal_size=LARGE, run_before=finished)


def test_run_stonewall_step_160x50(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """rate=20m, then uncapped: the chart shows a step, not a ramp."""
    assert snap_compare(RunScreenApp("stonewall_step"), terminal_size=LARGE, run_before=finished)


def test_run_failed_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(RunScreenApp("failed_engine"), terminal_size=SMALL, run_before=finished)


def test_run_cancelled_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(RunScreenApp("cancelled_read"), terminal_size=SMALL, run_before=finished)


def test_run_failed_long_error_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """ENOSPC: fio's lines cut after a few rows with a count; the charts stay."""
    assert snap_compare(RunScreenApp("failed_nospace"), terminal_size=SMALL, run_before=finished)


def test_run_suite_per_job_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """seed 002's four jobs: one row each, "all jobs" dim below them."""
    assert snap_compare(RunScreenApp("suite_mixed"), terminal_size=SMALL, run_before=finished)


def test_run_suite_per_job_160x50(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """Tall: the charts grow, the average follows the current value."""
    assert snap_compare(RunScreenApp("suite_mixed"), terminal_size=LARGE, run_before=finished)


def test_run_help_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """? on the run screen: its keys, not the dashboard's (the app's binding pushes
    the page; RunScreenApp has none, so the page is pushed the way it does)."""

    async def helped(pilot: Pilot[None]) -> None:
        from tierdeck.screens.modals.help import HelpScreen

        await paused(pilot)
        screen = run_screen(pilot)
        pilot.app.push_screen(HelpScreen.for_screen(screen, TierdeckApp.HOST_BINDINGS))
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, HelpScreen), "the help")

    app = RunScreenApp("branch_randrw", samples=4)
    assert snap_compare(app, terminal_size=SMALL, run_before=helped)


# -- history --------------------------------------------------------------------------------


RECORDED = (
    "pool_write",
    "branch_randrw",
    "stonewall_step",
    "pool_buffered",
    "cancelled_read",
    "failed_engine",
)


@pytest.fixture
def history_path(tmp_path: Path, utc: None) -> Path:
    path = tmp_path / "history.sqlite3"
    store = HistoryStore(path)
    fill_history(store, RECORDED)
    store.set_tags(1, ["baseline", "buffered"])
    return path


@pytest.fixture
def suite_history_path(tmp_path: Path, utc: None) -> Path:
    """A suite of four jobs, a cached run, and a run stored before 0.2."""
    path = tmp_path / "history.sqlite3"
    store = HistoryStore(path)
    fill_history(store, ("pool_write", "suite_mixed"))
    store.save(as_stored_before_0_2(result_of(load_events("clones_write"))))
    return path


def history_screen(pilot: Pilot[None]) -> HistoryScreen:
    return next(s for s in pilot.app.screen_stack if isinstance(s, HistoryScreen))


async def listed(pilot: Pilot[None]) -> None:
    await wait_until(pilot, lambda: history_screen(pilot).loads > 0, "the history listing")


def test_history_list_80x24(snap_compare, history_path: Path) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(HistoryApp(history_path), terminal_size=SMALL, run_before=listed)


def test_history_list_160x50(snap_compare, history_path: Path) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(HistoryApp(history_path), terminal_size=LARGE, run_before=listed)


def test_history_failed_and_cancelled_80x24(snap_compare, history_path: Path) -> None:  # type: ignore[no-untyped-def]
    async def toggled(pilot: Pilot[None]) -> None:
        await listed(pilot)
        await pilot.press("f")
        await wait_until(pilot, lambda: history_screen(pilot).loads > 1, "the failed listing")

    assert snap_compare(HistoryApp(history_path), terminal_size=SMALL, run_before=toggled)


def open_run(downs: int = 0):  # type: ignore[no-untyped-def]
    """Open the run ``downs`` rows below the newest, once the cursor is seen there (a key
    pressed into a busy app must not open a neighbour)."""

    async def opened(pilot: Pilot[None]) -> None:
        await listed(pilot)
        history = history_screen(pilot)
        table = history.query_one("#history-table", DataTable)
        for _ in range(downs):
            await pilot.press("down")
        await wait_until(pilot, lambda: table.cursor_row == downs, "the cursor on the run")
        wanted = history.selected_id
        await pilot.press("enter")

        def loaded() -> bool:
            screen = pilot.app.screen
            return (
                isinstance(screen, RunDetailScreen)
                and screen.run_id == wanted
                and screen.run is not None
                and charts_drawn(pilot)
            )

        await wait_until(pilot, loaded, "the run detail")

    return opened


def test_history_detail_80x24(snap_compare, history_path: Path) -> None:  # type: ignore[no-untyped-def]
    # The second newest: stonewall_step... see order
    app = HistoryApp(history_path)
    assert snap_compare(app, terminal_size=SMALL, run_before=open_run(1))


def test_history_detail_160x50(snap_compare, history_path: Path) -> None:  # type: ignore[no-untyped-def]
    app = HistoryApp(history_path)
    assert snap_compare(app, terminal_size=LARGE, run_before=open_run())


def test_history_suite_and_old_run_80x24(snap_compare, suite_history_path: Path) -> None:  # type: ignore[no-untyped-def]
    """ "2 jobs" instead of a mixed average, † on the old run, the legend, and the
    highlighted run in full under the table."""
    app = HistoryApp(suite_history_path)
    assert snap_compare(app, terminal_size=SMALL, run_before=listed)


def test_history_old_run_detail_80x24(snap_compare, suite_history_path: Path) -> None:  # type: ignore[no-untyped-def]
    app = HistoryApp(suite_history_path)
    assert snap_compare(app, terminal_size=SMALL, run_before=open_run())


def test_history_suite_detail_160x50(snap_compare, suite_history_path: Path) -> None:  # type: ignore[no-untyped-def]
    app = HistoryApp(suite_history_path)
    assert snap_compare(app, terminal_size=LARGE, run_before=open_run(1))


# -- setup -----------------------------------------------------------------------------------


def test_setup_from_mergerfs_pool_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """The setup screen aimed at a mergerfs pool of the demo NAS. (On the dashboard, b
    refuses recorded hosts, so the screen is pushed the way action_bench pushes it.)"""

    async def setup(pilot: Pilot[None]) -> None:
        from tierdeck.screens.bench.setup import BenchSetupScreen

        app = pilot.app
        assert isinstance(app, TierdeckApp)
        await wait_for_inventory(pilot, app)
        await pilot.press("3")
        assert app.inventory is not None
        app.push_screen(BenchSetupScreen(app.host, app.inventory, initial_path="/mnt/cached"))
        await wait_until(pilot, lambda: app.screen.id == "bench-setup", "the setup screen")

    app = TierdeckApp(load_demo_host(), demo=True, hotplug=False)
    assert snap_compare(app, terminal_size=SMALL, run_before=setup)


def test_setup_unused_disk_raw_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """b on an unused disk of the lab: the raw device, and what raw mode will ask and
    destroy, in words."""

    async def setup(pilot: Pilot[None]) -> None:
        from tierdeck.app.bench.targets import suggest_target
        from tierdeck.screens.bench.setup import BenchSetupScreen

        app = pilot.app
        assert isinstance(app, TierdeckApp)
        await wait_for_inventory(pilot, app)
        inv = lab_inventory()
        choice = suggest_target(inv, inv.disk("loop4"))
        app.push_screen(BenchSetupScreen(app.host, inv, initial_path=choice.path, note=choice.note))
        await wait_until(pilot, lambda: app.screen.id == "bench-setup", "the setup screen")

    app = TierdeckApp(load_demo_host(), demo=True, hotplug=False)
    assert snap_compare(app, terminal_size=SMALL, run_before=setup)


def test_setup_member_disk_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """b on a btrfs member: no target, and what holds it and what to benchmark."""

    async def setup(pilot: Pilot[None]) -> None:
        from tierdeck.app.bench.targets import suggest_target
        from tierdeck.screens.bench.setup import BenchSetupScreen

        app = pilot.app
        assert isinstance(app, TierdeckApp)
        await wait_for_inventory(pilot, app)
        inv = lab_inventory()
        choice = suggest_target(inv, inv.disk("loop1"))
        app.push_screen(BenchSetupScreen(app.host, inv, initial_path=choice.path, note=choice.note))
        await wait_until(pilot, lambda: app.screen.id == "bench-setup", "the setup screen")

    app = TierdeckApp(load_demo_host(), demo=True, hotplug=False)
    assert snap_compare(app, terminal_size=SMALL, run_before=setup)
