"""The sweep view, driven by keyboard with the sweep runner replaced by a scripted one
(tests/snapshots/apps/sweep.ScriptedSweep: the real event types, a recorded fio run per
cell): cells fill in as they finish with the running one marked, the matrix keys change
metric and axes, a cancel asks first and leaves the sweep resumable, R resumes it; and
from the history, w on a run tagged sweep:N opens its stored sweep."""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable
from tierdeck.app.history.run_sets import RunSetKind, RunSetStore
from tierdeck.app.sweep.store import SweepSettings, definition_of
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.app.tui.sequence_messages import SweepStart
from tierdeck.backends.host import RecordedHost
from tierdeck.core.compare.noise import Metric
from tierdeck.core.sweep.matrix import CellState
from tierdeck.screens.history.history import HistoryScreen
from tierdeck.screens.modals.confirm import ConfirmScreen
from tierdeck.screens.sequence.sweep import SweepScreen
from tierdeck.widgets.charts.series_chart import SeriesChart
from tierdeck.widgets.sequence.sweep_matrix import SweepMatrix

from tests.pilot.conftest import CountingCollector
from tests.pilot.waiting import open_history, paste_text, screen_text, wait_for_inventory
from tests.snapshots.apps.bench_data import load_events, result_of
from tests.snapshots.apps.sweep import FIGURES, SPEC, ScriptedSweep, SweepApp
from tests.snapshots.apps.sweep import result_of as sweep_result_of
from tests.waiting import wait_until

from ...paths import SWEEP_EXAMPLES
from ..conftest import OpenDashboard

SIZE = (80, 24)


def states(screen: SweepScreen) -> list[list[CellState]]:
    return [[c.state for c in row] for row in screen.query_one(SweepMatrix).matrix.cells]


async def test_cells_fill_in_with_the_running_one_marked() -> None:
    run = ScriptedSweep(sweep_result_of(SPEC, {}), FIGURES, hold_in_cell=True)
    app = SweepApp(sweep_result_of(SPEC, {}), run)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, SweepScreen)
        run.step()  # the first cell starts and holds
        await wait_until(pilot, lambda: screen.position == (1, 9), "cell 1 of 9 started")
        assert states(screen)[0][0] is CellState.RUNNING
        assert "run 1 of 9" in screen_text(app) and "▶ …" in screen_text(app)
        run.step(2)  # its run, then the second cell starts
        await wait_until(pilot, lambda: screen.cells_done == 1, "the first cell done")
        await wait_until(pilot, lambda: screen.position == (2, 9), "cell 2 started")
        matrix = screen.query_one(SweepMatrix).matrix
        assert matrix.cells[0][0].state is CellState.DONE
        assert matrix.cells[0][0].value == pytest.approx(148.2, abs=0.05)
        assert matrix.cells[0][0].run_id == 100
        assert matrix.cells[0][1].state is CellState.RUNNING
        assert matrix.cells[2][2].state is CellState.MISSING
        text = screen_text(app)
        assert "run 2 of 9" in text and "148" in text
        assert "sweep ETA" in text


async def test_keys_change_the_metric_and_the_axes() -> None:
    app = SweepApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, SweepScreen)
        matrix = screen.query_one(SweepMatrix)
        await wait_until(pilot, lambda: matrix.query_one(DataTable).row_count == 3, "rows")
        await pilot.press("m")
        assert matrix.choice.metric is Metric.IOPS
        await pilot.press("m")
        assert matrix.choice.metric is Metric.LAT_MEAN
        await wait_until(pilot, lambda: "mean latency (ms)" in screen_text(app), "caption")
        await pilot.press("s")
        assert (matrix.choice.rows, matrix.choice.cols) == ("buffer_compress_percentage", "numjobs")
        # The same run, transposed: numjobs=2 at 100 % is row 100, column 2.
        assert matrix.matrix.cells[2][1].run_id == 45
        assert matrix.query_one(DataTable).row_count == 3
        await pilot.press("d")
        assert matrix.choice.direction.value == "read"
        assert matrix.matrix.cells[0][0].state is CellState.NO_FIGURE
        chart = matrix.query_one(SeriesChart)
        assert chart.display
        await pilot.press("g")
        assert not chart.display


