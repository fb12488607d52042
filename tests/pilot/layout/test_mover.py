"""The mover view by keyboard at 80x24, fed by a scripted run (tests/snapshots/apps/mover):
the forecast and the last run on opening, a move only after the confirmation, the live
bar and figures as files move, cancel, a refusal, and the help page."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, ProgressBar, Static, TabbedContent
from tierdeck.app.layout.files import save_layout
from tierdeck.app.mover.history import MoverHistory
from tierdeck.app.mover.run import MoverRefused, RefusalKind
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.backends.host import RecordedHost
from tierdeck.core.mergerfs_policy import CreateErrno
from tierdeck.core.mover import StopReason
from tierdeck.screens.layout.mover import MoverScreen, Phase
from tierdeck.screens.layout.mover_support import DEFAULT_LAYOUT_FILE, last_move
from tierdeck.screens.modals.confirm import ConfirmScreen, PromptScreen
from tierdeck.widgets.layout.mover_views import PlanTable

from tests.snapshots.apps.mover import (
    FORECAST,
    LAST_RUN,
    LAYOUT,
    LAYOUT_PATH,
    PLANNED,
    MoverApp,
    ScriptedRun,
)
from tests.waiting import wait_until

from ..modals.test_help import check_page, open_help
from ..waiting import screen_text, shown_text, wait_for_inventory

SIZE = (80, 24)


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The mover's records (the dashboard's proposed layout) in a folder of the test's."""
    folder = tmp_path / "data"
    monkeypatch.setenv("TIERDECK_DATA_DIR", str(folder))
    return folder


async def opened(pilot: Pilot[None]) -> MoverScreen:
    app = pilot.app

    def ready() -> bool:
        screen = app.screen
        return isinstance(screen, MoverScreen) and screen.phase is not Phase.FORECASTING

    await wait_until(pilot, ready, "the forecast")
    screen = app.screen
    assert isinstance(screen, MoverScreen)
    await wait_until(pilot, lambda: screen.last_run is not None, "the last run")
    return screen


async def start_move(pilot: Pilot[None], screen: MoverScreen) -> None:
    await pilot.press("m")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen), "the question")
    await pilot.press("y")
    await wait_until(pilot, lambda: screen.progress is not None, "the first progress")


async def test_opens_on_the_forecast_and_the_last_run() -> None:
    app = MoverApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        assert screen.phase is Phase.READY
        assert app.scripted.calls[0].dry_run
        forecast = shown_text(screen.query_one("#mover-forecast"))
        assert "Would move 6 files, 11G (4 by age, 2 by fill)" in forecast
        assert "Time: about 1:11 (best write bandwidth measured: /mnt/disk1 162M/s" in forecast
        assert "! 1 selected file (900G) fit on no slow branch: they stay on the cache." in forecast
        assert "/mnt/cache mounted noatime" in forecast
        table = screen.query_one(PlanTable)
        assert table.row_count == len(PLANNED)
        assert [str(c) for c in table.get_row_at(2)] == [
            "movies/Film (2019)/Film.mkv",
            "7.9G",
            "age",
            "/mnt/disk1",
        ]
        assert "m Move now" in screen_text(app)

        await pilot.press("2")
        report = shown_text(screen.query_one("#mover-report"))
        assert report.startswith("Last run: ")
        assert "Moved 3 files, 3.5G of 5 files planned" in report
        assert "open downloads/seeding.iso (qbittorrent)" in report
        assert "Recovered 1 move a crash had left." in report


async def test_no_history_and_no_bandwidth_are_said() -> None:
    bare = ScriptedRun(forecast=dataclasses.replace(
        FORECAST, forecast_seconds=None, forecast_note="no benchmark history",
        noatime_branches=(), unplaced=()))  # fmt: skip
    app = MoverApp(run=bare, last=None)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened_without_last(pilot)
        forecast = shown_text(screen.query_one("#mover-forecast"))
        assert "Time: unknown (no benchmark history; b on the dashboard measures" in forecast
        assert "noatime" not in forecast and "no slow branch" not in forecast
        await pilot.press("2")
        assert "No mover run recorded" in shown_text(screen.query_one("#mover-report"))


async def in_phase(pilot: Pilot[None], phase: Phase, what: str) -> MoverScreen:
    app = pilot.app
    await wait_until(
        pilot, lambda: isinstance(app.screen, MoverScreen) and app.screen.phase is phase, what
    )
    assert isinstance(app.screen, MoverScreen)
    return app.screen


