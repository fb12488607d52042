"""SVG snapshots of the dashboard on the demo NAS (seed 000), plus one degraded NAS.

Plain sync functions (an ``asyncio.run`` inside an async test breaks later snapshots),
fixed terminal sizes, fixed data, no clock, no blinking cursor. Update after a deliberate
UI change with ``pytest tests/snapshots --snapshot-update`` and look at the SVGs.
"""

from __future__ import annotations

from textual.pilot import Pilot
from tierdeck.app.machine.demo import load_demo_host
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.widgets.dashboard.mergerfs_tables import BranchTable, MergerfsPoolTable

from tests.pilot.waiting import wait_for_health, wait_for_inventory
from tests.snapshots.apps.inventories import degraded_inventory
from tests.waiting import wait_until

SMALL = (80, 24)
LARGE = (160, 50)


def demo_app() -> TierdeckApp:
    # The real collector on the recorded host: the snapshot shows what --demo shows.
    return TierdeckApp(load_demo_host(), demo=True, hotplug=False)


class _Host:
    hostname = "sickbox"


def degraded_app() -> TierdeckApp:
    return TierdeckApp(_Host(), collect=lambda host: degraded_inventory(), hotplug=False)  # type: ignore[arg-type]


async def loaded(pilot: Pilot[None]) -> None:
    assert isinstance(pilot.app, TierdeckApp)
    await wait_for_inventory(pilot, pilot.app)
    # health lands after the inventory: the snapshot shows the Health column filled
    await wait_for_health(pilot, pilot.app)


def test_demo_disks_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(demo_app(), terminal_size=SMALL, run_before=loaded)


def test_demo_disks_160x50(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(demo_app(), terminal_size=LARGE, run_before=loaded)


def test_demo_pools_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(demo_app(), press=["2"], terminal_size=SMALL, run_before=loaded)


def test_demo_pools_160x50(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(demo_app(), press=["2"], terminal_size=LARGE, run_before=loaded)


def test_demo_mergerfs_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(demo_app(), press=["3"], terminal_size=SMALL, run_before=loaded)


async def second_pool(pilot: Pilot[None]) -> None:
    """The mergerfs tab with the second pool highlighted, once its branches are shown:
    the branch table follows the highlight by a message, which a loaded machine may not
    have handled when the keys alone have been pressed."""
    await loaded(pilot)
    await pilot.press("3", "down")
    pools = pilot.app.screen.query_one(MergerfsPoolTable)
    branches = pilot.app.screen.query_one(BranchTable)
    await wait_until(
        pilot,
        lambda: len(pools.pools) > 1 and branches.pool is pools.pools[1],
        "the second pool's branches",
    )


def test_demo_mergerfs_second_pool_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(demo_app(), terminal_size=SMALL, run_before=second_pool)


def test_demo_mergerfs_160x50(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(demo_app(), press=["3"], terminal_size=LARGE, run_before=loaded)


def test_demo_problems_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(demo_app(), press=["4"], terminal_size=SMALL, run_before=loaded)


def test_demo_help_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(demo_app(), press=["question_mark"], terminal_size=SMALL,
                        run_before=loaded)  # fmt: skip


def test_degraded_pools_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(degraded_app(), press=["2"], terminal_size=SMALL, run_before=loaded)


def test_degraded_problems_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(degraded_app(), press=["4"], terminal_size=SMALL, run_before=loaded)


def test_degraded_mergerfs_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(degraded_app(), press=["3", "tab", "down"], terminal_size=SMALL,
                        run_before=loaded)  # fmt: skip
