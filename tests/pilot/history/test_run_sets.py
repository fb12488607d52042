"""The stored sweeps and ladders from the history, by keyboard: W lists every set
(newest first) and opens the one picked, a sweep's matrix as stored or a ladder's
table rebuilt from its rungs' runs (app/ladder/store); w on a run tagged ladder:N
opens its ladder; with none stored, W says so."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from tierdeck.app.history.run_sets import RunSetKind, RunSetStore, set_tag
from tierdeck.app.sweep.store import SweepSettings, definition_of
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.backends.host import RecordedHost
from tierdeck.core.ladder.model import RungKind
from tierdeck.core.sweep.model import Axis, SweepSpec
from tierdeck.screens.modals.choice import ChoiceScreen
from tierdeck.screens.sequence.ladder import LadderScreen
from tierdeck.screens.sequence.sweep import SweepScreen

from tests.pilot.conftest import CountingCollector
from tests.pilot.waiting import open_history, screen_text
from tests.snapshots.apps.bench_data import load_events, result_of
from tests.waiting import wait_until

SIZE = (80, 24)


@pytest.fixture
def history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TIERDECK_DATA_DIR", str(tmp_path / "data"))
    return tmp_path


def store_sets() -> tuple[int, int]:
    """A one-axis sweep (two recorded runs) and a ladder (branch and pool rungs run,
    tmpfs and nullrw skipped before fio), in a real history."""
    store = RunSetStore()
    run = result_of(load_events("pool_write"))
    spec = SweepSpec(axes=(Axis("numjobs", (1, 2)),), base={"rw": "write"}, name="two jobs")
    sweep = store.create(RunSetKind.SWEEP, "two jobs", definition_of(spec, SweepSettings()))
    for position, cell in enumerate(spec.cells()):
        run_id = store.save(dataclasses.replace(run, tags=(set_tag(RunSetKind.SWEEP, sweep),)))
        store.add_cell(sweep, cell.key, run_id, position)
    ladder = store.create(RunSetKind.LADDER, "ladder of /mnt/slow", {"pool": "/mnt/slow"})
    tags = (set_tag(RunSetKind.LADDER, ladder),)
    for position, (key, path) in enumerate([("branch:/mnt/disk1", "/mnt/disk1"), ("pool", "")]):
        target = dataclasses.replace(run.target, path=path or run.target.path)
        run_id = store.save(dataclasses.replace(run, tags=tags, target=target))
        store.add_cell(ladder, key, run_id, position)
    return sweep, ladder


async def test_w_capital_lists_the_sets_and_opens_the_one_picked(
    demo_host: RecordedHost, demo_collector: CountingCollector, history: Path
) -> None:
    sweep, ladder = store_sets()
    app = TierdeckApp(demo_host, demo=True, collect=demo_collector, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_history(pilot, app)
        await pilot.press("W")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the sets")
        text = screen_text(app)
        assert f"ladder #{ladder}" in text and f"sweep #{sweep}" in text
        assert text.index(f"ladder #{ladder}") < text.index(f"sweep #{sweep}")  # newest first
        await pilot.press("enter")  # the ladder
        await wait_until(pilot, lambda: isinstance(app.screen, LadderScreen), "the ladder")
        view = app.screen
        assert isinstance(view, LadderScreen)
        assert view.ladder_id == ladder and view.pool == "/mnt/slow"
        assert [r.kind for r in view.rungs] == [
            RungKind.BRANCH,
            RungKind.POOL,
            RungKind.TMPFS,
            RungKind.NULLRW,
        ]
        assert not view.running and "no run stored" in screen_text(app)
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen, "back to the history")
        await pilot.press("W")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the sets again")
        await pilot.press("down", "enter")  # the sweep
        await wait_until(pilot, lambda: isinstance(app.screen, SweepScreen), "the sweep")
        opened = app.screen
        assert isinstance(opened, SweepScreen)
        assert opened.result.id == sweep and opened.result.complete and not opened.running


async def test_w_on_a_ladders_run_opens_it_and_no_sets_is_said(
    demo_host: RecordedHost, demo_collector: CountingCollector, history: Path
) -> None:
    app = TierdeckApp(demo_host, demo=True, collect=demo_collector, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_history(pilot, app)
        await pilot.press("W")
        await wait_until(pilot, lambda: bool(app._notifications), "a notification")  # noqa: SLF001
        assert "No run sets stored yet" in list(app._notifications)[-1].message  # noqa: SLF001
        assert app.screen is screen
        _, ladder = store_sets()
        await pilot.press("r")
        await wait_until(pilot, lambda: screen.selected_run is not None, "the runs")
        # The newest run is the ladder's pool rung.
        await pilot.press("w")
        await wait_until(pilot, lambda: isinstance(app.screen, LadderScreen), "its ladder")
        view = app.screen
        assert isinstance(view, LadderScreen) and view.ladder_id == ladder


async def test_e_in_a_stored_sweep_writes_the_chosen_format_beside_never_over(
    demo_host: RecordedHost,
    demo_collector: CountingCollector,
    history: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sweep, _ = store_sets()
    monkeypatch.chdir(history)
    (history / f"tierdeck-sweep-{sweep}.csv").write_text("someone else's\n")
    app = TierdeckApp(demo_host, demo=True, collect=demo_collector, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_history(pilot, app)
        await pilot.press("W")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the sets")
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, SweepScreen), "the sweep")
        view = app.screen
        assert isinstance(view, SweepScreen)
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the formats")
        await pilot.press("down", "enter")  # CSV
        await wait_until(pilot, lambda: view.exported is not None, "the export")
    written = Path(view.exported or "")
    assert written.parent == history and written.name == f"tierdeck-sweep-{sweep}_2.csv"
    lines = written.read_text().splitlines()
    assert len(lines) == 1 + 2 and "numjobs" in lines[0]  # a row per cell (one direction)
    assert (history / f"tierdeck-sweep-{sweep}.csv").read_text() == "someone else's\n"
