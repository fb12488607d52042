"""Paths and names in detail panes are shown as they are, never read as Rich markup."""

from __future__ import annotations

import dataclasses
import io

from rich.console import Console, Group
from tierdeck.app.machine.demo import load_demo_host
from tierdeck.app.machine.inventory import collect_inventory
from tierdeck.widgets.dashboard.mergerfs_tables import branch_detail, pool_detail

ODD = "/mnt/[backup] :smile:"


def shown(*parts: object) -> str:
    out = io.StringIO()
    Console(file=out, width=200, color_system=None).print(Group(*parts))  # type: ignore[arg-type]
    return out.getvalue()


def test_a_bracketed_mountpoint_is_shown_whole() -> None:
    pool = collect_inventory(load_demo_host()).mergerfs[0]
    branch = dataclasses.replace(pool.branches[0], path=ODD + "/b1")
    odd = dataclasses.replace(pool, mountpoint=ODD, branches=(branch, *pool.branches[1:]))
    assert ODD in shown(*pool_detail(odd))
    assert f"in {ODD}" in shown(*branch_detail(odd, branch))
    assert "😄" not in shown(*pool_detail(odd))
