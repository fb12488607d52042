"""The dashboard driven by keyboard at 80x24, waiting on conditions, never on sleeps."""

from __future__ import annotations

import threading

import pytest
from textual.widgets import DataTable, TabbedContent
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.backends.host import RecordedHost
from tierdeck.core.errors import ToolFailed
from tierdeck.core.models import Inventory
from tierdeck.widgets.dashboard.disk_table import DiskTable
from tierdeck.widgets.dashboard.mergerfs_tables import BranchTable, MergerfsPoolTable
from tierdeck.widgets.dashboard.pool_tree import PoolTree, VdevRef

from ..conftest import CountingCollector, OpenDashboard
from ..waiting import screen_text, wait_for_failure, wait_for_inventory, wait_until

SIZE = (80, 24)


def demo_app(host: RecordedHost, collect: CountingCollector | None = None) -> TierdeckApp:
    return TierdeckApp(host, demo=True, collect=collect, hotplug=False)


async def test_first_start_shows_a_skeleton_then_the_inventory(
    demo_host: RecordedHost, demo_collector: CountingCollector
) -> None:
    """No inventory kept for this host: the tables' shape with grey bars, never a blank."""
    demo_collector.gate = threading.Event()
    app = demo_app(demo_host, demo_collector)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "░░░░" in screen_text(app), "the skeleton")
        assert app.inventory is None
        text = screen_text(app)
        assert "reading this machine's storage for the first time" in text
        assert "Disk" in text and "Used by" in text and "░░░░" in text
        assert "WDC" not in text
        demo_collector.gate.set()
        await wait_for_inventory(pilot, app)
        assert app.title == "tierdeck — nas [demo]"
        table = app.screen.query_one(DiskTable)
        assert table.row_count == len(app.inventory.disks)  # type: ignore[union-attr]
        text = screen_text(app)
        assert "WDC WD180EDGZ" in text  # cut by the Health column at 80x24
        assert "[demo]" in text
        assert "░" not in text and "first time" not in text


async def test_real_collector_on_demo_host(demo_host: RecordedHost) -> None:
    """No stand-in: the worker runs collect_inventory on the recorded NAS of seed 000."""
    app = demo_app(demo_host)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_inventory(pilot, app)
        names = {d.name for d in app.inventory.disks}  # type: ignore[union-attr]
        assert {"sdc", "sdd", "sde", "nvme0n1"} <= names


async def test_virtual_disks_are_marked_and_last(opened_dashboard: OpenDashboard) -> None:
    async with opened_dashboard(SIZE) as (app, pilot):
        table = app.screen.query_one(DiskTable)
        kinds = [str(table.get_row_at(i)[1]) for i in range(table.row_count)]
        assert "virt" in kinds
        first_virtual = kinds.index("virt")
        assert all(k == "virt" for k in kinds[first_virtual:])
        assert all(k != "virt" for k in kinds[:first_virtual])


async def test_number_keys_switch_sections(opened_dashboard: OpenDashboard) -> None:
    async with opened_dashboard(SIZE) as (app, pilot):
        tabs = app.screen.query_one(TabbedContent)
        expected = {
            "2": ("pools", PoolTree),
            "3": ("mergerfs", MergerfsPoolTable),
            "4": ("problems", None),
            "1": ("disks", DiskTable),
        }
        for key, (pane, widget) in expected.items():
            await pilot.press(key)
            await pilot.pause()
            assert tabs.active == pane
            if widget is not None:
                assert isinstance(app.focused, widget), f"{key}: focus on {app.focused!r}"
            else:
                assert app.focused is not None and app.focused.id == "problem-list"


async def test_tab_walks_the_panes(opened_dashboard: OpenDashboard) -> None:
    async with opened_dashboard(SIZE) as (app, pilot):
        await pilot.press("3")
        seen = []
        for _ in range(4):
            await pilot.press("tab")
            seen.append(app.focused.id if app.focused else None)
        # branches, detail, then around to the tab bar and back to the pools table
        assert seen[:2] == ["mergerfs-branches", "mergerfs-detail"]
        assert "mergerfs-pools" in seen


