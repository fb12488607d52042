"""The dashboard: Disks, Pools, mergerfs and Problems, one tab each, keys 1-4.

The screen only draws what the app hands it (``preset`` before it opens, then
``show_inventory``); it never reads the machine. Detail panes follow the highlighted row
of the focused table or tree. Only the tab on screen is drawn when an inventory arrives;
the others are drawn when first shown, so a 240-disk NAS pays for one tab at start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import DataTable, Header, Static, TabbedContent, TabPane, Tree

from ...app.tui.context import context
from ...app.tui.messages import DashboardPainted
from ...core.inventory_changes import NO_CHANGES, InventoryChanges
from ...core.models import Inventory, Problem
from ...widgets.calm_footer import CalmFooter
from ...widgets.dashboard.disk_table import DiskTable
from ...widgets.dashboard.problem_list import problems_tab_label
from ...widgets.dashboard.skeleton import (
    KEPT_REFUSAL,
    LOADING_REFUSAL,
    SKELETON_NOTE,
    changes_note,
)
from ...widgets.detail_pane import DetailPane
from .bench_keys import BENCH_BINDINGS, BenchEntries

if TYPE_CHECKING:  # loaded with the first health report, not before the first paint
    from ...core.disk_health import HealthReport
from .sections import (
    SECTION_FOCUS,
    SectionState,
    draw_section,
    update_disk_detail,
    update_mergerfs_detail,
    update_pool_detail,
)


class DashboardScreen(BenchEntries, Screen[None]):
    # dashboard.tcss is read with the app's CSS (app/tui/app.py): no re-parse at start.

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
        "filesystems over 90% full. ! after a disk: something was unreadable. "
        "* after a name: changed since the inventory shown before. A yellow line under "
        "the title: the inventory on screen was kept from an earlier start."
    )

    # The first resume focuses the disk table at once (on_mount asks for it too): with
    # the default, the first focusable widget, the tab bar took the focus before the
    # first frame and both were restyled. A later resume gets back the widget focused
    # before (Textual keeps it); this applies only when none was.
    AUTO_FOCUS = "#disk-table"

    def __init__(self) -> None:
        super().__init__(id="dashboard")
        self.stale_mark: str | None = None
        self.kept = False  # the inventory on screen is a snapshot from an earlier start
        self._state = SectionState()

    def preset(self, inv: Inventory, problems: tuple[Problem, ...], stale_mark: str | None) -> None:
        """What to show as soon as the screen opens (a kept snapshot), before any
        collection: drawn in the same paint as the screen itself."""
        self._state = SectionState(inv, problems)
        self.stale_mark = stale_mark

    @property
    def inventory(self) -> Inventory | None:
        return self._state.inventory

    @property
    def problems(self) -> tuple[Problem, ...]:
        return self._state.problems

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="freshness")
        with TabbedContent(initial="disks", id="sections"):
            with TabPane("1 Disks", id="disks"):
                yield DiskTable(id="disk-table")
                yield DetailPane(id="disk-detail")
            # Hidden at start: empty until just after the first paint (_mount_hidden_tabs).
            yield TabPane("2 Pools", id="pools")
            yield TabPane("3 mergerfs", id="mergerfs")
            yield TabPane("4 Problems", id="problems")
        yield CalmFooter()

    def _mount_hidden_tabs(self) -> None:
        """The widgets of the tabs not shown at start (widgets/dashboard/later_tabs)."""
        from ...widgets.dashboard.later_tabs import later_tab_bodies

        for pane, body in later_tab_bodies().items():
            self.query_one(f"#{pane}", TabPane).mount(body)

    def on_mount(self) -> None:
        self.call_after_refresh(self._mount_hidden_tabs)
        if self.inventory is None:
            self.show_stale_mark(SKELETON_NOTE)
            self._draw("disks")
        else:
            mark = self.stale_mark
            self.show_inventory(self.inventory, self.problems, kept=True)
            self.show_stale_mark(mark)
        self.call_after_refresh(self.post_message, DashboardPainted())
        self.query_one(DiskTable).focus()

    def show_stale_mark(self, mark: str | None) -> None:
        """A yellow line under the title while what is on screen is not fresh."""
        self.stale_mark = mark
        try:
            freshness = self.query_one("#freshness", Static)
        except NoMatches:
            # The app's age timer ticked before this screen composed (a start slower
            # than a second, as on a loaded machine): on_mount shows ``stale_mark``.
            return
        freshness.display = mark is not None
        if mark is not None:
            freshness.update(mark)

    # -- sections -------------------------------------------------------------------

    def action_section(self, section: str) -> None:
        self.query_one("#sections", TabbedContent).active = section
        # Drawn now, not when the tab's activation message arrives: a key pressed right
        # after (3, down) must find the rows there.
        self._draw(section)
        # Land on the section's list so arrows work at once (walking the tab bar with
        # left/right keeps focus on the tabs instead: that path does not come here).
        try:
            self.query_one(SECTION_FOCUS[section]).focus()
        except NoMatches:  # a key pressed before the tab's widgets mounted
            self.call_after_refresh(self.action_section, section)

    def action_history(self) -> None:
        """h: the benchmark history."""
        context(self).open_history()

    def action_compose(self) -> None:
        """l: the compose screen, from the highlighted pool when on the mergerfs tab."""
        if self.inventory is None or self.kept:
            # A layout is checked against the machine as it is, never a kept snapshot.
            self.notify(KEPT_REFUSAL if self.kept else LOADING_REFUSAL)
            return
        from ...widgets.dashboard.mergerfs_tables import MergerfsPoolTable

        on_pools = self.query_one("#sections", TabbedContent).active == "mergerfs"
        pool = self.query_one(MergerfsPoolTable).selected_pool if on_pools else None
        context(self).open_compose(self.inventory, pool)

    def action_mover(self) -> None:
        """m: the mover view, for a layout file the user names."""
        context(self).open_mover_file()

    # -- data -------------------------------------------------------------------------

    def show_inventory(
        self,
        inv: Inventory,
        problems: tuple[Problem, ...],
        changes: InventoryChanges = NO_CHANGES,
        *,
        kept: bool = False,
    ) -> None:
        """A fresh inventory (``kept``: the preset snapshot): drawn on the tab on screen
        now, on the others when they are first shown."""
        self._state = SectionState(inv, problems, changes, health=self._state.health)
        self.kept = kept
        self.show_stale_mark(changes_note(changes) if changes.count else None)
        self._label_problems_tab(problems)
        self._draw(self.query_one("#sections", TabbedContent).active or "disks")

    def show_health(self, report: HealthReport) -> None:
        """Disk and pool health, read after the first paint: the Health column, the
        disk detail and the Problems tab are drawn again."""
        state = self._state
        state.health = report
        state.undrawn |= {"disks", "problems"}
        try:
            self._label_problems_tab(state.problems)
            active = self.query_one("#sections", TabbedContent).active
        except NoMatches:  # the app is closing: its widgets are gone
            return
        self._draw(active or "disks")

    def show_failure(self, error: str) -> None:
        """The first inventory failed: say so where the data would be."""
        if self.inventory is not None:
            return
        self.show_stale_mark(None)
        self._state = SectionState(failure=error)
        self._draw(self.query_one("#sections", TabbedContent).active or "disks")

    @on(TabbedContent.TabActivated, "#sections")
    def _section_shown(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id is not None:
            self._draw(event.pane.id)

    def _draw(self, section: str) -> None:
        state = self._state
        if not draw_section(self, state, section):  # its widgets mount after this paint
            self.call_after_refresh(self._draw_again, state, section)

    def _draw_again(self, state: SectionState, section: str) -> None:
        if state is self._state:  # else a newer inventory has drawn (or will draw) it
            self._draw(section)

    def _label_problems_tab(self, problems: tuple[Problem, ...]) -> None:
        tab = self.query_one("#sections", TabbedContent).get_tab("problems")
        tab.label = problems_tab_label(problems, self._state.health)

    # -- detail panes -------------------------------------------------------------------

    def _update_mergerfs_detail(self, *, branch: bool) -> None:
        if self.inventory is not None:
            update_mergerfs_detail(self, self.inventory, branch=branch)

    @on(DataTable.RowHighlighted, "#disk-table")
    def _disk_highlighted(self) -> None:
        if self.inventory is not None:  # else the skeleton's note stays
            update_disk_detail(self, self.inventory)

    @on(Tree.NodeHighlighted, "#pool-tree")
    def _pool_highlighted(self) -> None:
        if self.inventory is not None:
            update_pool_detail(self, self.inventory)

    @on(DataTable.RowHighlighted, "#mergerfs-pools")
    def _mergerfs_pool_highlighted(self) -> None:
        from ...widgets.dashboard.mergerfs_tables import BranchTable, MergerfsPoolTable

        self.query_one(BranchTable).follow(self.query_one(MergerfsPoolTable).selected_pool)
        self._update_mergerfs_detail(branch=False)

    @on(DataTable.RowHighlighted, "#mergerfs-branches")
    def _branch_highlighted(self) -> None:
        # Rebuilding the branch table highlights its first row: only a user moving
        # the cursor in the focused branch table should switch the pane to a branch.
        if self.query_one("#mergerfs-branches").has_focus:
            self._update_mergerfs_detail(branch=True)

    def on_descendant_focus(self) -> None:
        # By id: the tables' module loads after the first paint (_mount_hidden_tabs),
        # and the disk table's first focus comes before it.
        focused = self.focused.id if self.focused is not None else None
        if focused == "mergerfs-branches":
            self._update_mergerfs_detail(branch=True)
        elif focused == "mergerfs-pools":
            self._update_mergerfs_detail(branch=False)