async def opened_without_last(pilot: Pilot[None]) -> MoverScreen:
    return await in_phase(pilot, Phase.READY, "the forecast")


async def test_moving_asks_first_then_shows_live_progress_and_the_report() -> None:
    app = MoverApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await pilot.press("m")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        assert "Move 6 files (11G)" in screen_text(app)
        await pilot.press("n")  # not now: nothing runs
        await wait_until(pilot, lambda: app.screen is screen, "the view again")
        assert len(app.scripted.calls) == 1 and screen.phase is Phase.READY

        await start_move(pilot, screen)
        assert not app.scripted.calls[1].dry_run
        assert screen.phase is Phase.MOVING
        assert "m Move now" not in screen_text(app) and "c Cancel" in screen_text(app)
        app.scripted.step(2)
        await wait_until(pilot, lambda: screen.progress and screen.progress.files_done == 2, "2")
        bar = screen.query_one(ProgressBar)
        assert bar.progress == PLANNED[0].file.size + PLANNED[1].file.size
        assert bar.total == sum(m.file.size for m in PLANNED)
        live = shown_text(screen.query_one("#mover-progress"))
        assert live.startswith("2/6 files · 2.7G of 11G · 100.0 MiB/s · ETA ")
        assert "now: movies/Film (2019)/Film.mkv" in live

        await pilot.press("escape")  # cancels while moving; never leaves a move unseen
        await wait_until(pilot, lambda: screen.phase is Phase.DONE, "the stop")
        assert app.screen is screen
        app.scripted.step(10)  # a late step changes nothing: the run has returned

        assert screen.report is not None and screen.report.stopped is StopReason.CANCELLED
        assert screen.query_one(TabbedContent).active == "tab-report"
        assert "stopped (cancelled): moved 2 of 6 files" in shown_text(
            screen.query_one("#mover-head")
        )
        report = shown_text(screen.query_one("#mover-report"))
        assert report.startswith("This run: ")
        assert "Moved 2 files, 2.7G of 6 files planned" in report
        assert "Stopped: cancelled. Every file is whole, in one place." in report
        await pilot.press("escape")  # after the run: back
        await wait_until(pilot, lambda: not isinstance(app.screen, MoverScreen), "back")


async def test_a_whole_move_ends_done() -> None:
    app = MoverApp()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await start_move(pilot, screen)
        app.scripted.step(len(PLANNED))
        await wait_until(pilot, lambda: screen.phase is Phase.DONE, "the end")
        assert screen.report is not None and screen.report.files_moved == len(PLANNED)
        assert "done: moved 6 of 6 files" in shown_text(screen.query_one("#mover-head"))
        assert screen.query_one(ProgressBar).percentage == 1.0
        await pilot.press("f")  # forecast again: a dry run
        await wait_until(pilot, lambda: screen.phase is Phase.READY, "the new forecast")
        assert [c.dry_run for c in app.scripted.calls] == [True, False, True]


async def test_a_refusal_is_shown_and_nothing_can_be_moved() -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise MoverRefused(RefusalKind.LOCKED, "another mover runs for media.toml")

    app = MoverApp(run=refuse)  # type: ignore[arg-type]
    async with app.run_test(size=SIZE) as pilot:
        screen = await in_phase(pilot, Phase.FAILED, "the refusal")
        assert "✘ another mover runs for media.toml" in shown_text(
            screen.query_one("#mover-forecast")
        )
        await pilot.press("m")
        await pilot.pause()
        assert app.screen is screen and not isinstance(app.screen, ConfirmScreen)
        assert "Move now" not in screen_text(app)


def demo_app(host: RecordedHost) -> TierdeckApp:
    return TierdeckApp(host, demo=True, hotplug=False)


async def test_help_lists_every_key(demo_host: RecordedHost) -> None:
    app = demo_app(demo_host)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_inventory(pilot, app)
        screen = MoverScreen(LAYOUT, LAYOUT_PATH, run=ScriptedRun(), last_run=lambda: LAST_RUN)
        app.push_screen(screen)
        await wait_until(pilot, lambda: screen.phase is Phase.READY, "the forecast")
        page = await open_help(pilot, screen)
        check_page(app, page, screen)


