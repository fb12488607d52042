"""What a refresh marks as changed: what a disk or pool is, never its free space."""

from __future__ import annotations

import dataclasses

import pytest
from tierdeck.app.machine.demo import load_demo_host
from tierdeck.app.machine.inventory import collect_inventory
from tierdeck.core.inventory_changes import NO_CHANGES, inventory_changes
from tierdeck.core.models import Inventory


@pytest.fixture(scope="module")
def inv() -> Inventory:
    return collect_inventory(load_demo_host())


def test_nothing_marked_on_a_first_look_or_an_identical_one(inv: Inventory) -> None:
    assert inventory_changes(None, inv) == NO_CHANGES
    assert inventory_changes(inv, inv).count == 0


def test_free_space_moving_is_no_change(inv: Inventory) -> None:
    pools = tuple(
        dataclasses.replace(p, alloc_bytes=1, free_bytes=2, capacity_pct=99) for p in inv.zfs.pools
    )
    mergerfs = tuple(
        dataclasses.replace(
            p,
            avail_bytes=7,
            branches=tuple(dataclasses.replace(b, avail_bytes=3) for b in p.branches),
        )
        for p in inv.mergerfs
    )
    later = dataclasses.replace(
        inv, zfs=dataclasses.replace(inv.zfs, pools=pools), mergerfs=mergerfs
    )
    assert inventory_changes(inv, later).count == 0


def test_state_models_branches_and_disks_that_come_and_go(inv: Inventory) -> None:
    pools = tuple(dataclasses.replace(p, state="DEGRADED") for p in inv.zfs.pools)
    first = inv.mergerfs[0]
    mergerfs = (dataclasses.replace(first, branches=first.branches[:-1]), *inv.mergerfs[1:])
    disks = tuple(dataclasses.replace(d, model="NEW") if d.name == "sdb" else d for d in inv.disks)
    later = dataclasses.replace(
        inv,
        zfs=dataclasses.replace(inv.zfs, pools=pools),
        mergerfs=mergerfs,
        disks=tuple(d for d in disks if d.name != "sdc"),
    )
    changes = inventory_changes(inv, later)
    assert changes.disks == {"sdb"}
    assert changes.zpools == {p.name for p in inv.zfs.pools}
    assert changes.mergerfs == {first.mountpoint}
    assert changes.gone == ("disk sdc",)
    back = inventory_changes(later, inv)
    assert "sdc" in back.disks and back.gone == ()
