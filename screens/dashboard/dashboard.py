"""The dashboard: Disks, Pools, mergerfs and Problems, one tab each, keys 1-4.

The screen only draws what the app hands it (``show_inventory``); it never reads the
machine. Detail panes follow the highlighted row of the focused table or tree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import RenderableType
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Header, TabbedContent, TabPane, Tree

from ...app.tui.context import context
from ...core.models import Inventory, Problem, Severity
from ...core.relations import disks_under
from ...core.units import format_bytes
from ...widgets.calm_footer import CalmFooter
from ...widgets.dashboard.disk_table import KIND_LABEL, DiskTable, disk_detail
from ...widgets.dashboard.mergerfs_tables import BranchTable, MergerfsPoolTable, branch_detail
from ...widgets.dashboard.mergerfs_tables import pool_detail as mergerfs_detail
from ...widgets.dashboard.pool_tree import PoolItem, PoolTree, pool_detail, relation_key
from ...widgets.dashboard.problem_list import problems_renderable
from ...widgets.detail_pane import DetailPane
from .bench_keys import BENCH_BINDINGS, BenchEntries

if TYPE_CHECKING:  # the mover's modules load when m is pressed, not with the dashboard
    pass

SECTION_FOCUS = {
    "disks": "#disk-table",
    "pools": "#pool-tree",
    "mergerfs": "#mergerfs-pools",
    "problems": "#problem-list",
}


class DashboardScreen(BenchEntries, Screen[None]):
    CSS_PATH = "dashboard.tcss"

    _SECTIONS = "switch to Disks, Pools, mergerfs, Problems"
    BINDINGS = [
        Binding("1", "section('disks')", "Disks", show=False, tooltip=_SECTIONS),
        Binding("2", "section('pools')", "Pools", show=False, tooltip=_SECTIONS),
        Binding("3", "section('mergerfs')", "mergerfs", show=False, tooltip=_SECTIONS),
        Binding("4", "section('problems')", "Problems", show=False, tooltip=_SECTIONS),
        BENCH_BINDINGS[0],
        Binding("h", "history", "History", tooltip="benchmark history: open, rename, tag, delete"),
        Binding(
            "l",
            "compose",
            "Layout",
            show=False,
            tooltip="compose a cache/slow tier layout; from the highlighted mergerfs pool on "
            "the mergerfs tab",
        ),
        Binding(
            "m",
            "mover",
            "Mover",
            show=False,
            tooltip="the mover of a layout file: its forecast, a move with live progress, the "
            "last run's report",
        ),
        *BENCH_BINDINGS[1:],
    ]
    # Hidden at 80 columns (the footer is full); shown from about 100 (widgets/calm_footer).
    FOOTER_IF_ROOM = ("compose", "mover", "sweep", "ladder")
    HELP_TITLE = "tierdeck keys: dashboard"
    HELP_NOTES = (
        ("tab / shift+tab", "next / previous pane (tab bar, list, detail)"),
        ("up / down", "move in a list or tree; scroll the detail pane"),
        ("pgup / pgdn", "page up / down"),
        ("home / end", "first / last row"),
        ("left / right", "switch tab on the tab bar; scroll wide tables"),
        ("enter / space", "expand or collapse a tree node (Pools)"),
        ("shift+up / down", "previous / next sibling in the tree"),
        ("shift+left", "go to the parent node in the tree"),
        ("escape", "close this help"),
    )
    HELP_LEGEND = (
        "Red: degraded/faulted vdevs and arrays, branches below minfreespace, "
        "filesystems over 90% full. ! after a disk: something was unreadable."
    )

    def __init__(self) -> None:
        super().__init__(id="dashboard")
        self.inventory: Inventory | None = None
        self.problems: tuple[Problem, ...] = ()

    def compose(self) -> ComposeResult:
        yield Header()
        with TabbedContent(initial="disks", id="sections"):
            with TabPane("1 Disks", id="disks"):
                yield DiskTable(id="disk-table")
                yield DetailPane(id="disk-detail")
            with TabPane("2 Pools", id="pools"):
                yield PoolTree(id="pool-tree")
                yield DetailPane(id="pool-detail")
            with TabPane("3 mergerfs", id="mergerfs"):
                yield MergerfsPoolTable(id="mergerfs-pools")
                yield BranchTable(id="mergerfs-branches")
                yield DetailPane(id="mergerfs-detail")
            with TabPane("4 Problems", id="problems"):
                yield DetailPane(id="problem-list")
        yield CalmFooter()

    def on_mount(self) -> None:
        if self.inventory is None:
            self.query_one("#sections", TabbedContent).loading = True
        self.query_one(DiskTable).focus()

    # -- sections -------------------------------------------------------------------

    def action_section(self, section: str) -> None:
        self.query_one("#sections", TabbedContent).active = section
        # Land on the section's list so arrows work at once (walking the tab bar with
        # left/right keeps focus on the tabs instead: that path does not come here).
        self.query_one(SECTION_FOCUS[section]).focus()

    def action_history(self) -> None:
        """h: the benchmark history."""
        context(self).open_history()

    def action_compose(self) -> None:
        """l: the compose screen, from the highlighted pool when on the mergerfs tab."""
        if self.inventory is None:
            self.notify("The inventory is still loading: try again in a moment.")
            return
        on_pools = self.query_one("#sections", TabbedContent).active == "mergerfs"
        pool = self.query_one(MergerfsPoolTable).selected_pool if on_pools else None
        context(self).open_compose(self.inventory, pool)

    def action_mover(self) -> None:
        """m: the mover view, for a layout file the user names."""
        context(self).open_mover_file()

    # -- data -------------------------------------------------------------------------

    def show_inventory(self, inv: Inventory, problems: tuple[Problem, ...]) -> None:
        self.inventory = inv
        self.problems = problems
        self.query_one("#sections", TabbedContent).loading = False
        self.query_one(DiskTable).show_inventory(inv)
        self.query_one(PoolTree).show_inventory(inv)
        pools = self.query_one(MergerfsPoolTable)
        pools.show_pools(inv.mergerfs)
        self.query_one(BranchTable).show_pool(pools.selected_pool)
        self.query_one("#problem-list", DetailPane).show(problems_renderable(inv, problems))
        self._label_problems_tab(problems)
        self._update_disk_detail()
        self._update_pool_detail()
        self._update_mergerfs_detail(branch=self.query_one(BranchTable).has_focus)

    def show_failure(self, error: str) -> None:
        """The first inventory failed: say so where the data would be."""
        self.query_one("#sections", TabbedContent).loading = False
        if self.inventory is not None:
            return
        message = Text.assemble(
            ("Could not read the inventory: ", "bold red"), error, "\nPress r to retry."
        )
        for pane in self.query(DetailPane):
            pane.show(message)

    def _label_problems_tab(self, problems: tuple[Problem, ...]) -> None:
        tab = self.query_one("#sections", TabbedContent).get_tab("problems")
        if not problems:
            tab.label = Text("4 Problems")
            return
        critical = any(p.severity is Severity.CRITICAL for p in problems)
        label = Text("4 Problems ")
        label.append(f"({len(problems)})", style="bold red" if critical else "bold yellow")
        tab.label = label

    # -- detail panes -------------------------------------------------------------------

    def _disks_under(self, path: str | None) -> RenderableType:
        inv = self.inventory
        if inv is None or path is None:
            return Text("")
        try:
            names = disks_under(inv, path)
        except Exception as exc:  # noqa: BLE001 - a relation bug must not kill the view
            return Text(f"Disks under it: unknown ({exc})", style="yellow")
        out = Text.assemble(("Disks under it: ", "bold"))
        if not names:
            out.append("none found", style="dim")
        for i, name in enumerate(names):
            if i:
                out.append(", ")
            out.append(name, style="bold cyan")
            disk = inv.disk(name)
            if disk is not None:
                model = disk.model or KIND_LABEL[disk.kind]
                out.append(f" ({model}, {format_bytes(disk.size_bytes)})")
        return out

    def _update_disk_detail(self) -> None:
        pane = self.query_one("#disk-detail", DetailPane)
        disk = self.query_one(DiskTable).selected_disk
        if self.inventory is None or disk is None:
            pane.show(Text("No disks found.", style="dim"))
            return
        pane.show(disk_detail(self.inventory, disk))

    def _update_pool_detail(self) -> None:
        item: PoolItem = self.query_one(PoolTree).selected_item
        parts = pool_detail(item)
        if item is not None:  # right under the title: the answer people come for
            parts.insert(1, self._disks_under(relation_key(item)))
        self.query_one("#pool-detail", DetailPane).show(*parts)

    def _update_mergerfs_detail(self, *, branch: bool) -> None:
        pane = self.query_one("#mergerfs-detail", DetailPane)
        pool = self.query_one(MergerfsPoolTable).selected_pool
        if pool is None:
            pane.show(Text("No mergerfs pools mounted.", style="dim"))
            return
        selected = self.query_one(BranchTable).selected_branch if branch else None
        if selected is not None:
            parts = branch_detail(pool, selected)
            parts.insert(1, self._disks_under(selected.path))
        else:
            parts = mergerfs_detail(pool)
            parts.insert(1, self._disks_under(pool.mountpoint))
        pane.show(*parts)

    @on(DataTable.RowHighlighted, "#disk-table")
    def _disk_highlighted(self) -> None:
        self._update_disk_detail()

    @on(Tree.NodeHighlighted, "#pool-tree")
    def _pool_highlighted(self) -> None:
        self._update_pool_detail()

    @on(DataTable.RowHighlighted, "#mergerfs-pools")
    def _mergerfs_pool_highlighted(self) -> None:
        branches = self.query_one(BranchTable)
        pool = self.query_one(MergerfsPoolTable).selected_pool
        if branches.pool is not pool:
            branches.show_pool(pool)
        self._update_mergerfs_detail(branch=False)

    @on(DataTable.RowHighlighted, "#mergerfs-branches")
    def _branch_highlighted(self) -> None:
        # Rebuilding the branch table highlights its first row: only a user moving
        # the cursor in the focused branch table should switch the pane to a branch.
        if self.query_one(BranchTable).has_focus:
            self._update_mergerfs_detail(branch=True)

    def on_descendant_focus(self) -> None:
        focused = self.focused
        if isinstance(focused, BranchTable):
            self._update_mergerfs_detail(branch=True)
        elif isinstance(focused, MergerfsPoolTable):
            self._update_mergerfs_detail(branch=False)
