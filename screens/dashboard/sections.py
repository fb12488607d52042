"""What each dashboard tab shows: the inventory, a skeleton before the first one, or why
it could not be read; and the detail pane that follows its highlighted row.

The tabs after the first get their widgets just after the first paint (the dashboard's
``_mount_hidden_tabs``): a tab whose widgets are not there yet answers ``False`` and is
drawn again a refresh later.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rich.text import Text
from textual.css.query import NoMatches
from textual.screen import Screen

from ...core.inventory_changes import NO_CHANGES, InventoryChanges
from ...core.models import Disk, Inventory, Problem
from ...widgets.dashboard.disk_table import DiskTable, disk_detail_parts
from ...widgets.dashboard.disks_under import disks_under_text
from ...widgets.dashboard.problem_list import problems_renderable
from ...widgets.dashboard.skeleton import SKELETON_NOTE
from ...widgets.detail_pane import DetailPane

if TYPE_CHECKING:
    from ...core.disk_health import HealthReport
    from ...widgets.dashboard.pool_tree import PoolItem

# The Pools and mergerfs tabs' modules are imported where they are drawn: they load
# with those tabs' widgets, after the first paint (the dashboard's _mount_hidden_tabs).

SECTIONS = ("disks", "pools", "mergerfs", "problems")
# what each tab's key focuses: its list, so the arrows work at once
SECTION_FOCUS = {
    "disks": "#disk-table",
    "pools": "#pool-tree",
    "mergerfs": "#mergerfs-pools",
    "problems": "#problem-list",
}
DETAIL_PANES = {
    "disks": "#disk-detail",
    "pools": "#pool-detail",
    "mergerfs": "#mergerfs-detail",
    "problems": "#problem-list",
}


@dataclass
class SectionState:
    """What the tabs are to show, and which of them still have to draw it."""

    inventory: Inventory | None = None
    problems: tuple[Problem, ...] = ()
    changes: InventoryChanges = NO_CHANGES
    failure: str | None = None  # why the first inventory could not be read
    health: HealthReport | None = None  # SMART and pool health, read after the first paint
    undrawn: set[str] = field(default_factory=lambda: set(SECTIONS))


def draw_section(screen: Screen[None], state: SectionState, section: str) -> bool:
    """Draw ``section`` if it has something new to show. False while its widgets are not
    mounted yet (the caller retries after the next refresh)."""
    if section not in state.undrawn:
        return True
    try:
        if state.inventory is not None:
            _draw_inventory(screen, state, state.inventory, section)
        elif state.failure is not None:
            _draw_failure(screen, section, state.failure)
        else:
            _draw_skeleton(screen, section)
    except NoMatches:
        return False
    state.undrawn.discard(section)
    return True


def _draw_inventory(
    screen: Screen[None], state: SectionState, inv: Inventory, section: str
) -> None:
    if section == "disks":
        table = screen.query_one(DiskTable)
        if state.health is not None:
            table.set_health(state.health)
        table.show_inventory(inv, state.changes.disks)
        update_disk_detail(screen, inv)
    elif section == "pools":
        from ...widgets.dashboard.pool_tree import PoolTree

        screen.query_one(PoolTree).show_inventory(inv, state.changes.zpools)
        update_pool_detail(screen, inv)
    elif section == "mergerfs":
        from ...widgets.dashboard.mergerfs_tables import BranchTable, MergerfsPoolTable

        pools = screen.query_one(MergerfsPoolTable)
        pools.show_pools(inv.mergerfs, state.changes.mergerfs)
        branches = screen.query_one(BranchTable)
        branches.show_pool(pools.selected_pool)
        update_mergerfs_detail(screen, inv, branch=branches.has_focus)
    else:
        pane = screen.query_one(DETAIL_PANES[section], DetailPane)
        pane.show(problems_renderable(inv, state.problems, state.health))


def _draw_skeleton(screen: Screen[None], section: str) -> None:
    """The first start on a machine: the shape of what is coming, not a blank."""
    if section == "disks":
        screen.query_one(DiskTable).show_skeleton()
    elif section == "pools":
        from ...widgets.dashboard.pool_tree import PoolTree

        screen.query_one(PoolTree).show_skeleton()
    screen.query_one(DETAIL_PANES[section], DetailPane).show(Text(SKELETON_NOTE, style="dim"))


def _draw_failure(screen: Screen[None], section: str, error: str) -> None:
    if section == "disks":
        screen.query_one(DiskTable).clear(columns=True)
    elif section == "pools":
        from ...widgets.dashboard.pool_tree import PoolTree

        screen.query_one(PoolTree).clear()
    message = Text.assemble(
        ("Could not read the inventory: ", "bold red"), error, "\nPress r to retry."
    )
    screen.query_one(DETAIL_PANES[section], DetailPane).show(message)


# -- detail panes ---------------------------------------------------------------------


def update_disk_detail(screen: Screen[None], inv: Inventory) -> None:
    pane = screen.query_one(DETAIL_PANES["disks"], DetailPane)
    table = screen.query_one(DiskTable)
    disk = table.selected_disk
    if disk is None:
        show_trend(pane, None, table)
        pane.show(Text("No disks found.", style="dim"))
        return
    health = (table.health.get(disk.name), table.health_read)
    head, tail = disk_detail_parts(inv, disk, table.users, health)
    show_trend(pane, disk, table)  # first: a new chart's place is then ready for the tail
    pane.show(*head, tail=tail)


def show_trend(pane: DetailPane, disk: Disk | None, table: DiskTable) -> None:
    """The disk's health over time between its SMART figures and its partitions, once
    health is read: the chart's module (textual-plot) and the kept readings load then,
    never before the first paint. Not for a virtual device, which has no SMART."""
    trend = next(iter(pane.query("#health-trend")), None)
    stamp = table.health_collected_at
    if disk is None or disk.virtual or stamp is None:
        if trend is not None:
            trend.display = False
        return
    from ...app.history.health_readings import disk_id
    from ...widgets.dashboard.health_trend import HealthTrend

    if not isinstance(trend, HealthTrend):
        trend = HealthTrend(id="health-trend")
        pane.add_middle(trend)
    trend.display = True
    health = table.health.get(disk.name)
    serial = health.serial if health is not None and health.serial else disk.serial
    trend.show_disk(disk_id(serial, disk.wwn), stamp)


def update_pool_detail(screen: Screen[None], inv: Inventory) -> None:
    from ...widgets.dashboard.pool_tree import PoolTree, pool_detail, relation_key

    item: PoolItem = screen.query_one(PoolTree).selected_item
    parts = pool_detail(item)
    if item is not None:  # right under the title: the answer people come for
        parts.insert(1, disks_under_text(inv, relation_key(item)))
    screen.query_one(DETAIL_PANES["pools"], DetailPane).show(*parts)


def update_mergerfs_detail(screen: Screen[None], inv: Inventory, *, branch: bool) -> None:
    from ...widgets.dashboard.mergerfs_tables import BranchTable, MergerfsPoolTable, branch_detail
    from ...widgets.dashboard.mergerfs_tables import pool_detail as mergerfs_detail

    pane = screen.query_one(DETAIL_PANES["mergerfs"], DetailPane)
    pool = screen.query_one(MergerfsPoolTable).selected_pool
    if pool is None:
        pane.show(Text("No mergerfs pools mounted.", style="dim"))
        return
    selected = screen.query_one(BranchTable).selected_branch if branch else None
    if selected is not None:
        parts = branch_detail(pool, selected)
        parts.insert(1, disks_under_text(inv, selected.path))
    else:
        parts = mergerfs_detail(pool)
        parts.insert(1, disks_under_text(inv, pool.mountpoint))
    pane.show(*parts)
