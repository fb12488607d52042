"""SVG snapshots of the compose screen on the demo NAS (seed 000), started from its
/mnt/slow-storage pool (eplus, minfreespace 300G) with /cache added as the cache: two
rule errors to show. 80x24 (the mounts, the checks view, the options view, and its
mover part with the low watermark typed at the high one: the inline error) and 160x50
(the checks beside the mounts). Plain sync functions, fixed sizes, fixed data. Update after a
deliberate UI change with ``pytest tests/snapshots --snapshot-update`` and look at the SVGs.
"""

from __future__ import annotations

import pytest
from textual.pilot import Pilot
from tierdeck.app.machine.demo import load_demo_host
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.screens.layout.compose import ComposeScreen
from tierdeck.widgets.layout.compose_views import CandidateTable

from tests.pilot.waiting import wait_for_inventory
from tests.waiting import wait_until

SMALL = (80, 24)
LARGE = (160, 50)


def demo_app() -> TierdeckApp:
    return TierdeckApp(load_demo_host(), demo=True, hotplug=False)


def from_seed_pool(*keys: str):  # type: ignore[no-untyped-def]
    async def run_before(pilot: Pilot[None]) -> None:
        app = pilot.app
        assert isinstance(app, TierdeckApp)
        await wait_for_inventory(pilot, app)
        await pilot.press("3", "down", "l")  # the mergerfs tab, its second pool
        await wait_until(pilot, lambda: isinstance(app.screen, ComposeScreen), "compose")
        table = app.screen.query_one(CandidateTable)
        while table.highlighted_path != "/cache":
            await pilot.press("down")
        await pilot.press("c", *keys)

    return run_before


@pytest.mark.usefixtures("utc")
def test_compose_mounts_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(demo_app(), terminal_size=SMALL, run_before=from_seed_pool())


@pytest.mark.usefixtures("utc")
def test_compose_checks_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(demo_app(), terminal_size=SMALL, run_before=from_seed_pool("3"))


@pytest.mark.usefixtures("utc")
def test_compose_options_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(demo_app(), terminal_size=SMALL, run_before=from_seed_pool("2"))


@pytest.mark.usefixtures("utc")
def test_compose_160x50(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(demo_app(), terminal_size=LARGE, run_before=from_seed_pool())


def mover_error(pilot_keys: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    """The options view's mover part, the low watermark typed at the high one."""
    seed = from_seed_pool("2")

    async def run_before(pilot: Pilot[None]) -> None:
        await seed(pilot)
        pilot.app.screen.query_one("#opt-fill_low").focus()
        await pilot.press("ctrl+a", "ctrl+k", "8", "0", *pilot_keys)
        await pilot.pause()

    return run_before


@pytest.mark.usefixtures("utc")
def test_compose_mover_error_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(demo_app(), terminal_size=SMALL, run_before=mover_error())