async def test_cancel_asks_then_keeps_the_sweep_resumable_and_r_resumes() -> None:
    run = ScriptedSweep(sweep_result_of(SPEC, {}), FIGURES)
    app = SweepApp(sweep_result_of(SPEC, {}), run)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, SweepScreen)
        run.step(2)
        await wait_until(pilot, lambda: screen.cells_done == 2, "two cells")
        await pilot.press("c")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        assert "--resume 3" in screen_text(app)
        await pilot.press("n")
        await wait_until(pilot, lambda: app.screen is screen, "back, still running")
        assert screen.running
        await pilot.press("c")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "asked again")
        await pilot.press("y")
        await wait_until(pilot, lambda: not screen.running, "the sweep stopped")
        assert screen.result.missing and len(screen.result.missing) == 7
        text = screen_text(app)
        assert "7 of 9 cells not run" in text and "--resume 3" in text
        assert all(s is CellState.MISSING for s in states(screen)[2])
        # R runs the missing cells only.
        resume = ScriptedSweep(screen.result, FIGURES)
        # The scripted run, planned from the rest (the planner runs in a thread).
        screen._resume = lambda: SweepStart(screen.result, resume)  # noqa: SLF001
        await pilot.press("R")
        await wait_until(pilot, lambda: screen.running, "resumed")
        resume.step(7)
        await wait_until(pilot, lambda: not screen.running, "finished")
        assert screen.result.complete
        assert resume.started == 7
        assert "every cell done" in screen_text(app)


@pytest.fixture
def stored_sweep(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    """A two-cell sweep in a real history: the set, two recorded runs tagged with it."""
    monkeypatch.setenv("TIERDECK_DATA_DIR", str(tmp_path / "data"))
    store = RunSetStore()
    from tierdeck.core.sweep.model import Axis, SweepSpec

    spec = SweepSpec(axes=(Axis("numjobs", (1, 2)),), base={"rw": "write"}, name="two jobs")
    set_id = store.create(RunSetKind.SWEEP, "two jobs", definition_of(spec, SweepSettings()))
    run = result_of(load_events("pool_write"))
    for position, cell in enumerate(spec.cells()):
        run_id = store.save(dataclasses.replace(run, tags=(f"sweep:{set_id}",)))
        store.add_cell(set_id, cell.key, run_id, position)
    return set_id


async def stored_sweep_from_history(
    pilot: Any, app: TierdeckApp
) -> tuple[HistoryScreen, SweepScreen]:
    """h, then w on the highlighted run (tagged sweep:N): the history, and over it the
    view of the run's stored sweep."""
    history = await open_history(pilot, app)
    await wait_until(pilot, lambda: history.selected_run is not None, "a run highlighted")
    await pilot.press("w")
    await wait_until(pilot, lambda: isinstance(app.screen, SweepScreen), "the sweep view")
    assert isinstance(app.screen, SweepScreen)
    return history, app.screen


async def test_w_in_the_history_opens_the_runs_sweep(
    stored_sweep: int, opened_dashboard: OpenDashboard
) -> None:
    async with opened_dashboard(SIZE) as (app, pilot):
        history, sweep = await stored_sweep_from_history(pilot, app)
        assert sweep.result.id == stored_sweep and sweep.result.complete
        assert [c.state for row in sweep.query_one(SweepMatrix).matrix.cells for c in row] == [
            CellState.DONE,
            CellState.DONE,
        ]
        assert "every cell done" in screen_text(app)
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is history, "back to the history")


