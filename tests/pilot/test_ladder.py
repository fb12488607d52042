"""The layer-penalty ladder from the dashboard, by keyboard: p on a mergerfs pool asks
first, then the ladder view runs (app.ladder_run's plan and run replaced by a scripted
runner sending the real event types and a recorded fio run per rung): the rungs fill
the table, the penalties and the diagnosis come at the end, a cancel asks. p anywhere
but on a mergerfs pool, or on a recording, opens nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tierdeck.app import ladder_run
from tierdeck.app.tui import TierdeckApp
from tierdeck.backends.host import HostCapabilities, RecordedHost
from tierdeck.screens.confirm import ConfirmScreen
from tierdeck.screens.dashboard import DashboardScreen
from tierdeck.screens.ladder import LadderScreen

from tests.pilot.conftest import CountingCollector
from tests.pilot.waiting import screen_text, wait_for_inventory
from tests.snapshot_apps.ladder import RUNGS, ScriptedLadder
from tests.waiting import wait_until

SIZE = (80, 24)


class Planned:
    """plan_ladder's stand-in: records the pool it was asked for."""

    def __init__(self) -> None:
        self.pools: list[str] = []

    def __call__(self, host: Any, inventory: Any, pool: str, jobs: Any, **kwargs: Any) -> str:
        self.pools.append(pool)
        return "the plan"


@pytest.fixture
def scripted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Planned, ScriptedLadder]]:
    """A live-looking demo host (benchmarks allowed) and the ladder runner scripted."""
    monkeypatch.setenv("TIERDECK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(
        RecordedHost, "capabilities", property(lambda self: HostCapabilities(True, True, False))
    )
    planned = Planned()
    script = ScriptedLadder()

    async def run_ladder(
        service: Any, inventory: Any, plan: Any, on_event: Any, cancel: Any
    ) -> Any:
        assert plan == "the plan"
        return await script(on_event, cancel)

    monkeypatch.setattr(ladder_run, "plan_ladder", planned)
    monkeypatch.setattr(ladder_run, "run_ladder", run_ladder)
    yield planned, script


async def open_ladder(pilot: Any, app: TierdeckApp) -> LadderScreen:
    await wait_for_inventory(pilot, app)
    await pilot.press("3")  # the mergerfs tab, its first pool highlighted
    await pilot.press("p")
    await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
    assert "throwaway" in screen_text(app)
    await pilot.press("y")
    await wait_until(pilot, lambda: isinstance(app.screen, LadderScreen), "the ladder view")
    screen = app.screen
    assert isinstance(screen, LadderScreen)
    return screen


async def test_p_on_a_mergerfs_pool_runs_the_ladder(
    demo_host: RecordedHost,
    demo_collector: CountingCollector,
    scripted: tuple[Planned, ScriptedLadder],
) -> None:
    planned, script = scripted
    app = TierdeckApp(demo_host, demo=True, collect=demo_collector, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_ladder(pilot, app)
        assert app.inventory is not None
        assert planned.pools == [app.inventory.mergerfs[0].mountpoint]
        script.step()
        await wait_until(pilot, lambda: screen.rungs_done == 1, "the branch rung")
        text = screen_text(app)
        assert "1,240.3" in text and "rung 1 of 5" in text
        assert "Diagnosis" not in text
        script.step(4)
        await wait_until(pilot, lambda: not screen.running, "the ladder done")
        assert [r.kind for r in screen.rungs] == [r.kind for r in RUNGS]
        text = screen_text(app)
        assert "70 % vs branch" in text and "17 % vs nullrw" in text
        assert "↳ no room" in text  # the skipped branch says why
        assert "Diagnosis: mergerfs itself costs 70 %" in text
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, DashboardScreen), "back")


async def test_cancel_asks_and_skips_the_rest(
    demo_host: RecordedHost,
    demo_collector: CountingCollector,
    scripted: tuple[Planned, ScriptedLadder],
) -> None:
    _, script = scripted
    app = TierdeckApp(demo_host, demo=True, collect=demo_collector, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_ladder(pilot, app)
        script.step(3)
        await wait_until(pilot, lambda: screen.rungs_done == 3, "three rungs")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        assert "unmounted" in screen_text(app)
        await pilot.press("y")
        await wait_until(pilot, lambda: not screen.running, "stopped")
        assert len(screen.rungs) == 3 and script.started == 3
        assert isinstance(app.screen, LadderScreen)


async def test_p_elsewhere_or_on_a_recording_opens_nothing(
    demo_host: RecordedHost, demo_collector: CountingCollector
) -> None:
    app = TierdeckApp(demo_host, demo=True, collect=demo_collector, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_inventory(pilot, app)
        dashboard = app.screen
        await pilot.press("p")  # the disks tab: no pool highlighted
        await wait_until(pilot, lambda: bool(app._notifications), "a notification")  # noqa: SLF001
        assert "mergerfs pool" in list(app._notifications)[-1].message  # noqa: SLF001
        await pilot.press("3")
        await pilot.press("p")  # a pool, but the demo is a recording
        await wait_until(pilot, lambda: len(app._notifications) == 2, "the refusal")  # noqa: SLF001
        assert "recording" in list(app._notifications)[-1].message  # noqa: SLF001
        assert app.screen is dashboard
