"""The layer-penalty ladder from the dashboard, by keyboard: p on a mergerfs pool shows
a menu first (what runs; the job, all branches, an option sweep), then the ladder view
checks the plan in a thread and runs (app.ladder_run's plan and run replaced by a
scripted runner sending the real event types and a recorded fio run per rung): the
rungs fill the table, the penalties and the diagnosis come at the end, a cancel asks.
A refusal stays on the view, named by its kind; the view answers keys while the plan is
checked. p anywhere but on a mergerfs pool, or on a recording, opens nothing."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tierdeck.app.ladder import run as ladder_run
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.backends.host import HostCapabilities, RecordedHost
from tierdeck.screens.dashboard.dashboard import DashboardScreen
from tierdeck.screens.modals.choice import ChoiceScreen
from tierdeck.screens.modals.confirm import ConfirmScreen
from tierdeck.screens.sequence.ladder import LadderScreen

from tests.pilot.conftest import CountingCollector
from tests.pilot.waiting import screen_text, wait_for_inventory
from tests.snapshots.apps.ladder import RUNGS, ScriptedLadder
from tests.waiting import wait_until

from ..conftest import OpenDashboard

SIZE = (80, 24)


class Planned:
    """plan_ladder's stand-in: records what it was asked, may hold until ``gate`` is
    set (as fio --parse-only and the probes would) and may refuse."""

    def __init__(self) -> None:
        self.pools: list[str] = []
        self.asked: list[dict[str, Any]] = []
        self.jobs: list[Any] = []
        self.gate: threading.Event | None = None
        self.refuse: Exception | None = None
        self.thread: list[str] = []

    def __call__(self, host: Any, inventory: Any, pool: str, jobs: Any, **kwargs: Any) -> str:
        self.thread.append(threading.current_thread().name)
        if self.gate is not None:
            assert self.gate.wait(30), "the test never let the plan go"
        self.pools.append(pool)
        self.jobs.append(jobs)
        self.asked.append(kwargs)
        if self.refuse is not None:
            raise self.refuse
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


@pytest.fixture
def app(
    demo_host: RecordedHost,
    demo_collector: CountingCollector,
    scripted: tuple[Planned, ScriptedLadder],
) -> TierdeckApp:
    """The demo's dashboard app, live-looking, its ladder runner scripted."""
    return TierdeckApp(demo_host, demo=True, collect=demo_collector, hotplug=False)


async def open_menu(pilot: Any, app: TierdeckApp) -> ChoiceScreen:
    await wait_for_inventory(pilot, app)
    await pilot.press("3")  # the mergerfs tab, its first pool highlighted
    await pilot.press("p")
    await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the ladder's menu")
    await menu_rows(pilot, app)
    assert "throwaway" in screen_text(app)
    menu = app.screen
    assert isinstance(menu, ChoiceScreen)
    return menu


async def menu_again(pilot: Any, app: TierdeckApp, after: ChoiceScreen) -> ChoiceScreen:
    """The ladder's menu, back after a change made from ``after``."""
    await wait_until(
        pilot,
        lambda: (
            isinstance(app.screen, ChoiceScreen)
            and app.screen is not after
            and app.screen.box_title.startswith("Layer-penalty")
        ),
        "the menu again",
    )
    await menu_rows(pilot, app)
    assert isinstance(app.screen, ChoiceScreen)
    return app.screen


async def menu_rows(pilot: Any, app: TierdeckApp) -> None:
    """The menu's rows paint a frame after the screen is current (a loaded machine
    showed the title alone): wait for its last row."""
    await wait_until(pilot, lambda: "Each rung runs" in screen_text(app), "the menu's rows")


async def open_ladder(pilot: Any, app: TierdeckApp) -> LadderScreen:
    await open_menu(pilot, app)
    await pilot.press("enter")  # "Run it", highlighted first
    return await _view(pilot, app)


async def test_p_on_a_mergerfs_pool_runs_the_ladder(
    app: TierdeckApp,
    scripted: tuple[Planned, ScriptedLadder],
) -> None:
    planned, script = scripted
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_ladder(pilot, app)
        assert app.inventory is not None
        await wait_until(pilot, lambda: screen.running, "planned, running")
        assert planned.pools == [app.inventory.mergerfs[0].mountpoint]
        assert planned.jobs == [None]  # the default job
        assert planned.asked[0]["all_branches"] is False and planned.asked[0]["option"] is None
        assert planned.thread[0] != threading.main_thread().name
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
    app: TierdeckApp,
    scripted: tuple[Planned, ScriptedLadder],
) -> None:
    _, script = scripted
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


async def test_p_elsewhere_or_on_a_recording_opens_nothing(opened_dashboard: OpenDashboard) -> None:
    async with opened_dashboard(SIZE) as (app, pilot):
        dashboard = app.screen
        await pilot.press("p")  # the disks tab: no pool highlighted
        await wait_until(pilot, lambda: bool(app._notifications), "a notification")  # noqa: SLF001
        assert "mergerfs pool" in list(app._notifications)[-1].message  # noqa: SLF001
        await pilot.press("3")
        await pilot.press("p")  # a pool, but the demo is a recording
        await wait_until(pilot, lambda: len(app._notifications) == 2, "the refusal")  # noqa: SLF001
        assert "recording" in list(app._notifications)[-1].message  # noqa: SLF001
        assert app.screen is dashboard