async def test_r_refreshes(
    demo_collector: CountingCollector, opened_dashboard: OpenDashboard
) -> None:
    async with opened_dashboard(SIZE) as (app, pilot):
        assert demo_collector.calls == 1
        await pilot.press("r")
        await wait_for_inventory(pilot, app, after=1)
        assert demo_collector.calls == 2
        assert app.refreshes == 2


async def test_zpool_shows_its_vdev_tree(opened_dashboard: OpenDashboard) -> None:
    async with opened_dashboard(SIZE) as (app, pilot):
        await pilot.press("2")
        await pilot.pause()
        tree = app.screen.query_one(PoolTree)
        pool_node = tree.root.children[0]
        assert str(pool_node.label).startswith("zpool cache")
        tree.move_cursor(pool_node)
        await pilot.pause()
        detail = screen_text(app)
        assert "Disks under it: nvme0n1" in detail and "sdb" in detail
        vdevs = [c for c in pool_node.children if isinstance(c.data, VdevRef)]
        assert [c.data.vdev.name for c in vdevs] == ["mirror-0"]  # type: ignore[union-attr]
        leaves = [str(c.label).split()[0] for c in vdevs[0].children]
        assert leaves == ["sdb", "nvme0n1"]
        # walk down to the mirror with the keyboard: the detail follows
        await pilot.press("down", "down")
        await pilot.pause()
        assert isinstance(tree.cursor_node.data, VdevRef)  # type: ignore[union-attr]
        assert "mirror, data vdev of zpool cache" in screen_text(app)


async def test_mergerfs_pool_shows_branches_in_order(opened_dashboard: OpenDashboard) -> None:
    async with opened_dashboard(SIZE) as (app, pilot):
        inv: Inventory = app.inventory  # type: ignore[assignment]
        await pilot.press("3")
        await pilot.pause()
        pools = app.screen.query_one(MergerfsPoolTable)
        branches = app.screen.query_one(BranchTable)
        assert [p.mountpoint for p in pools.pools] == [p.mountpoint for p in inv.mergerfs]
        for index, pool in enumerate(inv.mergerfs):
            pools.move_cursor(row=index)
            await pilot.pause()
            assert branches.pool is pool
            shown = [str(branches.get_row_at(i)[1]) for i in range(branches.row_count)]
            assert shown == [b.path for b in pool.branches]
            text = screen_text(app)
            assert f"mergerfs {pool.mountpoint}" in text
            assert f"Create   {pool.create_policy}" in text
        slow = next(p for p in inv.mergerfs if p.mountpoint == "/mnt/slow-storage")
        assert slow.minfreespace_bytes == 300 * 1024**3


