"""SVG snapshots at 80x24 of the forms that start a run on other hosts: the hosts
picked from the fleet with how to run them (a fleet comparison, one at a time), the
fleet comparison's screen midway (one host done, one unreachable with its reason, one
running: tests/snapshots/apps/fleet_run), and the ladder's menu with a network rung
and the prompt that sets it. Update after a deliberate UI change with
``pytest tests/snapshots --snapshot-update`` and look at the SVGs."""

from __future__ import annotations

from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Select, SelectionList
from tierdeck.app.clients.plan import ClientSpot
from tierdeck.app.fleet.config import FleetHost
from tierdeck.screens.bench.clients_pick import IN_TURN, ClientsPickScreen
from tierdeck.screens.modals.choice import ChoiceScreen
from tierdeck.screens.modals.confirm import PromptScreen
from tierdeck.screens.sequence.ladder_setup import LadderChoice, ask_ladder_choice

from tests.snapshots.apps.fleet_run import FleetRunApp, RecordedFleet
from tests.snapshots.apps.inventories import degraded_inventory
from tests.waiting import wait_until

SMALL = (80, 24)
FLEET = (FleetHost("nas1", "admin@nas1"), FleetHost("nas2", "nas2"),
         FleetHost("attic", "admin@10.0.0.9:2222"))  # fmt: skip


class OneModal(App[None]):
    CSS_PATH = "../../app/tui/tierdeck.tcss"
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, network: bool = False) -> None:
        super().__init__()
        self.network = network
        self.title = "tierdeck — nas"

    def on_mount(self) -> None:
        if not self.network:
            self.push_screen(ClientsPickScreen(FLEET, "/srv/bench"))
            return
        pool = degraded_inventory().mergerfs[0]
        choice = LadderChoice(client=ClientSpot("laptop", "/mnt/nas"))
        ask_ladder_choice(self.screen, pool, lambda _: None, choice, "network")


def test_hosts_picked_to_compare_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def picked(pilot: Pilot[None]) -> None:
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ClientsPickScreen), "it")
        screen = pilot.app.screen
        screen.query_one(SelectionList).focus()
        await pilot.press("space", "down", "space")
        screen.query_one(Select).value = IN_TURN
        await pilot.pause()

    assert snap_compare(OneModal(), terminal_size=SMALL, run_before=picked)


def test_fleet_comparison_midway_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    runner = RecordedFleet()

    async def midway(pilot: Pilot[None]) -> None:
        await wait_until(pilot, lambda: runner.paused, "nas2 running")
        await pilot.pause()

    assert snap_compare(FleetRunApp(runner), terminal_size=SMALL, run_before=midway)


def test_ladder_menu_with_a_network_rung_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def menu(pilot: Pilot[None]) -> None:
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ChoiceScreen), "the menu")
        await pilot.pause()

    assert snap_compare(OneModal(network=True), terminal_size=SMALL, run_before=menu)


def test_network_rung_prompt_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def prompt(pilot: Pilot[None]) -> None:
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ChoiceScreen), "the menu")
        await pilot.pause()
        await pilot.press("enter")  # the network row, highlighted
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, PromptScreen), "prompt")
        await pilot.pause()

    assert snap_compare(OneModal(network=True), terminal_size=SMALL, run_before=prompt)
