"""Paint first, then refresh: the dashboard opens on the host's kept inventory, marked
with its age, and the fresh collection replaces it the moment it lands."""

from __future__ import annotations

import dataclasses
import re
import threading
import time
from pathlib import Path
from typing import Any

from textual.widgets import TabbedContent
from tierdeck.app.machine.snapshot import SnapshotStore
from tierdeck.app.tui import app as app_module
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.backends.host import RecordedHost
from tierdeck.core.health import find_problems
from tierdeck.core.models import Inventory
from tierdeck.screens.dashboard.dashboard import DashboardScreen
from tierdeck.widgets.dashboard.disk_table import DiskTable
from tierdeck.widgets.dashboard.skeleton import KEPT_REFUSAL

from ..conftest import CountingCollector
from ..waiting import screen_text, wait_for_failure, wait_for_inventory, wait_until

SIZE = (80, 24)


def degraded(inv: Inventory) -> Inventory:
    """The demo NAS a day later: its zpool degraded and sdb swapped for another model."""
    pools = tuple(dataclasses.replace(p, state="DEGRADED") for p in inv.zfs.pools)
    disks = tuple(
        dataclasses.replace(d, model="ST4000VN008-2DR1") if d.name == "sdb" else d
        for d in inv.disks
    )
    return dataclasses.replace(inv, zfs=dataclasses.replace(inv.zfs, pools=pools), disks=disks)


def keep(store: SnapshotStore, host: RecordedHost, inv: Inventory, age_s: float) -> None:
    store.save(host.identity, inv, find_problems(inv), taken_at=time.time() - age_s)


def kept_refusals(app: TierdeckApp) -> int:
    return sum(n.message == KEPT_REFUSAL for n in app._notifications)  # noqa: SLF001


def problems_label(app: TierdeckApp) -> str:
    return str(app.screen.query_one(TabbedContent).get_tab("problems").label)


async def test_kept_inventory_shown_at_once_then_replaced_by_the_fresh_one(
    demo_host: RecordedHost, demo_inventory: Inventory, tmp_path: Path
) -> None:
    store = SnapshotStore(tmp_path)
    keep(store, demo_host, demo_inventory, age_s=12)
    fresh = degraded(demo_inventory)
    collect = CountingCollector(lambda host: fresh)
    collect.gate = threading.Event()
    app = TierdeckApp(demo_host, demo=True, collect=collect, hotplug=False, snapshots=store)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "WDC" in screen_text(app), "the kept disks")
        # Before any collection lands: the kept disks, with their age, and no skeleton.
        assert app.refreshes == 0 and app.inventory == demo_inventory
        text = screen_text(app)
        age = re.search(r"as of (\d+) s ago, refreshing…", text)  # kept 12 s before
        assert age is not None and 12 <= int(age.group(1)) < 90
        assert "WDC WD180EDGZ" in text and "░" not in text
        assert problems_label(app) == "4 Problems"  # the kept one had none
        collect.gate.set()
        await wait_for_inventory(pilot, app)
        text = screen_text(app)
        assert "as of" not in text and "refreshing" not in text
        # What changed since the kept inventory is marked, and the banner says so.
        assert "refreshed: 2 changed (marked *)" in text
        table = app.screen.query_one(DiskTable)
        sdb = table.get_row_index("sdb")
        assert str(table.get_row_at(sdb)[0]) == "sdb*"
        assert str(table.get_row_at(table.get_row_index("sda"))[0]) == "sda"
        await pilot.press("2")
        await wait_until(pilot, lambda: "zpool cache*" in screen_text(app), "the marked zpool")


async def test_a_degraded_pool_wins_over_a_kept_healthy_one_at_once(
    demo_host: RecordedHost, demo_inventory: Inventory, tmp_path: Path
) -> None:
    """The stale mark stays until the fresh result lands; its problem is on screen in the
    very handler that receives it (no later step, no timer: well within the second)."""
    store = SnapshotStore(tmp_path)
    keep(store, demo_host, demo_inventory, age_s=3600)
    collect = CountingCollector(lambda host: degraded(demo_inventory))
    collect.gate = threading.Event()
    app = TierdeckApp(demo_host, demo=True, collect=collect, hotplug=False, snapshots=store)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "WDC" in screen_text(app), "the kept disks")
        assert re.search(r"as of 6\d min ago, refreshing…", screen_text(app))  # an hour
        collect.gate.set()

        def landed() -> bool:
            # Checked between the app's steps: never the fresh inventory without its
            # problem, never the kept one without its mark.
            if app.refreshes == 0:
                assert app.stale_since is not None and "(" not in problems_label(app)
                return False
            # the pool's problem, and the cache NVMe's media errors once health is read
            want = "(2)" if app.health_report is not None else "(1)"
            assert want in problems_label(app) and app.stale_since is None
            return True

        await wait_until(pilot, landed, "the fresh inventory")
        assert "as of" not in screen_text(app)
        await pilot.press("4")
        await wait_until(pilot, lambda: "pool is DEGRADED" in screen_text(app), "the problem")