async def test_dashboard_m_asks_for_a_layout_file(demo_host: RecordedHost, tmp_path: Path) -> None:
    saved = tmp_path / "media.toml"
    save_layout(saved, LAYOUT)
    app = demo_app(demo_host)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_inventory(pilot, app)
        await pilot.press("m")
        await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen), "the prompt")
        field = app.screen.query_one(Input)
        assert field.value == DEFAULT_LAYOUT_FILE  # no run recorded: compose's save name
        field.value = str(tmp_path / "missing.toml")
        await pilot.press("enter")  # not a file: said under the field, the prompt stays
        error = app.screen.query_one("#prompt-error", Static)
        await wait_until(pilot, lambda: "No such file" in str(error.content), "the error")
        field.value = str(saved)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, MoverScreen), "the mover view")
        screen = app.screen
        assert isinstance(screen, MoverScreen)
        assert screen.tier_layout == LAYOUT and screen.layout_path == saved
        # The demo is a recording: the mover refuses it, and the view says so.
        await wait_until(pilot, lambda: screen.phase is Phase.FAILED, "the refusal")
        assert "Move now" not in screen_text(app)
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.dashboard, "the dashboard")


async def test_dashboard_proposes_the_layout_of_the_last_run(demo_host: RecordedHost) -> None:
    MoverHistory().add(LAST_RUN)
    app = demo_app(demo_host)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_inventory(pilot, app)
        await pilot.press("m")
        await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen), "the prompt")
        assert app.screen.query_one(Input).value == str(LAYOUT_PATH)


async def test_the_last_move_comes_from_the_records_not_the_forecasts(data_dir: Path) -> None:
    history = MoverHistory()
    history.add(LAST_RUN)
    forecast = dataclasses.replace(LAST_RUN, dry_run=True, started=LAST_RUN.started + 60)
    history.add(forecast)  # every forecast the view makes is recorded, newer
    assert last_move(LAYOUT_PATH) == dataclasses.replace(LAST_RUN, id=1)
    assert last_move(Path("/etc/tierdeck/other.toml")) is None


async def test_compose_v_saves_the_layout_then_opens_its_mover(
    demo_host: RecordedHost, tmp_path: Path
) -> None:
    from tierdeck.app.layout.files import load_layout
    from tierdeck.screens.layout.compose import ComposeScreen

    from .test_compose import highlight, open_compose

    app = demo_app(demo_host)
    async with app.run_test(size=SIZE) as pilot:
        compose = await open_compose(pilot, app)  # a layout no rule refuses
        await highlight(pilot, compose, "/cache")
        await pilot.press("c")
        await highlight(pilot, compose, "/mnt/disk1")
        await pilot.press("s", "v")
        await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen), "the prompt")
        assert app.screen.query_one(Input).value == DEFAULT_LAYOUT_FILE
        target = tmp_path / "from-compose.toml"
        app.screen.query_one(Input).value = str(target)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, MoverScreen), "the mover view")
        screen = app.screen
        assert isinstance(screen, MoverScreen)
        assert compose.evaluation is not None
        assert screen.tier_layout == compose.evaluation.layout == load_layout(target)
        assert screen.layout_path == target
        await wait_until(pilot, lambda: screen.phase is Phase.FAILED, "the demo's refusal")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ComposeScreen), "compose again")


async def test_a_forecast_that_places_nothing_says_why_and_offers_no_move() -> None:
    # Every selected file refused (a read-only slow branch): the state line must not
    # offer m, the forecast says why, and the last run counts the files it left.
    stuck = dataclasses.replace(
        FORECAST, planned=(), unplaced=tuple(
            dataclasses.replace(u, error=CreateErrno.EROFS) for u in FORECAST.unplaced),
        unplaced_reason="slow branch /mnt/disk1 is mounted read-only",
    )  # fmt: skip
    last = dataclasses.replace(
        LAST_RUN, unplaced=188, message="moved 3 files, 3.5G; 188 selected files fit on no "
        "slow branch (slow branch /mnt/disk1 is mounted read-only)",
    )  # fmt: skip
    app = MoverApp(run=ScriptedRun(forecast=stuck), last=last)
    async with app.run_test(size=SIZE) as pilot:
        screen = await in_phase(pilot, Phase.NOTHING, "the forecast")
        head = shown_text(screen.query_one("#mover-head"))
        assert "m moves" not in head and "nothing to move now" in head
        forecast = shown_text(screen.query_one("#mover-forecast"))
        assert "Nothing to move now." in forecast
        assert "slow branch /mnt/disk1 is mounted read-only" in forecast
        await pilot.press("2")
        await wait_until(pilot, lambda: screen.last_run is not None, "the last run")
        report = shown_text(screen.query_one("#mover-report"))
        assert "Not moved: 188 selected files fit on no slow branch" in report
