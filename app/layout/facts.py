"""BranchFacts for the layout rules, from the inventory (mounts, ZFS, btrfs, md and the
disk relations) and, for whether a folder exists, the host.

A recorded host holds /sys, /proc and /dev, not the NAS's folders: there a branch that
is not itself a mountpoint has ``exists=None`` (unknown), never a made-up False.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from ...backends.host import Host
from ...core.errors import HostError
from ...core.layout.branch_facts import BranchFacts, Redundancy
from ...core.models import Inventory, Mount, VdevKind
from ...core.relations import disks_under

_ZFS_LEVEL = {VdevKind.MIRROR: Redundancy.MIRROR, VdevKind.RAIDZ: Redundancy.PARITY,
              VdevKind.DRAID: Redundancy.PARITY}  # fmt: skip
_MD_LEVEL = {"raid1": Redundancy.MIRROR, "raid10": Redundancy.MIRROR,
             "raid4": Redundancy.PARITY, "raid5": Redundancy.PARITY, "raid6": Redundancy.PARITY,
             "raid0": Redundancy.NONE, "linear": Redundancy.NONE}  # fmt: skip
# btrfs data profiles as /sys/fs/btrfs/*/allocation/data names them, upper-cased
_BTRFS_LEVEL = {"RAID1": Redundancy.MIRROR, "RAID1C3": Redundancy.MIRROR,
                "RAID1C4": Redundancy.MIRROR, "RAID10": Redundancy.MIRROR,
                "RAID5": Redundancy.PARITY, "RAID6": Redundancy.PARITY,
                "SINGLE": Redundancy.NONE, "DUP": Redundancy.NONE, "RAID0": Redundancy.NONE}  # fmt: skip
_RAM = frozenset({"tmpfs", "ramfs"})  # gone at reboot: no copy survives anything


def mount_of(inv: Inventory, path: str) -> Mount | None:
    """The mount a path is on: the longest mountpoint that holds it (the last one
    mounted there when two share a mountpoint, as the kernel shows the top one)."""
    path = posixpath.normpath(path)
    best: Mount | None = None
    for mount in inv.mounts:
        top = mount.mountpoint
        holds = path == top or path.startswith(top.rstrip("/") + "/")
        if holds and (best is None or len(top) >= len(best.mountpoint)):
            best = mount
    return best


def _zfs_redundancy(inv: Inventory, mount: Mount) -> Redundancy:
    pool = next((p for p in inv.zfs.pools if p.name == mount.source.split("/")[0]), None)
    if pool is None or not pool.vdevs:
        return Redundancy.UNKNOWN
    # A pool is as safe as its weakest top-level vdev: one plain disk loses the pool.
    levels = [_ZFS_LEVEL.get(v.kind, Redundancy.NONE) for v in pool.vdevs]
    if Redundancy.NONE in levels:
        return Redundancy.NONE
    return Redundancy.MIRROR if Redundancy.MIRROR in levels else Redundancy.PARITY


def _btrfs_redundancy(inv: Inventory, mount: Mount) -> Redundancy:
    fs = next((f for f in inv.btrfs if mount.mountpoint in f.mountpoints), None)
    data = [a for a in fs.allocations if a.kind == "data"] if fs else []
    if not data:
        return Redundancy.UNKNOWN
    return _BTRFS_LEVEL.get(data[0].profile.upper(), Redundancy.UNKNOWN)


def _block_redundancy(inv: Inventory, mount: Mount) -> Redundancy:
    """Walk from the mount's device down through dm to an md array, if any."""
    arrays = {a.name: a for a in inv.md}
    pending = [inv.dev_names.get(mount.major_minor, "")]
    seen: set[str] = set()
    while pending:
        name = pending.pop()
        if not name or name in seen:
            continue
        seen.add(name)
        if name in arrays:
            return _MD_LEVEL.get(arrays[name].level, Redundancy.UNKNOWN)
        pending.extend(inv.slaves.get(name, ()))
    # No array on the way down: one disk (or a dm/lvm span, which is no safer).
    return Redundancy.NONE if inv.dev_names.get(mount.major_minor) else Redundancy.UNKNOWN


def _redundancy(inv: Inventory, mount: Mount) -> Redundancy:
    if mount.fs_type == "zfs":
        return _zfs_redundancy(inv, mount)
    if mount.fs_type == "btrfs":
        return _btrfs_redundancy(inv, mount)
    if mount.fs_type in _RAM:
        return Redundancy.NONE
    if mount.source.startswith("/dev/"):
        return _block_redundancy(inv, mount)
    return Redundancy.UNKNOWN


def _exists(host: Host, path: str, mount: Mount | None) -> bool | None:
    try:
        if host.exists(path):
            return True
    except HostError:
        return None
    if mount is not None and posixpath.normpath(path) == mount.mountpoint:
        return True
    return False if host.capabilities.live else None


def branch_facts(inv: Inventory, host: Host, paths: Iterable[str]) -> dict[str, BranchFacts]:
    """Facts for each path (cache and slow branches), keyed by the path as given."""
    facts: dict[str, BranchFacts] = {}
    for path in paths:
        mount = mount_of(inv, path)
        facts[path] = BranchFacts(
            path=path,
            exists=_exists(host, path, mount),
            mount_point=mount.mountpoint if mount else None,
            fs_type=mount.fs_type if mount else None,
            size_bytes=mount.size_bytes if mount else None,
            free_bytes=mount.avail_bytes if mount else None,
            fs_id=mount.major_minor if mount else None,
            devices=disks_under(inv, path),
            redundancy=_redundancy(inv, mount) if mount else Redundancy.UNKNOWN,
            read_only=("ro" in mount.options or "ro" in mount.super_options) if mount else None,
        )
    return facts