async def test_degraded_inventory_shows_problems(degraded: CountingCollector) -> None:
    app = TierdeckApp(RecordedHostStub(), collect=degraded, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_inventory(pilot, app)
        assert app.problems, "find_problems found nothing in a degraded NAS"
        header = screen_text(app).splitlines()[0]
        assert f"{len(app.problems)} problems" in header
        assert "not root" in header
        tab = app.screen.query_one(TabbedContent).get_tab("problems")
        assert f"({len(app.problems)})" in str(tab.label)
        await pilot.press("4")
        await pilot.pause()
        text = screen_text(app)
        assert "CRITICAL" in text and "zpool tank vdev sde" in text
        await pilot.press("2")
        await pilot.pause()
        text = screen_text(app)
        assert "DEGRADED" in text and "FAULTED" in text and "(resilvering)" in text
        assert "resilver 45.2%" in text
        tree = app.screen.query_one(PoolTree)
        faulted = next(
            line
            for line in range(tree.last_line + 1)
            if "sde" in str(tree.get_node_at_line(line).label)  # type: ignore[union-attr]
        )
        label = tree.get_node_at_line(faulted).label  # type: ignore[union-attr]
        assert any("red" in str(span.style) for span in label.spans)


async def test_non_root_marks_what_was_unreadable(degraded: CountingCollector) -> None:
    app = TierdeckApp(RecordedHostStub(), collect=degraded, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_inventory(pilot, app)
        assert "sdg!" in screen_text(app)
        await pilot.press("4")
        await pilot.pause()
        problems = app.screen.query_one("#problem-list")
        problems.scroll_end(animate=False)
        await pilot.pause()
        text = screen_text(app)
        assert "Could not read" in text
        assert "smartctl needs root" in text


async def test_failing_refresh_keeps_previous_inventory(
    demo_host: RecordedHost, demo_collector: CountingCollector, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tierdeck.app.machine.inventory

    # The app's default collector, patched after a first good load.
    monkeypatch.setattr(tierdeck.app.machine.inventory, "collect_inventory", demo_collector)
    app = demo_app(demo_host)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_inventory(pilot, app)
        before = app.inventory
        rows = app.screen.query_one(DiskTable).row_count

        def broken(host: object) -> Inventory:
            raise ToolFailed(["lsblk"], 1, "lsblk: cannot open /dev: Permission denied\nmore")

        monkeypatch.setattr(tierdeck.app.machine.inventory, "collect_inventory", broken)
        await pilot.press("r")
        await wait_for_failure(pilot, app)
        assert app.inventory is before
        assert app.screen.query_one(DiskTable).row_count == rows
        notes = list(app._notifications)
        assert len(notes) == 1 and notes[0].severity == "error"
        message = notes[0].message
        assert "\n" not in message
        assert "lsblk exited 1: lsblk: cannot open /dev: Permission denied" in message
        assert "refresh failed" in screen_text(app).splitlines()[0]


async def test_first_inventory_failing_says_so(degraded: CountingCollector) -> None:
    degraded.fail_with = RuntimeError("boom")
    app = TierdeckApp(RecordedHostStub(), collect=degraded, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_failure(pilot, app)
        text = screen_text(app)
        assert "░" not in text and "first time" not in text  # the skeleton is gone
        assert "Could not read the inventory: RuntimeError: boom" in text
        degraded.fail_with = None
        await pilot.press("r")
        await wait_for_inventory(pilot, app)
        assert app.last_error is None


async def test_wide_terminal_shows_serials(
    demo_host: RecordedHost, demo_collector: CountingCollector, opened_dashboard: OpenDashboard
) -> None:
    app = demo_app(demo_host, demo_collector)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_for_inventory(pilot, app)
        table = app.screen.query_one(DiskTable)
        assert "serial" in [c.value for c in table.columns]
    async with opened_dashboard(SIZE) as (app, pilot):
        table = app.screen.query_one(DataTable)
        assert "serial" not in [c.value for c in table.columns]


class RecordedHostStub:
    """A host that is never read: the collector stand-in ignores it."""

    hostname = "sickbox"


async def test_disk_detail_follows_the_cursor(opened_dashboard: OpenDashboard) -> None:
    async with opened_dashboard(SIZE) as (app, pilot):
        table = app.screen.query_one(DiskTable)
        table.move_cursor(row=table.get_row_index("sdc"))
        await pilot.pause()
        text = screen_text(app)
        assert "/dev/sdc  hdd, 16T" in text
        assert "Used by    /mnt/disk2" in text
        assert "mergerfs   /mnt/slow-storage (branch 2)" in text
        # the rest (by-id paths) is one tab and a few arrows away
        await pilot.press("tab", "end")
        await pilot.pause()
        assert "/dev/disk/by-id/ata-WDC_WD180EDGZ-11B2DA0_3GJ0V8RE" in screen_text(app)


async def test_q_quits_even_from_help(opened_dashboard: OpenDashboard) -> None:
    async with opened_dashboard(SIZE) as (app, pilot):
        await pilot.press("question_mark", "q")
        await pilot.pause()
    assert app.return_code == 0


async def test_benchmark_is_refused_on_a_recorded_host(opened_dashboard: OpenDashboard) -> None:
    """The demo's paths and disks are another machine's: fio must not run here."""
    async with opened_dashboard(SIZE) as (app, pilot):
        await pilot.press("b")
        await pilot.pause()
        assert app.screen.id == "dashboard"
        notes = [str(n.message) for n in app._notifications]
        assert any("recording" in n and "benchmark" in n.lower() for n in notes), notes
