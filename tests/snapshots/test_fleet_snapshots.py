"""SVG snapshot of the fleet screen at 80x24: three hosts with fixed data
(tests/snapshots/apps/fleet), one of them down with its error; and the same with a
fourth that wants a password (its row in the ``login`` state, the cursor on it). Update after a
deliberate UI change with ``pytest tests/snapshots --snapshot-update``."""

from __future__ import annotations

from textual.pilot import Pilot
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.screens.fleet.fleet import FleetScreen

from tests.snapshots.apps.fleet import FixedFleet
from tests.waiting import wait_until


async def _answered(pilot: Pilot[None]) -> None:
    def done() -> bool:
        screen = pilot.app.screen
        return isinstance(screen, FleetScreen) and screen.collected == 1

    await wait_until(pilot, done, "every host's row")


def test_fleet_of_three_one_down_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    app = TierdeckApp(None, fleet=FixedFleet(), hotplug=False)
    assert snap_compare(app, terminal_size=(80, 24), run_before=_answered)


def test_fleet_row_that_needs_a_password_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def on_the_login_row(pilot: Pilot[None]) -> None:
        await _answered(pilot)
        await pilot.press("down", "down", "down")

    app = TierdeckApp(None, fleet=FixedFleet(login=True), hotplug=False)
    assert snap_compare(app, terminal_size=(80, 24), run_before=on_the_login_row)
