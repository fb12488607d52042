"""The dashboard's "Used by" line of a disk: which mergerfs branches it holds."""

from __future__ import annotations

from dataclasses import replace

from tierdeck.app.machine.demo import load_demo_host
from tierdeck.app.machine.inventory import collect_inventory
from tierdeck.core.models import Mount
from tierdeck.widgets.dashboard.disk_table import mergerfs_pools_of


def test_the_disk_holding_root_does_not_hold_branches_mounted_below_it() -> None:
    inv = collect_inventory(load_demo_host())
    sda = next(d for d in inv.disks if d.name == "sda")
    root = Mount(1, 0, sda.major_minor, "/", "/", "ext4", "/dev/sda", ("rw",), ())
    inv = replace(inv, mounts=(root, *inv.mounts))
    assert mergerfs_pools_of(inv, sda) == []  # /mnt/disk1, /mnt/disk2 are mounts of their own
    sde = next(d for d in inv.disks if d.name == "sde")
    assert mergerfs_pools_of(inv, sde) == ["/mnt/slow-storage (branch 1)"]