async def test_a_failed_refresh_keeps_the_stale_mark(
    demo_host: RecordedHost, demo_inventory: Inventory, tmp_path: Path
) -> None:
    store = SnapshotStore(tmp_path)
    keep(store, demo_host, demo_inventory, age_s=300)
    collect = CountingCollector(lambda host: demo_inventory)
    collect.fail_with = RuntimeError("zpool hung")
    app = TierdeckApp(demo_host, demo=True, collect=collect, hotplug=False, snapshots=store)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_failure(pilot, app)
        await wait_until(
            pilot,
            lambda: re.search(
                r"as of [56] min ago, refresh failed: press r to retry", screen_text(app)
            ),
            "the stale mark with the failure",
        )
        assert app.stale_since is not None
        # Nothing is aimed at the machine from a kept inventory.
        for key in ("b", "l"):
            await pilot.press(key)
            await wait_until(pilot, lambda: kept_refusals(app) == 1, "the refusal")
            app.clear_notifications()
        assert isinstance(app.screen, DashboardScreen)
        collect.fail_with = None
        await pilot.press("r")
        await wait_for_inventory(pilot, app)
        assert app.stale_since is None and "as of" not in screen_text(app)


async def test_the_collection_is_kept_for_the_next_start(
    demo_host: RecordedHost, demo_inventory: Inventory, tmp_path: Path
) -> None:
    store = SnapshotStore(tmp_path)
    assert store.load(demo_host.identity) is None
    collect = CountingCollector(lambda host: demo_inventory)
    app = TierdeckApp(demo_host, demo=True, collect=collect, hotplug=False, snapshots=store)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_inventory(pilot, app)
        await wait_until(pilot, lambda: store.load(demo_host.identity) is not None, "kept")
    kept = store.load(demo_host.identity)
    assert kept is not None and kept.inventory == demo_inventory and kept.problems == ()
    assert time.time() - kept.taken_at < 60


async def test_the_compose_screens_css_is_read_after_the_first_paint(
    demo_host: RecordedHost, demo_inventory: Inventory, tmp_path: Path
) -> None:
    """Not before the dashboard paints (it would wait for the parse), and before compose
    opens (its push would re-parse every stylesheet)."""
    from tierdeck.screens.layout.compose import ComposeScreen

    collect = CountingCollector(lambda host: demo_inventory)
    app = TierdeckApp(demo_host, demo=True, collect=collect, hotplug=False,
                      snapshots=SnapshotStore(tmp_path))  # fmt: skip
    async with app.run_test(size=SIZE) as pilot:
        compose_css = ComposeScreen(demo_inventory).css_path
        await wait_for_inventory(pilot, app)
        await wait_until(
            pilot,
            lambda: all(app.stylesheet.has_source(str(p), "") for p in compose_css),
            "the compose screen's CSS read",
        )


async def test_an_age_tick_before_the_dashboard_composed_waits_for_it(
    demo_host: RecordedHost, demo_inventory: Inventory, tmp_path: Path
) -> None:
    """On a machine slow enough that the start takes over a second (a small NAS board, a
    loaded VM), the age timer ticks before the dashboard has composed: its mark is shown
    once the dashboard is there, instead of the tick crashing the app."""

    class SlowStart(TierdeckApp):
        # A subclass reads its CSS beside its own module: point it at the app's.
        CSS_PATH = [str(Path(app_module.__file__).parent / p) for p in TierdeckApp.CSS_PATH]

        def push_screen(self, *args: Any, **kwargs: Any) -> Any:
            pushed = super().push_screen(*args, **kwargs)
            self._show_age()  # the timer's first tick, before the pushed dashboard composed
            return pushed

    store = SnapshotStore(tmp_path)
    keep(store, demo_host, demo_inventory, age_s=12)
    collect = CountingCollector(lambda host: demo_inventory)
    collect.gate = threading.Event()
    app = SlowStart(demo_host, demo=True, collect=collect, hotplug=False, snapshots=store)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "WDC" in screen_text(app), "the kept disks")
        assert re.search(r"as of \d+ s ago, refreshing…", screen_text(app))
        collect.gate.set()
        await wait_for_inventory(pilot, app)
