"""A fleet comparison in the TUI at 80x24: the hosts and how picked on the setup screen
(keyboard only), a confirmation naming where files are written, a line per host while
it runs, an unreachable host's reason on its line, the comparison at the end, and
cancel. The run is a recording (tests/snapshots/apps/fleet_run.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Select, SelectionList, Static
from tierdeck.app.clients.plan import ClientSpot
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.backends.host import RecordedHost
from tierdeck.screens.bench.clients_pick import IN_TURN, PARALLEL, ClientsPickScreen
from tierdeck.screens.bench.fleet_run import FleetRunScreen
from tierdeck.screens.modals.confirm import ConfirmScreen

from tests.pilot.bench.test_bench_setup import open_setup
from tests.pilot.conftest import CountingCollector
from tests.pilot.waiting import screen_text, shown_text
from tests.snapshots.apps.fleet_run import UNREACHABLE, FleetRunApp, RecordedFleet
from tests.waiting import wait_until

SIZE = (80, 24)


def question(app: Any) -> str:
    """The confirmation's question, unwrapped."""
    return shown_text(app.screen.query_one(".modal-question", Static))


def fleet_screen(app: Any) -> FleetRunScreen:
    return next(s for s in app.screen_stack if isinstance(s, FleetRunScreen))


async def test_each_host_has_its_line_then_the_ok_ones_are_compared() -> None:
    runner = RecordedFleet()
    app = FleetRunApp(runner)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: runner.paused, "nas2 running")
        screen = fleet_screen(app)
        text = screen_text(app)
        assert "✔ nas1  /mnt/storage  ok" in text and "run #21" in text
        assert "✘ attic  /srv/bench  no run" in text and UNREACHABLE in text
        assert "… nas2" in text
        assert not app.compared  # not before every host is done
        runner.release.set()
        await wait_until(pilot, lambda: not screen.running, "the end")
        await wait_until(pilot, lambda: app.compared == [[21, 22]], "the comparison opened")
        assert "enter: the 2 hosts that ran, side by side" in screen_text(app)
        await pilot.press("enter")  # again from the screen
        assert app.compared == [[21, 22], [21, 22]]


async def test_cancel_asks_then_stops_and_compares_nothing() -> None:
    runner = RecordedFleet()
    app = FleetRunApp(runner)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: runner.paused, "nas2 running")
        screen = fleet_screen(app)
        await pilot.press("c")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        assert "hosts not started are skipped" in question(app)
        await pilot.press("y")
        await wait_until(pilot, lambda: not screen.running, "stopped")
        assert "✘ nas2  /mnt/storage  cancelled" in screen_text(app)
        assert app.compared == []


@pytest.mark.parametrize(("how", "presses"), [(IN_TURN, 1), (PARALLEL, 2)])
async def test_the_hosts_and_how_are_picked_then_confirmed(
    demo_host: RecordedHost,
    demo_collector: CountingCollector,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    how: str,
    presses: int,
) -> None:
    (tmp_path / "hosts.toml").write_text(
        '[[host]]\nname = "nas1"\nssh = "admin@nas1"\n\n[[host]]\nname = "nas2"\nssh = "nas2"\n'
    )
    monkeypatch.setenv("TIERDECK_CONFIG_DIR", str(tmp_path))
    opened: list[tuple[list[ClientSpot], dict[str, Any], bool]] = []
    app = TierdeckApp(demo_host, demo=True, collect=demo_collector, hotplug=False)
    monkeypatch.setattr(
        app, "open_fleet_run", lambda spots, asks, parallel: opened.append((spots, asks, parallel))
    )
    async with app.run_test(size=SIZE) as pilot:
        setup = await open_setup(pilot, app)
        await pilot.press("ctrl+l")
        await wait_until(pilot, lambda: isinstance(app.screen, ClientsPickScreen), "the picker")
        picker = app.screen
        picker.query_one(SelectionList).focus()
        await pilot.press("space", "down", "space", "tab", *"/srv/bench", "tab")
        assert picker.query_one(Select).has_focus
        await pilot.press("enter", *["down"] * presses, "enter")
        assert picker.query_one(Select).value == how
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        order = "all at once" if how == PARALLEL else "one at a time"
        asked = question(app)
        assert f"on 2 hosts, {order}?" in asked
        assert "written in /srv/bench on nas1, nas2" in asked
        await pilot.press("y")
        await wait_until(pilot, lambda: app.screen is setup, "back on the setup")
        assert len(opened) == 1
        spots, asks, parallel = opened[0]
        assert spots == [ClientSpot("nas1", "/srv/bench"), ClientSpot("nas2", "/srv/bench")]
        assert parallel is (how == PARALLEL)
        assert asks["nas2"].target == "/srv/bench" and asks["nas2"].preset == setup.preset_name
        assert asks["nas1"].name == f"{setup.preset_name} on nas1"


async def test_a_host_picked_without_a_folder_is_said_in_the_form(
    demo_host: RecordedHost,
    demo_collector: CountingCollector,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "hosts.toml").write_text('[[host]]\nname = "nas1"\nssh = "admin@nas1"\n')
    monkeypatch.setenv("TIERDECK_CONFIG_DIR", str(tmp_path))
    app = TierdeckApp(demo_host, demo=True, collect=demo_collector, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_setup(pilot, app)
        await pilot.press("ctrl+l")
        await wait_until(pilot, lambda: isinstance(app.screen, ClientsPickScreen), "the picker")
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert "tick at least one host" in screen_text(app)
        assert isinstance(app.screen, ClientsPickScreen)
        assert not app.screen.query_one(Input).value
