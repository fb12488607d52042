"""``?`` shows the keys of the screen it is pressed on, every one of its bindings.

Each test opens a screen of the real app (the demo NAS, recorded runs, a throwaway
history), presses ``?`` and reads the help page that comes up: its rows (every
binding's key must be a whole token there, so "b" cannot pass because "tab" is
listed) and the screen text (the page is that screen's, not the dashboard's).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.binding import Binding
from textual.pilot import Pilot
from textual.screen import Screen
from tierdeck.app.history.store import HistoryStore
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.screens.bench.run import RunScreen
from tierdeck.screens.bench.setup import BenchSetupScreen
from tierdeck.screens.history.run_detail import RunDetailScreen
from tierdeck.screens.modals.help import HelpScreen, binding_rows, key_label

from tests.pilot.waiting import open_history, screen_text
from tests.snapshots.apps.bench_data import (
    EMPTY_INVENTORY,
    ReplayRunner,
    fill_history,
    load_events,
    request_of,
)
from tests.waiting import wait_until

from ..conftest import OpenDashboard

SIZE = (80, 24)


def listed_keys(help_screen: HelpScreen) -> set[str]:
    return {token for keys, _ in help_screen.rows for token in keys.replace("/", " ").split()}


async def open_help(pilot: Pilot[None], screen: Screen[object]) -> HelpScreen:
    app = pilot.app
    await wait_until(pilot, lambda: app.screen is screen, f"{type(screen).__name__} on top")
    await pilot.press("question_mark")
    await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help page")
    page = app.screen
    assert isinstance(page, HelpScreen)
    return page


def check_page(app: TierdeckApp, page: HelpScreen, screen: Screen[object]) -> str:
    """Every binding of ``screen`` is on the page, and the page is that screen's."""
    keys = listed_keys(page)
    for binding in type(screen).BINDINGS:
        assert isinstance(binding, Binding)
        assert key_label(binding) in keys, f"help for {type(screen).__name__} lacks {binding.key}"
        assert binding.tooltip, f"{binding.key}: no tooltip to describe it on the help page"
    text = screen_text(app)
    title = getattr(screen, "HELP_TITLE", None)
    assert title and title in text
    return text


def test_rows_merge_keys_of_one_meaning_and_keep_screen_keys_first() -> None:
    rows = binding_rows(
        [
            Binding("c", "cancel", "Cancel", tooltip="cancel the run"),
            Binding("escape", "cancel", "Cancel", tooltip="cancel the run"),
            Binding("escape", "back", "Back", tooltip="back"),
            Binding("q", "quit", "Quit", tooltip="quit, asking first"),
        ],
        [Binding("q", "app.quit", "Quit", tooltip="quit"), Binding("f1", "help", tooltip="help")],
    )
    assert rows == [
        ("c / escape", "cancel the run"),
        ("escape", "back"),
        ("q", "quit, asking first"),  # the screen's q, not the app's
        ("f1", "help"),
    ]


async def test_dashboard_help_lists_its_keys_and_promises_nothing_missing(
    opened_dashboard: OpenDashboard,
) -> None:
    async with opened_dashboard(SIZE) as (app, pilot):
        dashboard = app.get_screen("dashboard")
        page = await open_help(pilot, dashboard)
        text = check_page(app, page, dashboard)
        for binding in app.BINDINGS:
            assert isinstance(binding, Binding)
            # f goes back to the fleet: only on a dashboard opened from one; o opens
            # another machine: not from the demo (its history is the demo's own)
            shown = binding.action not in ("fleet", "switch_host")
            assert (key_label(binding) in listed_keys(page)) is shown
        assert "refresh the inventory" in text
        every_word = " ".join(what for _, what in page.rows).lower()
        assert "compare" not in every_word  # there is no compare (yet)
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is dashboard, "the help closed")


async def test_setup_help_is_the_setups(opened_dashboard: OpenDashboard) -> None:
    async with opened_dashboard(SIZE) as (app, pilot):
        assert app.inventory is not None
        setup = BenchSetupScreen(app.host, app.inventory, initial_path="/mnt/cached")
        app.push_screen(setup)
        page = await open_help(pilot, setup)
        text = check_page(app, page, setup)
        assert "check the target, then start fio" in text
        assert "1 / 2 / 3 / 4" not in text  # not the dashboard's page
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is setup, "back on the setup")
        # In a text field ? is a character: F1 still opens the help.
        setup.query_one("#path").focus()
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help by F1")


async def test_run_help_is_the_run_screens_and_q_there_still_asks(
    opened_dashboard: OpenDashboard,
) -> None:
    events = load_events("pool_write")
    async with opened_dashboard(SIZE) as (app, pilot):
        paused: list[bool] = []
        run = RunScreen(
            ReplayRunner(events, samples=2, on_pause=lambda: paused.append(True)),
            app.inventory or EMPTY_INVENTORY,
            request_of(events),
        )
        app.push_screen(run)
        await wait_until(pilot, lambda: bool(paused), "the run in progress")
        page = await open_help(pilot, run)
        text = check_page(app, page, run)
        assert "cancel the run" in text
        # q on the help page is the run screen's q: stop fio only after asking.
        await pilot.press("q")
        await wait_until(pilot, lambda: app.screen is not page, "the help closed")
        assert app.is_running and run.running
        from tierdeck.screens.modals.confirm import ConfirmScreen

        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await wait_until(pilot, lambda: app.screen is run, "back on the run")


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> HistoryStore:
    monkeypatch.setenv("TIERDECK_DATA_DIR", str(tmp_path / "data"))
    history = HistoryStore()
    fill_history(history, ("pool_write", "suite_mixed"))
    return history


async def test_history_and_detail_help_are_theirs(
    store: HistoryStore, opened_dashboard: OpenDashboard
) -> None:
    async with opened_dashboard(SIZE) as (app, pilot):
        history = await open_history(pilot, app)
        page = await open_help(pilot, history)
        text = check_page(app, page, history)
        assert "failed and cancelled runs" in text
        await pilot.press("escape")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, RunDetailScreen), "the detail")
        detail = app.screen
        assert isinstance(detail, RunDetailScreen)
        page = await open_help(pilot, detail)
        check_page(app, page, detail)


async def test_sweep_and_ladder_help_are_theirs(opened_dashboard: OpenDashboard) -> None:
    from tierdeck.screens.sequence.ladder import LadderScreen
    from tierdeck.screens.sequence.sweep import SweepScreen

    from tests.snapshots.apps.ladder import LADDER, POOL
    from tests.snapshots.apps.sweep import SWEEP

    async with opened_dashboard(SIZE) as (app, pilot):
        sweep = SweepScreen(SWEEP)
        app.push_screen(sweep)
        page = await open_help(pilot, sweep)
        text = check_page(app, page, sweep)
        assert "next metric" in text and "swap the rows" in text
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is sweep, "back on the sweep")
        ladder = LadderScreen(POOL, result=LADDER)
        app.push_screen(ladder)
        page = await open_help(pilot, ladder)
        text = check_page(app, page, ladder)
        assert "cancel the ladder" in text
