"""The dashboard's tabs not shown at start (Pools, mergerfs, Problems): their widgets,
one column each, mounted just after the first paint.

Mounted then rather than wrapped in ``textual.lazy.Lazy``, which is a widget of its own
per tab to mount and style before the first frame (~2 ms of it for three tabs). Their
modules load here too (~2 ms of imports before the first frame), so this module imports
them when called, not when imported.
"""

from __future__ import annotations

from textual.containers import Vertical

from ..detail_pane import DetailPane


def later_tab_bodies() -> dict[str, Vertical]:
    """Each later tab's body by its pane id, to mount into that TabPane."""
    from .mergerfs_tables import BranchTable, MergerfsPoolTable
    from .pool_tree import PoolTree

    bodies = {
        "pools": Vertical(PoolTree(id="pool-tree"), DetailPane(id="pool-detail")),
        "mergerfs": Vertical(
            MergerfsPoolTable(id="mergerfs-pools"),
            BranchTable(id="mergerfs-branches"),
            DetailPane(id="mergerfs-detail"),
        ),
        "problems": Vertical(DetailPane(id="problem-list")),
    }
    for body in bodies.values():
        body.add_class("pane-body")
    return bodies
