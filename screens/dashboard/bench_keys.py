"""The dashboard's ways into benchmarks, sweeps and the ladder (``b``, ``w``, ``p``): the
checks they share (the inventory loaded, a live machine) and what the highlighted row
aims them at. Mixed into ``DashboardScreen``; its keys are ``BENCH_BINDINGS``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.binding import Binding
from textual.widgets import TabbedContent

from ...app.tui.context import context
from ...widgets.dashboard.disk_table import DiskTable
from ...widgets.dashboard.skeleton import KEPT_REFUSAL, LOADING_REFUSAL

if TYPE_CHECKING:
    from textual.screen import Screen

    from ...core.models import Inventory

    _Base = Screen[None]
else:
    _Base = object

BENCH_BINDINGS = [
    Binding(
        "b",
        "bench",
        "Benchmark",
        tooltip="benchmark the selected mount, pool, branch or disk (fio); on a disk: "
        "its own filesystem, or the raw device if nothing uses it",
    ),
    Binding(
        "w",
        "sweep",
        "Sweep",
        show=False,
        tooltip="run a sweep file (tierdeck.sweep/1): one run per combination, as a matrix",
    ),
    Binding(
        "p",
        "ladder",
        "Ladder",
        show=False,
        tooltip="layer-penalty ladder of the highlighted mergerfs pool (mergerfs tab): "
        "branch, pool, tmpfs, nullrw; a menu first: job, branches, option sweep",
    ),
]


class BenchEntries(_Base):
    """Mixed into the dashboard (before Screen in its bases)."""

    kept: bool

    if TYPE_CHECKING:

        @property
        def inventory(self) -> Inventory | None: ...

    def action_bench(self) -> None:
        """b: the setup screen, aimed at the selected pool, branch, dataset or disk."""
        from ...app.bench.targets import suggest_target

        if not self._can_bench() or self.inventory is None:
            return
        choice = suggest_target(self.inventory, self._selected())
        context(self).open_bench_setup(self.inventory, initial_path=choice.path, note=choice.note)

    def _can_bench(self) -> bool:
        # A benchmark aims at the machine as it is, never at a kept snapshot.
        if self.inventory is None or self.kept:
            self.notify(KEPT_REFUSAL if self.kept else LOADING_REFUSAL)
            return False
        if not context(self).host.capabilities.run_benchmarks:
            # The demo's paths and disks belong to another machine: running fio on
            # same-named paths here would measure the wrong thing, or write somewhere.
            self.notify(
                "Benchmarks run on this machine only: this is a recording (--demo or "
                "--recorded). Start tierdeck without them to benchmark.",
                severity="warning",
            )
            return False
        return True

    def _selected(self) -> object:
        """What b aims at: the highlighted disk, pool item, branch or mergerfs pool."""
        from ...widgets.dashboard.mergerfs_tables import BranchTable, MergerfsPoolTable
        from ...widgets.dashboard.pool_tree import PoolTree

        section = self.query_one("#sections", TabbedContent).active
        if section == "disks":
            return self.query_one(DiskTable).selected_disk
        if section == "pools":
            return self.query_one(PoolTree).selected_item
        if section == "mergerfs":
            branches = self.query_one(BranchTable)
            branch = branches.selected_branch if branches.has_focus else None
            return branch or self.query_one(MergerfsPoolTable).selected_pool
        return None

    def action_sweep(self) -> None:
        """w: a sweep file to run; one without a target runs where b would aim."""
        from ...app.bench.targets import suggest_target

        if self._can_bench() and self.inventory is not None:
            context(self).open_sweep_file(suggest_target(self.inventory, self._selected()).path)

    def action_ladder(self) -> None:
        """p: the ladder of the highlighted mergerfs pool."""
        from ...widgets.dashboard.mergerfs_tables import MergerfsPoolTable

        on_pools = self.query_one("#sections", TabbedContent).active == "mergerfs"
        pool = self.query_one(MergerfsPoolTable).selected_pool if on_pools else None
        if pool is None:
            self.notify("p: highlight a mergerfs pool on the mergerfs tab (3) first.")
        elif self._can_bench():
            context(self).open_ladder_menu(pool)