async def test_the_plan_is_checked_off_the_ui_thread_and_escape_leaves(
    app: TierdeckApp,
    scripted: tuple[Planned, ScriptedLadder],
) -> None:
    from tierdeck.screens.modals.help import HelpScreen

    planned, script = scripted
    planned.gate = threading.Event()
    async with app.run_test(size=SIZE) as pilot:
        try:
            screen = await open_ladder(pilot, app)
            await wait_until(pilot, lambda: screen.planning, "checking the plan")
            assert "checking the ladder" in screen_text(app)
            # The plan is held on the event: the view still answers keys.
            await pilot.press("question_mark")
            await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
            await pilot.press("escape")
            await wait_until(pilot, lambda: app.screen is screen, "back on the ladder")
            assert screen.planning and not screen.running
            await pilot.press("escape")
            await wait_until(pilot, lambda: isinstance(app.screen, DashboardScreen), "left")
        finally:
            planned.gate.set()
        # The plan that passed after the view was left runs nothing.
        await wait_until(pilot, lambda: bool(planned.pools), "the plan returned")
        await pilot.pause()
        assert script.started == 0 and not screen.running


async def test_a_refusal_is_shown_by_its_kind_and_the_view_stays(
    app: TierdeckApp,
    scripted: tuple[Planned, ScriptedLadder],
) -> None:
    from tierdeck.app.ladder.plan import LadderRefusalKind, LadderRefused

    planned, _ = scripted
    planned.refuse = LadderRefused(LadderRefusalKind.POOL_UNREADABLE, "xattr said EPERM")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_ladder(pilot, app)
        await wait_until(pilot, lambda: screen.refusal is not None, "the refusal")
        assert screen.refusal is not None
        assert screen.refusal.headline == "The pool's settings cannot be read"
        text = screen_text(app)
        assert "The pool's settings cannot be read" in text and "xattr said EPERM" in text
        assert not screen.running and not screen.planning
        await pilot.press("down")  # still usable: scrolls, nothing breaks
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, DashboardScreen), "left")


async def test_the_menu_picks_the_job_all_branches_and_an_option_sweep(
    app: TierdeckApp,
    scripted: tuple[Planned, ScriptedLadder],
) -> None:
    from tierdeck.core.ladder.options import OptionSweep
    from tierdeck.core.presets import PRESETS
    from tierdeck.screens.modals.confirm import PromptScreen

    planned, _ = scripted
    async with app.run_test(size=SIZE) as pilot:
        menu = await open_menu(pilot, app)

        async def next_menu(after: ChoiceScreen) -> ChoiceScreen:
            return await menu_again(pilot, app, after)

        # The job: the second preset of the list (the first row is the default).
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: app.screen.box_title == "The ladder's job", "jobs")  # type: ignore[attr-defined]
        await pilot.press("down", "down", "enter")
        menu = await next_menu(menu)
        assert f"Job: {PRESETS[1].name}" in screen_text(app)
        # Every branch: one enter on its row toggles it (the menu comes back there).
        await pilot.press("down", "enter")
        menu = await next_menu(menu)
        assert "Branch rungs: every RW branch" in screen_text(app)
        await pilot.press("enter")  # the cursor stayed on the row: back off
        menu = await next_menu(menu)
        assert "Branch rungs: the one the pool picks" in screen_text(app)
        await pilot.press("enter")
        menu = await next_menu(menu)
        # The option sweep: cache.files, a value refused, then two good ones.
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: "Sweep which" in app.screen.box_title, "options")  # type: ignore[attr-defined]
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen), "the values")
        await pilot.press(*"off,bogus", "enter")
        await wait_until(pilot, lambda: "'bogus' is not one of" in screen_text(app), "refused")
        assert isinstance(app.screen, PromptScreen)
        await pilot.press(*["backspace"] * 5, *"partial", "enter")
        menu = await next_menu(menu)
        text = screen_text(app)
        assert "Option sweep: cache.files=off,partial" in text
        assert "Branch rungs" not in text  # an option sweep has no branch rungs
        await pilot.press("home", "enter")  # "Run it"
        await wait_until(pilot, lambda: isinstance(app.screen, LadderScreen), "the view")
        await wait_until(pilot, lambda: bool(planned.asked), "planned")
        assert planned.jobs == [PRESETS[1].jobs]
        assert planned.asked[0]["preset"] == PRESETS[1].name
        assert planned.asked[0]["all_branches"] is True
        assert planned.asked[0]["option"] == OptionSweep("cache.files", ("off", "partial"))


