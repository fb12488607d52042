"""Will the test files fit: free space on the target, copy-on-write's extra room, and
for a mergerfs pool the emptiest branch that must hold the largest file.

Apart from ``preflight``: the space rules (statvfs, CoW, ZFS copies, minfreespace)
are a concern of their own, and the longest of the checks.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import dataclass

from ...backends.host import FsUsage, Host
from ...backends.mounts import (
    NETWORK_STATVFS_TIMEOUT,
    may_hang,
    mount_for_path,
    statvfs_with_timeout,
)
from ...core.bench_models import (
    BenchRefused,
    BenchTarget,
    RefusalKind,
    RunWarning,
    TargetKind,
    WarningKind,
)
from ...core.errors import HostError
from ...core.models import BranchMode, Inventory, MergerfsPool
from ...core.placement import BenchFile
from ...core.units import format_bytes, format_bytes_exact


def _usage(host: Host, path: str, fs_type: str | None) -> FsUsage:
    try:
        if fs_type is not None and may_hang(fs_type):
            return statvfs_with_timeout(host, path, NETWORK_STATVFS_TIMEOUT)
        return host.statvfs(path)
    except TimeoutError as exc:
        raise BenchRefused(f"cannot check free space on {path}: {exc}") from exc
    except (OSError, HostError) as exc:
        raise BenchRefused(f"cannot check free space on {path}: {exc}") from exc


# Copy-on-write filesystems write new blocks before freeing the old ones (btrfs frees
# them at the next commit, and a 4 KiB overwrite keeps its whole old extent pinned):
# measured on the lab's btrfs raid1, randwrite over a 180 MiB file with 215 MiB free
# hit ENOSPC. statvfs already divides by the data profile's copies (raid1/dup: 215 MiB
# of 512 MiB raw), so copies are not counted twice; ZFS "copies=N" is not in statvfs.
COW_FS = frozenset({"btrfs", "zfs", "bcachefs"})


@dataclass(frozen=True)
class SpaceNeed:
    """What the test files take on one filesystem, and why."""

    bytes: int
    largest_file: int
    why: str  # "" or the reason it is more than the files' sizes


def space_need(files: Sequence[BenchFile], fs_type: str | None, copies: int = 1) -> SpaceNeed:
    cow = fs_type in COW_FS
    total = largest = 0
    rewritten = False
    for f in files:
        size = (f.size_bytes or 0) * copies
        if cow and f.overwritten:
            size *= 2
            rewritten = True
        total += size
        largest = max(largest, size)
    reasons = []
    if rewritten:
        reasons.append(
            f"{fs_type} is copy-on-write: files written over again need room for the old "
            "and the new blocks, up to twice their size"
        )
    if copies > 1:
        reasons.append(f"the dataset keeps copies={copies}")
    return SpaceNeed(total, largest, "; ".join(reasons))


def _zfs_copies(host: Host, target: BenchTarget, inv: Inventory) -> int:
    if target.fs_type != "zfs" or target.mountpoint is None:
        return 1
    from .fingerprint import zfs_properties

    mount = next((m for m in inv.mounts if m.mountpoint == target.mountpoint), None)
    if mount is None:
        return 1
    value = zfs_properties(host, mount.source).get("copies", "1")
    return int(value) if value.isdigit() and int(value) > 0 else 1


def check_space(
    host: Host, inv: Inventory, target: BenchTarget, files: Sequence[BenchFile]
) -> tuple[RunWarning, ...]:
    """``files``: those still to be created (a sweep's kept files already take their
    room on the target, and its free space already says so)."""
    pool = _pool_at(inv, target)
    fs_type = target.fs_type
    if pool is not None:  # the branches' filesystems decide, not fuse.mergerfs
        branch_types = {_fs_type_at(inv, b.path) for b in pool.branches}
        fs_type = next((t for t in branch_types if t in COW_FS), fs_type)
    need = space_need(files, fs_type, _zfs_copies(host, target, inv))
    usage = _usage(host, target.path, target.fs_type)
    if usage.size_bytes == 0:
        # ramfs (and mergerfs over it) report no capacity at all: nothing to compare.
        return (
            RunWarning(
                WarningKind.NO_CAPACITY,
                f"{target.label} reports no capacity (ramfs?): free space was not checked",
            ),
        )
    # Keep a little free: filling a NAS filesystem to the last byte hurts everything
    # else running on it, and filesystems need room for their own metadata.
    reserve = min(1 << 30, usage.size_bytes // 100)
    if need.bytes > usage.avail_bytes - reserve:
        count = len(files)
        raise BenchRefused(
            f"not enough free space on {target.label}: the {count} test "
            f"file{'s need' if count != 1 else ' needs'} {format_bytes_exact(need.bytes)}"
            + (f" ({need.why})" if need.why else "")
            + f", but only {format_bytes_exact(usage.avail_bytes)} is available"
            + (f" (tierdeck keeps {format_bytes(reserve)} free)" if reserve else "")
            + ". Choose a smaller size, fewer jobs or fewer files.",
            kind=RefusalKind.NO_SPACE,
        )
    if pool is not None:
        _check_branches(host, inv, pool, target, files)
    return ()


def _fs_type_at(inv: Inventory, path: str) -> str | None:
    mount = mount_for_path(inv.mounts, posixpath.normpath(path))
    return mount.fs_type if mount is not None else None


def _pool_at(inv: Inventory, target: BenchTarget) -> MergerfsPool | None:
    if target.kind is not TargetKind.MERGERFS:
        return None
    return next((p for p in inv.mergerfs if p.mountpoint == target.mountpoint), None)


def _check_branches(
    host: Host, inv: Inventory, pool: MergerfsPool, target: BenchTarget, files: Sequence[BenchFile]
) -> None:
    # A mergerfs file lives on one branch: the pool's summed free space says nothing
    # about whether the largest test file fits anywhere.
    best = 0
    largest = 0
    for branch in pool.branches:
        if branch.mode is not BranchMode.RW:
            continue
        fs_type = _fs_type_at(inv, branch.path)
        try:
            # a branch on NFS or FUSE may hang: with a timeout, as the target's own check
            avail = _usage(host, branch.path, fs_type).avail_bytes
        except BenchRefused:
            continue
        largest = max(largest, space_need(files, fs_type).largest_file)
        best = max(best, avail - (pool.branch_minfreespace(branch) or 0))
    if largest > best:
        raise BenchRefused(
            f"not enough free space on any branch of {target.label}: a test file needs "
            f"{format_bytes_exact(largest)}, but the emptiest writable branch has only {format_bytes_exact(best)} "
            "above minfreespace, and mergerfs keeps each file on one branch. "
            "Choose a smaller size.",
            kind=RefusalKind.NO_SPACE,
        )
