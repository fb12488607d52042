"""What changed between two inventories of one host: the rows a refresh marks.

A change is in what a disk, a zpool or a mergerfs pool *is* (a disk swapped, a vdev
degraded, a branch added), not in its free space: space moves on every refresh of a
busy NAS and would mark every pool every time.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .models import Inventory, MergerfsPool, ZPool


@dataclass(frozen=True)
class InventoryChanges:
    disks: frozenset[str] = frozenset()  # kernel names, new or changed
    zpools: frozenset[str] = frozenset()  # pool names, new or changed
    mergerfs: frozenset[str] = frozenset()  # mountpoints, new or changed
    gone: tuple[str, ...] = ()  # "disk sdf", "zpool tank", "mergerfs /mnt/pool": no longer there

    @property
    def count(self) -> int:
        return len(self.disks) + len(self.zpools) + len(self.mergerfs) + len(self.gone)


NO_CHANGES = InventoryChanges()


def _zpool_shape(pool: ZPool) -> ZPool:
    return replace(pool, alloc_bytes=None, free_bytes=None, capacity_pct=None,
                   fragmentation_pct=None, dedup_ratio=None)  # fmt: skip


def _mergerfs_shape(pool: MergerfsPool) -> MergerfsPool:
    branches = tuple(replace(b, size_bytes=None, avail_bytes=None) for b in pool.branches)
    return replace(pool, branches=branches, size_bytes=None, avail_bytes=None)


def inventory_changes(before: Inventory | None, after: Inventory) -> InventoryChanges:
    """Rows of ``after`` that are new or different from ``before``, and what went away.
    Nothing is marked when there is no ``before`` (the first look has nothing to
    compare with)."""
    if before is None:
        return NO_CHANGES
    old_disks = {d.name: d for d in before.disks}
    new_disks = {d.name: d for d in after.disks}
    old_zpools = {p.name: _zpool_shape(p) for p in before.zfs.pools}
    new_zpools = {p.name: _zpool_shape(p) for p in after.zfs.pools}
    old_mergerfs = {p.mountpoint: _mergerfs_shape(p) for p in before.mergerfs}
    new_mergerfs = {p.mountpoint: _mergerfs_shape(p) for p in after.mergerfs}
    gone = (
        [f"disk {name}" for name in old_disks if name not in new_disks]
        + [f"zpool {name}" for name in old_zpools if name not in new_zpools]
        + [f"mergerfs {point}" for point in old_mergerfs if point not in new_mergerfs]
    )
    return InventoryChanges(
        disks=frozenset(n for n, d in new_disks.items() if old_disks.get(n) != d),
        zpools=frozenset(n for n, p in new_zpools.items() if old_zpools.get(n) != p),
        mergerfs=frozenset(m for m, p in new_mergerfs.items() if old_mergerfs.get(m) != p),
        gone=tuple(gone),
    )
