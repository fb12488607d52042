"""The environment a benchmark ran in: what could change its result next time.

Two runs on "the same" target are only comparable if the kernel, fio, the filesystem's
mount options, the mergerfs options (cache.files, direct_io ...) and the ZFS dataset
properties (recordsize, compression, sync, primarycache ...) are the same. Each part is
read on its own and a part that cannot be read stays empty: a fingerprint never stops a
run.
"""

from __future__ import annotations

import posixpath

from ...backends.host import Host
from ...backends.mergerfs import FS_TYPE as MERGERFS_FS_TYPE
from ...backends.mounts import mount_for_path
from ...core.bench_models import BenchTarget, EnvFingerprint, TargetKind
from ...core.errors import HostError
from ...core.models import Disk, Inventory, MergerfsPool, Mount

ZFS_GET_TIMEOUT = 10.0
# mergerfs options that change on every mount without changing behaviour: leaving them
# in would make two fingerprints of the same setup differ.
_VOLATILE_MERGERFS_OPTIONS = frozenset({"pid"})


def fio_version(host: Host) -> str | None:
    """Return "fio-3.33", or None when fio is missing or says something else."""
    try:
        result = host.run(["fio", "--version"])
    except HostError:
        return None
    text = result.stdout.strip()
    return text.splitlines()[0] if result.ok and text.startswith("fio-") else None


def parse_zfs_get(text: str) -> dict[str, str]:
    """``zfs get -H -p all DATASET`` -> property -> value. -H separates the columns
    (name, property, value, source) with single tabs; values may contain spaces."""
    props: dict[str, str] = {}
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) >= 3 and parts[1]:
            props[parts[1]] = parts[2]
    return props


def zfs_properties(host: Host, dataset: str) -> dict[str, str]:
    """The dataset's properties, or {} when zfs is missing or refuses."""
    try:
        result = host.run(["zfs", "get", "-H", "-p", "all", dataset], timeout=ZFS_GET_TIMEOUT)
    except HostError:
        return {}
    return parse_zfs_get(result.stdout) if result.ok else {}


def mergerfs_pool_for(inv: Inventory, path: str) -> MergerfsPool | None:
    mount = mount_for_path(inv.mounts, posixpath.normpath(path))
    if mount is None or mount.fs_type != MERGERFS_FS_TYPE:
        return None
    return next((p for p in inv.mergerfs if p.mountpoint == mount.mountpoint), None)


def _mount_options(mount: Mount) -> tuple[str, ...]:
    # Per-mount options first (rw, noatime), then the filesystem's own (space_cache,
    # compress=zstd); "rw" appears in both lists.
    return tuple(dict.fromkeys((*mount.options, *mount.super_options)))


def describe_disk(disk: Disk) -> str:
    """A model string for the fingerprint: vendor and model, or what a virtual disk is."""
    if disk.model:
        vendor = disk.vendor or ""
        return f"{vendor} {disk.model}".strip() if vendor not in disk.model else disk.model
    if disk.backing_file:
        return f"loop on {disk.backing_file}"
    return f"{disk.kind.value} (no model)"


def fingerprint(host: Host, inv: Inventory, target: BenchTarget) -> EnvFingerprint:
    """Read everything that could change a result on ``target``. Never raises for a
    missing tool: that part of the fingerprint stays empty."""
    mount = None if target.kind is TargetKind.RAW else mount_for_path(inv.mounts, target.path)
    fs_type = mount.fs_type if mount is not None else target.fs_type
    pool = mergerfs_pool_for(inv, target.path) if mount is not None else None

    zfs_version: str | None = None
    zfs_props: dict[str, str] = {}
    if mount is not None and mount.fs_type == "zfs":
        zfs_version = inv.zfs.version
        zfs_props = zfs_properties(host, mount.source)
    elif pool is not None:
        # mergerfs over ZFS datasets (seed 000): each branch dataset's properties, keyed
        # "DATASET:property" since one flat dict holds them all.
        for branch in pool.branches:
            under = mount_for_path(inv.mounts, branch.path)
            if under is not None and under.fs_type == "zfs":
                zfs_version = inv.zfs.version
                for key, value in zfs_properties(host, under.source).items():
                    zfs_props[f"{under.source}:{key}"] = value

    models: dict[str, str] = {}
    for name in target.disks:
        disk = inv.disk(name)
        if disk is not None:
            models[name] = describe_disk(disk)

    return EnvFingerprint(
        kernel=inv.kernel or host.kernel,
        fio_version=fio_version(host),
        fs_type=fs_type,
        mount_options=_mount_options(mount) if mount is not None else (),
        mergerfs_version=pool.version if pool is not None else None,
        mergerfs_options=(
            {k: v for k, v in pool.options.items() if k not in _VOLATILE_MERGERFS_OPTIONS}
            if pool is not None
            else {}
        ),
        zfs_version=zfs_version,
        zfs_properties=zfs_props,
        disk_models=models,
    )
