"""Collect the whole storage inventory of a host.

Each source (disks, mounts, mergerfs, ZFS, btrfs, md) is read on its own; a source that
fails becomes a note and an empty section, so one broken tool never hides the rest.
ZFS runs external commands, so it runs in a thread beside the sysfs readers.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from ..backends.btrfs import read_btrfs
from ..backends.disks import read_disks
from ..backends.host import Host
from ..backends.md import read_md
from ..backends.mergerfs import read_mergerfs
from ..backends.mounts import read_mounts
from ..backends.zfs import read_zfs
from ..core.errors import TierdeckError
from ..core.models import (
    BtrfsFilesystem,
    Disk,
    Inventory,
    MdArray,
    MergerfsPool,
    Mount,
    SourceNote,
    ZfsInfo,
)

T = TypeVar("T")
Notes = tuple[SourceNote, ...]

# Kernel devices that stack on others: their "slaves" lead down to disks.
_STACKED_PREFIXES = ("dm-", "md", "bcache")


def _guard(source: str, read: Callable[[], tuple[T, Notes]], empty: T) -> tuple[T, Notes]:
    try:
        return read()
    except (TierdeckError, OSError) as exc:
        return empty, (SourceNote(source, str(exc)),)


def _read_stacking(host: Host) -> tuple[dict[str, str], dict[str, tuple[str, ...]]]:
    """major:minor -> name for stacked devices, and what each one sits on."""
    dev_names: dict[str, str] = {}
    slaves: dict[str, tuple[str, ...]] = {}
    try:
        names = host.listdir("/sys/block")
    except (OSError, TierdeckError):
        return dev_names, slaves
    for name in names:
        if not name.startswith(_STACKED_PREFIXES):
            continue
        try:
            dev_names[host.read_text(f"/sys/block/{name}/dev").strip()] = name
            slaves[name] = tuple(host.listdir(f"/sys/block/{name}/slaves"))
        except (OSError, TierdeckError):
            continue
    return dev_names, slaves


def collect_inventory(host: Host) -> Inventory:
    """Read everything tierdeck shows. Never raises for a missing tool or an
    unreadable source: those become ``Inventory.notes``."""
    with ThreadPoolExecutor(max_workers=3) as pool:
        zfs_future = pool.submit(read_zfs, host)
        md_future = pool.submit(_guard, "md", lambda: read_md(host), tuple[MdArray, ...]())
        disks, disk_notes = _guard("disks", lambda: read_disks(host), tuple[Disk, ...]())
        mounts, mount_notes = _guard("mounts", lambda: read_mounts(host), tuple[Mount, ...]())
        mergerfs, mergerfs_notes = _guard(
            "mergerfs", lambda: read_mergerfs(host, mounts), tuple[MergerfsPool, ...]()
        )
        btrfs, btrfs_notes = _guard(
            "btrfs", lambda: read_btrfs(host, mounts), tuple[BtrfsFilesystem, ...]()
        )
        dev_names, slaves = _read_stacking(host)
        md, md_notes = md_future.result()
        try:
            zfs = zfs_future.result()
        except (TierdeckError, OSError) as exc:
            zfs = ZfsInfo(available=False, message=str(exc))

    for disk in disks:
        dev_names[disk.major_minor] = disk.name
        for part in disk.partitions:
            dev_names[part.major_minor] = part.name
    notes = disk_notes + mount_notes + mergerfs_notes + btrfs_notes + md_notes
    if zfs.message and zfs.available:
        notes += (SourceNote("zfs", zfs.message),)
    return Inventory(
        hostname=host.hostname,
        kernel=host.kernel,
        is_root=host.is_root,
        disks=disks,
        mounts=mounts,
        mergerfs=mergerfs,
        zfs=zfs,
        btrfs=btrfs,
        md=md,
        notes=notes,
        dev_names=dev_names,
        slaves=slaves,
    )