@pytest.fixture
def live_demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A live-looking demo host (benchmarks allowed), a throwaway history, and the
    shipped seed 003 sweep file copied where the prompt can name it."""
    from tierdeck.backends.host import HostCapabilities

    monkeypatch.setenv("TIERDECK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(
        RecordedHost, "capabilities", property(lambda self: HostCapabilities(True, True, False))
    )
    example = SWEEP_EXAMPLES / "compress-x-jobs-matrix.toml"
    copy = tmp_path / "compress.toml"
    copy.write_text(example.read_text())
    return copy


async def ask_for_sweep(pilot: Any, app: TierdeckApp, sweep_file: Path) -> SweepScreen:
    from tierdeck.screens.modals.confirm import PromptScreen

    await wait_for_inventory(pilot, app)
    await pilot.press("w")
    await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen), "the file prompt")
    await paste_text(pilot, str(sweep_file))
    await pilot.press("enter")
    await wait_until(pilot, lambda: "which directory" in screen_text(app), "the target prompt")
    await pilot.press(*"/mnt/cached", "enter")
    await wait_until(pilot, lambda: isinstance(app.screen, SweepScreen), "the sweep view")
    assert isinstance(app.screen, SweepScreen)
    return app.screen


async def test_the_sweep_is_checked_off_the_ui_thread_then_a_refusal_shows_by_kind(
    demo_host: RecordedHost,
    demo_collector: CountingCollector,
    live_demo: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tierdeck.app.sweep import run as sweep_run
    from tierdeck.app.sweep.cells import SweepRefusalKind, SweepRefused

    gate = threading.Event()
    threads: list[str] = []

    def plan_sweep(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.current_thread().name)
        assert gate.wait(30), "the test never let the plan go"
        raise SweepRefused(SweepRefusalKind.FIO, "cell numjobs=2: fio: unknown option zork")

    monkeypatch.setattr(sweep_run, "plan_sweep", plan_sweep)
    app = TierdeckApp(demo_host, demo=True, collect=demo_collector, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        try:
            screen = await ask_for_sweep(pilot, app, live_demo)
            await wait_until(pilot, lambda: screen.planning, "checking")
            assert "checking the sweep" in screen_text(app)
            await wait_until(pilot, lambda: bool(threads), "the plan, in its thread")
            # Held on the event, the view answers: m changes the (empty) matrix's metric.
            await pilot.press("m")
            assert screen.query_one(SweepMatrix).choice.metric is Metric.IOPS
        finally:
            gate.set()
        assert threads and threads[0] != threading.main_thread().name
        await wait_until(pilot, lambda: screen.refusal is not None, "the refusal")
        assert screen.refusal is not None
        assert screen.refusal.headline == "fio refuses an option or a value of a cell"
        text = " ".join(screen_text(app).split())  # the reason wraps under the head
        assert "✘ fio refuses an option or a value of a cell: cell numjobs=2" in text
        assert "unknown option zork" in text
        assert not screen.running
        await pilot.press("R")  # nothing to resume: no sweep was created
        assert not screen.planning
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, SweepScreen), "left")


async def test_a_sweep_that_passes_its_check_runs_in_the_view(
    demo_host: RecordedHost,
    demo_collector: CountingCollector,
    live_demo: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """plan_sweep creates the set (a stand-in here: fio --parse-only needs a real
    machine); the view then shows its id and runs the cells (scripted)."""
    from types import SimpleNamespace

    from tierdeck.app.sweep import run as sweep_run

    scripts: list[ScriptedSweep] = []

    def plan_sweep(host: Any, inventory: Any, spec: Any, **kwargs: Any) -> Any:
        store = kwargs["store"]
        set_id = store.create(RunSetKind.SWEEP, "s", definition_of(spec, SweepSettings()))
        return SimpleNamespace(set_id=set_id, spec=spec)

    async def run_sweep(service: Any, inventory: Any, plan: Any, on_event: Any, cancel: Any) -> Any:
        from tierdeck.app.sweep.store import load_result

        script = ScriptedSweep(load_result(RunSetStore(), plan.set_id), {})
        scripts.append(script)
        script.step(2)
        return await script(on_event, cancel)

    monkeypatch.setattr(sweep_run, "plan_sweep", plan_sweep)
    monkeypatch.setattr(sweep_run, "run_sweep", run_sweep)
    app = TierdeckApp(demo_host, demo=True, collect=demo_collector, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ask_for_sweep(pilot, app, live_demo)
        await wait_until(pilot, lambda: screen.cells_done == 2, "two cells run")
        assert screen.result.id == 1 and not screen.planning
        assert "Sweep #1" in screen_text(app) and "run 2 of 27" in screen_text(app)
        await pilot.press("c")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "cancel?")
        assert "--resume 1" in screen_text(app)
        await pilot.press("y")
        await wait_until(pilot, lambda: not screen.running, "stopped")


async def test_enter_on_a_cell_opens_its_run(
    stored_sweep: int, opened_dashboard: OpenDashboard
) -> None:
    from tierdeck.screens.history.run_detail import RunDetailScreen

    async with opened_dashboard(SIZE) as (app, pilot):
        _, sweep = await stored_sweep_from_history(pilot, app)
        table = sweep.query_one("#matrix-table", DataTable)
        await wait_until(pilot, lambda: table.row_count == 2, "the matrix")
        await pilot.press("enter")  # on the axis' own column: no run there
        await wait_until(pilot, lambda: bool(app._notifications), "a hint")  # noqa: SLF001
        assert app.screen is sweep
        await pilot.press("right", "down", "enter")  # numjobs=2
        await wait_until(pilot, lambda: isinstance(app.screen, RunDetailScreen), "the run")
        detail = app.screen
        assert isinstance(detail, RunDetailScreen)
        assert detail.run_id == sweep.result.cells[1].run_id is not None
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is sweep, "back on the sweep")