async def test_the_menu_says_buffered_and_why_before_running(
    app: TierdeckApp,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The pool refuses O_DIRECT (FUSE, EINVAL): the menu must not promise it."""
    import errno

    def probe(self: RecordedHost, directory: str, name: str, *, direct: bool) -> OSError | None:
        return OSError(errno.EINVAL, "Invalid argument") if direct else None

    monkeypatch.setattr(RecordedHost, "probe_write", probe)
    async with app.run_test(size=(120, 30)) as pilot:
        menu = await open_menu(pilot, app)
        note = str(menu.note)
        assert "O_DIRECT, 10 s" not in note
        assert "buffered on every rung because the pool refuses O_DIRECT (EINVAL" in note
        assert "caches dropped before each rung" in note  # the demo host is root
        text = " ".join(screen_text(app).split())
        assert "buffered on every rung" in text


async def test_the_menu_sets_how_long_each_rung_runs(
    app: TierdeckApp,
    scripted: tuple[Planned, ScriptedLadder],
) -> None:
    planned, _ = scripted
    async with app.run_test(size=(120, 30)) as pilot:
        menu = await open_menu(pilot, app)
        assert "Each rung runs: 10 s" in screen_text(app)
        assert "O_DIRECT, 10 s per rung" in str(menu.note)
        await pilot.press("end", "enter")
        await wait_until(
            pilot, lambda: app.screen.box_title == "How long each rung runs", "runtimes"
        )  # type: ignore[attr-defined]
        await pilot.press("down", "down", "down", "enter")  # default, 5 s, 10 s, 30 s
        menu = await menu_again(pilot, app, menu)
        assert "O_DIRECT, 30 s per rung" in str(menu.note)
        assert "Each rung runs: 30 s" in screen_text(app)
        await pilot.press("home", "enter")  # "Run it"
        await wait_until(pilot, lambda: bool(planned.asked), "planned")
        assert planned.asked[0]["runtime"] == 30


async def test_the_menu_adds_the_network_rung_from_a_client(
    app: TierdeckApp,
    scripted: tuple[Planned, ScriptedLadder],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """HOST:/PATH typed in the menu: checked as typed, said in the note (a server and
    test files on the client), handed to the plan as its client; the connection is
    closed when the ladder ends."""
    from tierdeck.app.clients.plan import ClientSpot
    from tierdeck.screens.modals.confirm import PromptScreen
    from tierdeck.screens.sequence import ladder_open

    planned, script = scripted
    closed: list[str] = []

    class Client:
        def __init__(self, spot: ClientSpot) -> None:
            self.spot = spot
            self.host = self

        def close(self) -> None:
            closed.append(self.spot.name)

    opened: list[ClientSpot | None] = []
    monkeypatch.setattr(
        ladder_open, "open_client", lambda spot: opened.append(spot) or (spot and Client(spot))
    )
    async with app.run_test(size=SIZE) as pilot:
        menu = await open_menu(pilot, app)
        assert "Network rung: none" in screen_text(app)
        await pilot.press("end", "up", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen), "the prompt")
        await pilot.press(*"laptop", "enter")
        await wait_until(pilot, lambda: "as HOST:/PATH" in screen_text(app), "refused")
        await pilot.press(*":/mnt/nas", "enter")
        menu = await menu_again(pilot, app, menu)
        assert "Network rung: laptop:/mnt/nas" in screen_text(app)
        note = " ".join(str(menu.note).split())
        assert "Last, from laptop over its mount /mnt/nas: a fio server" in note
        assert "its test files written in that folder, then removed" in note
        await pilot.press("home", "enter")  # "Run it"
        screen = await _view(pilot, app)
        await wait_until(pilot, lambda: bool(planned.asked), "planned")
        assert opened == [ClientSpot("laptop", "/mnt/nas")]
        assert planned.asked[0]["client"].spot == ClientSpot("laptop", "/mnt/nas")
        assert closed == []  # kept while the rungs run
        script.step(len(RUNGS))
        await wait_until(pilot, lambda: not screen.running and closed == ["laptop"], "closed")


async def _view(pilot: Any, app: TierdeckApp) -> LadderScreen:
    await wait_until(pilot, lambda: isinstance(app.screen, LadderScreen), "the view")
    assert isinstance(app.screen, LadderScreen)
    return app.screen


async def test_a_client_that_cannot_be_reached_is_said_on_the_view(
    app: TierdeckApp,
    scripted: tuple[Planned, ScriptedLadder],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tierdeck.app.clients.plan import ClientSpot
    from tierdeck.core.errors import TierdeckError
    from tierdeck.screens.sequence import ladder_open
    from tierdeck.screens.sequence.ladder_setup import LadderChoice

    def unreachable(spot: ClientSpot | None) -> None:
        raise TierdeckError(f"{spot.name if spot else '?'}: cannot connect: Connection refused")

    monkeypatch.setattr(ladder_open, "open_client", unreachable)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_inventory(pilot, app)
        pool = app.inventory.mergerfs[0].mountpoint  # type: ignore[union-attr]
        choice = LadderChoice(client=ClientSpot("laptop", "/mnt/nas"))
        ladder_open.start_ladder(app.screen, pool, choice)
        await _view(pilot, app)
        await wait_until(
            pilot, lambda: "laptop: cannot connect: Connection refused" in screen_text(app), "said"
        )
        assert not planned_any(scripted)


def planned_any(scripted: tuple[Planned, ScriptedLadder]) -> bool:
    return bool(scripted[0].asked)
