"""The host switcher by keyboard: o on a dashboard lists this machine and the hosts of
hosts.toml, and the one picked replaces the dashboard shown; a host that cannot be
reached is said, and the dashboard shown stays; the help lists the key."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import OptionList
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.app.tui.host_switch import NO_HOSTS, THIS_MACHINE
from tierdeck.backends.host import Host, LiveHost, RecordedHost
from tierdeck.core.models import Inventory
from tierdeck.screens.dashboard.dashboard import DashboardScreen
from tierdeck.screens.modals.choice import ChoiceScreen
from tierdeck.screens.modals.help import HelpScreen

from tests.waiting import wait_until

from ..waiting import shown_text


def _app(demo_host: RecordedHost) -> TierdeckApp:
    inventory: list[Inventory] = []

    def collect(host: Host) -> Inventory:  # every host shows the demo's disks: quick
        from tierdeck.app.machine.inventory import collect_inventory

        if not inventory:
            inventory.append(collect_inventory(demo_host))
        return inventory[0]

    return TierdeckApp(demo_host, collect=collect, hotplug=False)


async def _the_list(pilot: Pilot[None], app: TierdeckApp) -> None:
    """The dashboard once its inventory is in, then o's list."""
    await wait_until(pilot, lambda: app.refreshes == 1, "the demo's inventory")
    await pilot.press("o")
    await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the list")


def _choices(app: TierdeckApp) -> list[str]:
    options = app.screen.query_one(OptionList)
    return [str(options.get_option_at_index(i).id) for i in range(options.option_count)]


async def test_o_lists_this_machine_and_hosts_toml_and_opens_the_one_picked(
    demo_host: RecordedHost, _own_config: Path
) -> None:
    (_own_config / "hosts.toml").write_text('[[host]]\nname = "attic"\nssh = "root@attic"\n')
    app = _app(demo_host)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.refreshes == 1, "the demo's inventory")
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        assert any("another machine" in what for _, what in app.screen.rows)
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, DashboardScreen), "help closed")

        await _the_list(pilot, app)
        assert _choices(app) == [THIS_MACHINE, "attic"]
        await pilot.press("enter")  # this machine, first
        await wait_until(pilot, lambda: isinstance(app.host, LiveHost), "this machine")
        await wait_until(pilot, lambda: isinstance(app.screen, DashboardScreen)
                         and app.refreshes == 1, "its dashboard")  # fmt: skip
        assert app.screen.is_current and app.inventory is not None


async def test_a_host_that_cannot_be_reached_is_said_and_the_dashboard_stays(
    demo_host: RecordedHost, _own_config: Path
) -> None:
    # a port nothing listens on: refused at once
    (_own_config / "hosts.toml").write_text('[[host]]\nname = "gone"\nssh = "root@127.0.0.1:9"\n')
    app = _app(demo_host)
    async with app.run_test(size=(80, 24)) as pilot:
        dashboard = app.get_screen("dashboard")
        await _the_list(pilot, app)
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: any("127.0.0.1" in str(n.message)
                                            for n in app._notifications), "the refusal")  # fmt: skip
        assert app.screen is dashboard and app.host is demo_host


async def test_no_hosts_toml_offers_this_machine_and_says_how_to_add_hosts(
    demo_host: RecordedHost,
) -> None:
    app = _app(demo_host)
    async with app.run_test(size=(80, 24)) as pilot:
        await _the_list(pilot, app)
        assert _choices(app) == [THIS_MACHINE]
        assert "tierdeck fleet add" in shown_text(app.screen.query_one(".modal-question"))
        assert NO_HOSTS.startswith("more machines")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, DashboardScreen), "back")
        assert app.host is demo_host
