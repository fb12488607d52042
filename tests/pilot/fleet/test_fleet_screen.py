"""The fleet screen with a fixed fleet (tests/snapshots/apps/fleet): rows fill in as
each host answers, a host that is down shows its error, r asks again, enter opens a
host's dashboard and f comes back; a host that is down is not opened."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import AsyncIterator

from textual.pilot import Pilot
from textual.widgets import DataTable
from tierdeck.app.machine.inventory import collect_inventory
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.backends.host import Host, RecordedHost
from tierdeck.core.models import Inventory
from tierdeck.screens.dashboard.dashboard import DashboardScreen
from tierdeck.screens.fleet.fleet import ASKING, FleetScreen
from tierdeck.screens.modals.help import HelpScreen

from tests.snapshots.apps.fleet import FixedFleet
from tests.waiting import wait_until


@contextlib.asynccontextmanager
async def answered(
    fleet: FixedFleet,
) -> AsyncIterator[tuple[TierdeckApp, Pilot[None], FleetScreen]]:
    """The app on ``fleet``, once every host has its row."""
    app = TierdeckApp(None, fleet=fleet, hotplug=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, FleetScreen)
        await wait_until(pilot, lambda: screen.collected == 1, "every row")
        yield app, pilot, screen


def _cell(app: TierdeckApp, row: str, column: str) -> str:
    table = app.screen.query_one("#fleet-table", DataTable)
    return str(table.get_cell(row, column))


async def test_rows_fill_in_as_each_host_answers() -> None:
    fleet = FixedFleet(held=True)
    app = TierdeckApp(None, fleet=fleet, hotplug=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, FleetScreen), "the fleet")
        assert all(_cell(app, e.name, "state") == ASKING for e in fleet.entries)
        fleet.answer("nas")
        await wait_until(pilot, lambda: _cell(app, "nas", "state") == "up", "nas's row")
        assert _cell(app, "backup", "state") == ASKING  # the others still wait
        fleet.answer("backup")
        fleet.answer("attic")
        await wait_until(pilot, lambda: _cell(app, "attic", "state") == "down", "attic's row")
        assert _cell(app, "attic", "problems") == "no answer within 10 s"
        assert _cell(app, "nas", "cache") == "91% >80"
        assert _cell(app, "backup", "pools") == "2: 1 crit"


async def test_r_asks_every_host_again() -> None:
    fleet = FixedFleet()
    async with answered(fleet) as (_, pilot, screen):
        await pilot.press("r")
        await wait_until(pilot, lambda: screen.collected == 2, "the second round")
        assert fleet.rounds == 2


async def test_enter_opens_the_hosts_dashboard_and_f_comes_back(demo_host: RecordedHost) -> None:
    async with answered(FixedFleet(opened=lambda: demo_host)) as (app, pilot, screen):
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.refreshes == 1, "the host's inventory")
        assert isinstance(app.screen, DashboardScreen)
        assert app.host is demo_host and app.inventory is not None
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        assert "back to the fleet of hosts" in [what for _, what in app.screen.rows]
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, DashboardScreen), "help closed")
        await pilot.press("f")
        await wait_until(pilot, lambda: app.screen is screen, "the fleet again")
        # a second host's dashboard starts from nothing of the first's
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, DashboardScreen), "backup")
        await wait_until(pilot, lambda: app.refreshes == 1 and app.inventory is not None,
                         "backup's inventory")  # fmt: skip


async def test_a_host_that_is_down_is_not_opened(demo_host: RecordedHost) -> None:
    async with answered(FixedFleet(opened=lambda: demo_host)) as (app, pilot, screen):
        await pilot.press("down", "down", "enter")
        await pilot.pause()
        assert app.screen is screen
        assert "no answer within 10 s" in str(screen.query_one("#fleet-current").render())


async def test_leaving_a_host_while_it_is_read_drops_its_late_answer(
    demo_host: RecordedHost,
) -> None:
    gate = threading.Event()
    done = threading.Event()

    def slow(host: Host) -> Inventory:
        gate.wait(30)
        try:
            return collect_inventory(host)
        finally:
            done.set()

    fleet = FixedFleet(opened=lambda: demo_host)
    app = TierdeckApp(None, fleet=fleet, hotplug=False, collect=slow)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, FleetScreen)
        await wait_until(pilot, lambda: screen.collected == 1, "every row")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, DashboardScreen), "the dashboard")
        await pilot.press("f")
        await wait_until(pilot, lambda: app.screen is screen, "the fleet again")
        gate.set()
        await wait_until(pilot, done.is_set, "the late inventory")
        await pilot.pause()
        assert app.screen is screen and app.refreshes == 0
