"""What a path is as a benchmark target (pool, branch, dataset, mount, device), and the
targets a picker offers.

Apart from the checks in ``preflight``: naming a target reads only the inventory, and
the screens list targets without planning a run.
"""

from __future__ import annotations

import posixpath

from ...backends.mergerfs import FS_TYPE as MERGERFS_FS_TYPE
from ...backends.mounts import PSEUDO_FS_TYPES, mount_for_path
from ...core.bench_models import BenchRefused, BenchTarget, TargetKind
from ...core.models import BranchMode, Disk, Inventory, Mount, Partition
from ...core.relations import disks_under

# Mounts not offered as benchmark targets: kernel pseudo filesystems, memory-backed and
# read-only images. A typed path on tmpfs is still accepted (plan_run), just not listed.
_UNLISTED_FS = PSEUDO_FS_TYPES | {"tmpfs", "ramfs", "squashfs", "iso9660", "udf", "overlay"}


def _within(path: str, top: str) -> bool:
    top = top.rstrip("/") or "/"
    return path == top or top == "/" or path.startswith(top + "/")


def _suffix(path: str, top: str) -> str:
    return "" if path == top else f" ({path})"


def block_device(inv: Inventory, path: str) -> tuple[Disk, Partition | None] | None:
    """The inventory disk (and partition) a /dev path names, if it names one."""
    base = posixpath.basename(path)
    for disk in inv.disks:
        if base == disk.name or path == disk.path or path in disk.by_id:
            return disk, None
        for part in disk.partitions:
            if base == part.name or path == part.path:
                return disk, part
    return None


def _branch_for(inv: Inventory, path: str) -> str | None:
    best: str | None = None
    for pool in inv.mergerfs:
        for branch in pool.branches:
            point = posixpath.normpath(branch.path)
            if _within(path, point) and (best is None or len(point) > len(best)):
                best = point
    return best


def resolve_target(inv: Inventory, path: str) -> BenchTarget:
    """What ``path`` is in the inventory, and the disks under it. ``path`` should be
    canonical (plan_run resolves symlinks through the host first)."""
    if not path.startswith("/"):
        raise BenchRefused(f"{path!r}: give an absolute path")
    path = posixpath.normpath(path)
    if path.startswith("/dev/"):
        found = block_device(inv, path)
        if found is not None:
            disk, part = found
            node = part.path if part is not None else disk.path
            fs_type = part.fs_type if part is not None else disk.fs_type
            return BenchTarget(node, TargetKind.RAW, f"raw {node}", (disk.name,), fs_type)
    mount = mount_for_path(inv.mounts, path)
    disks = disks_under(inv, path)
    fs_type = mount.fs_type if mount is not None else None
    point = mount.mountpoint if mount is not None else None
    branch = _branch_for(inv, path)
    if mount is not None and mount.fs_type == MERGERFS_FS_TYPE:
        kind, label = TargetKind.MERGERFS, f"mergerfs {point}{_suffix(path, mount.mountpoint)}"
    elif branch is not None:
        kind, label = TargetKind.BRANCH, f"branch {branch}{_suffix(path, branch)}"
    elif mount is not None and mount.fs_type == "zfs":
        kind, label = TargetKind.ZFS, f"zfs {mount.source}{_suffix(path, mount.mountpoint)}"
    elif mount is not None and path == mount.mountpoint:
        kind, label = TargetKind.MOUNT, f"{mount.fs_type} {path}"
    else:
        kind, label = TargetKind.PATH, f"path {path}"
    return BenchTarget(path, kind, label, disks, fs_type, point)


def _listable(mount: Mount) -> bool:
    return (
        mount.fs_type not in _UNLISTED_FS
        and "ro" not in mount.options
        and not mount.mountpoint.startswith(("/proc", "/sys", "/dev", "/run", "/snap"))
    )


def picker_targets(inv: Inventory | None) -> tuple[BenchTarget, ...]:
    """``list_targets`` for the setup's picker: none without an inventory, and none
    rather than an error (a picker bug must not block typing a path)."""
    if inv is None:
        return ()
    try:
        return list_targets(inv)
    except Exception:  # noqa: BLE001 - the path can still be typed
        return ()


def list_targets(inv: Inventory) -> tuple[BenchTarget, ...]:
    """Benchmark targets for a picker: mergerfs pools, their branches, mounted ZFS
    datasets, then other writable storage mounts. Each path once."""
    paths: list[str] = []
    for pool in inv.mergerfs:
        paths.append(pool.mountpoint)
    for pool in inv.mergerfs:
        paths += [b.path for b in pool.branches if b.mode is not BranchMode.RO]
    mounted = {m.mountpoint for m in inv.mounts}
    for dataset in inv.zfs.datasets:
        point = dataset.mountpoint
        if dataset.kind == "filesystem" and point is not None and point in mounted:
            paths.append(point)
    paths += [m.mountpoint for m in inv.mounts if _listable(m)]
    seen: set[str] = set()
    targets: list[BenchTarget] = []
    for path in paths:
        path = posixpath.normpath(path)
        if path not in seen:
            seen.add(path)
            targets.append(resolve_target(inv, path))
    return tuple(targets)
