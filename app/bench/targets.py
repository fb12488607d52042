"""Which benchmark target ``b`` proposes for what is selected on the dashboard.

A pool, branch, dataset or array row is its own target. A disk row is the awkward one:
the point of benchmarking a disk is a per-disk baseline (the first thing seed 000
measures), so the target is the disk's OWN filesystem, never a mergerfs pool that
happens to sit above it. A disk nothing uses can be measured raw (its device node,
after its name is typed to confirm). A disk that only makes sense as part of something
(a ZFS pool, an md array, a multi-device btrfs) has no target of its own: the setup
opens empty and says what holds the disk and what to benchmark instead.

Pure: reads the inventory only (the raw-mode checks that need the machine, blkid and
/proc/swaps, run in preflight when the user starts).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from ...core.models import (
    BtrfsFilesystem,
    Disk,
    Inventory,
    MdArray,
    MergerfsBranch,
    MergerfsPool,
    Mount,
    ZfsDataset,
    ZPool,
)
from ...core.relations import disks_under

# Filesystems that are pools or views of something else: never "the disk's own".
_NOT_OWN = frozenset({"fuse.mergerfs", "zfs"})


@dataclass(frozen=True)
class TargetChoice:
    """What the setup screen opens with: a path (or None) and a line saying why."""

    path: str | None
    note: str | None = None
    raw: bool = False  # ``path`` is a device node: raw mode, destroys its data


def suggest_target(inv: Inventory, selected: object) -> TargetChoice:
    """A benchmark target for what is selected on the dashboard."""
    if isinstance(selected, Disk):
        return disk_target(inv, selected)
    return TargetChoice(suggest_path(inv, selected))


def suggest_path(inv: Inventory, selected: object) -> str | None:
    """The target path for what is selected: a mergerfs pool or branch, a mounted
    dataset, pool, btrfs filesystem or md array, or a disk's own filesystem."""
    if isinstance(selected, Disk):
        return disk_target(inv, selected).path
    if isinstance(selected, MergerfsPool):
        return selected.mountpoint
    if isinstance(selected, MergerfsBranch):
        return selected.path
    if isinstance(selected, ZfsDataset):
        return _mounted(inv, selected.mountpoint)
    pool = getattr(selected, "pool", None)  # a vdev row of the pool tree
    if isinstance(pool, ZPool):
        selected = pool
    if isinstance(selected, ZPool):
        return _zpool_mount(inv, selected.name)
    if isinstance(selected, BtrfsFilesystem):
        return selected.mountpoints[0] if selected.mountpoints else None
    if isinstance(selected, MdArray):
        return _device_mount(inv, {selected.name})
    return None


# -- disks -----------------------------------------------------------------------------------


def disk_target(inv: Inventory, disk: Disk) -> TargetChoice:
    names = {disk.name, *(p.name for p in disk.partitions)}
    held = _held_by(inv, disk, names)
    own = [m for m in _own_mounts(inv, disk, names) if not _multi_device(inv, m)]
    if own:
        mount = min(own, key=lambda m: (not _writable(m), len(m.mountpoint), m.mountpoint))
        note = None
        if not _writable(mount):
            note = f"{disk.name} is mounted read-only on {mount.mountpoint}: only read jobs can run"
        return TargetChoice(mount.mountpoint, note)
    if held:
        what, instead = held[0]
        advice = f": benchmark {instead}" if instead else " (not mounted: nothing to benchmark)"
        return TargetChoice(None, f"{disk.name} is {what}{advice}")
    signature = _unused_signature(disk)
    if signature:
        return TargetChoice(None, signature)
    if disk.read_only:
        return TargetChoice(None, f"{disk.name} is read-only: there is nothing to write to")
    return TargetChoice(
        f"/dev/{disk.name}",
        f"{disk.name} holds no filesystem and nothing uses it: raw mode benchmarks the "
        "device itself. Start asks for its name, typed to confirm, and DESTROYS the data "
        "on it.",
        raw=True,
    )


def _own_mounts(inv: Inventory, disk: Disk, names: set[str]) -> list[Mount]:
    """Mounts whose source device is the disk or one of its partitions."""
    devnums = {disk.major_minor, *(p.major_minor for p in disk.partitions)}
    found = []
    for mount in inv.mounts:
        if mount.fs_type in _NOT_OWN:
            continue
        # btrfs mounts carry an anonymous 0:N device number: the source names the disk.
        if (
            mount.major_minor in devnums
            or inv.dev_names.get(mount.major_minor) in names
            or posixpath.basename(mount.source) in names
        ):
            found.append(mount)
    return found


def _multi_device(inv: Inventory, mount: Mount) -> bool:
    """A btrfs spanning several devices: mounting names one of them, but the result
    would be the filesystem's, not that disk's."""
    if mount.fs_type != "btrfs":
        return False
    return any(mount.mountpoint in fs.mountpoints and len(fs.devices) > 1 for fs in inv.btrfs)


def _writable(mount: Mount) -> bool:
    return "ro" not in mount.options


def _held_by(inv: Inventory, disk: Disk, names: set[str]) -> list[tuple[str, str | None]]:
    """(what holds the disk, the path to benchmark instead), most specific first."""
    held: list[tuple[str, str | None]] = []
    for pool in inv.zfs.pools:
        if disk.name in disks_under(inv, f"zpool:{pool.name}"):
            held.append((f"a member of ZFS pool {pool.name}", _zpool_mount(inv, pool.name)))
    for array in inv.md:
        if any(m.name in names for m in array.members):
            held.append((f"a member of md array {array.name}", _device_mount(inv, {array.name})))
    for fs in inv.btrfs:
        if any(posixpath.basename(d.path) in names for d in fs.devices):
            label = fs.label or fs.uuid[:8]
            point = fs.mountpoints[0] if fs.mountpoints else None
            held.append((f"a member of btrfs filesystem {label}", point))
    known = {a.name for a in inv.md}
    holders = [*disk.holders, *(h for p in disk.partitions for h in p.holders)]
    for holder in dict.fromkeys(h for h in holders if h not in known):
        held.append((f"held by {holder}", _device_mount(inv, {holder})))
    return held


_MEMBER_SIGNATURES = ("_member", "crypto_LUKS", "bcache")


def _unused_signature(disk: Disk) -> str | None:
    """Why a disk nothing uses here is still not free for raw mode: what it carries."""
    for name, fs in [(disk.name, disk.fs_type), *((p.name, p.fs_type) for p in disk.partitions)]:
        if not fs:
            continue
        if fs == "swap":
            return f"{name} is a swap area: raw mode would destroy it; benchmark another disk"
        if any(sign in fs for sign in _MEMBER_SIGNATURES):
            return (
                f"{name} carries a {fs} signature (part of an array, pool or encrypted "
                "volume not active here): raw mode would destroy it"
            )
        return (
            f"{name} holds a {fs} filesystem that is not mounted: mount it and benchmark "
            "the mountpoint (raw mode would destroy it)"
        )
    return None


# -- helpers ---------------------------------------------------------------------------------


def _mounted(inv: Inventory, point: str | None) -> str | None:
    return point if point and any(m.mountpoint == point for m in inv.mounts) else None


def _zpool_mount(inv: Inventory, pool: str) -> str | None:
    root = next((d for d in inv.zfs.datasets if d.name == pool), None)
    if root is not None and _mounted(inv, root.mountpoint):
        return root.mountpoint
    mounted = [d for d in inv.zfs.datasets if d.pool == pool and _mounted(inv, d.mountpoint)]
    return mounted[0].mountpoint if mounted else None


def _device_mount(inv: Inventory, names: set[str]) -> str | None:
    """The shortest mountpoint of a filesystem on one of these block devices."""
    found = [
        m
        for m in inv.mounts
        if inv.dev_names.get(m.major_minor) in names or posixpath.basename(m.source) in names
    ]
    return min(found, key=lambda m: (len(m.mountpoint), m.mountpoint)).mountpoint if found else None
