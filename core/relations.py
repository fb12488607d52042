"""Which physical disks hold this path?

The answer walks the inventory down: path -> mount -> (mergerfs branches | ZFS pool leaves
| btrfs devices | block device) -> stacked devices (dm, md, bcache via ``slaves``) ->
partitions -> whole disks. Loop devices are disks of their own (marked virtual), so the
walk stops there: a lab NAS built on loop files resolves to its loops.

Named targets that are not paths use a prefix: ``zpool:NAME``, ``zfs:DATASET``,
``btrfs:UUID``, ``md:md127``.
"""

from __future__ import annotations

import posixpath

from .models import Inventory, Mount

_MAX_DEPTH = 16  # mergerfs over mergerfs over ...: deep enough, and stops a loop


class _Resolver:
    def __init__(self, inv: Inventory) -> None:
        self.inv = inv
        self.disk_names = {d.name for d in inv.disks}
        self.partition_parent = {p.name: d.name for d in inv.disks for p in d.partitions}
        self.by_id: dict[str, str] = {}
        for disk in inv.disks:
            for link in disk.by_id:
                self.by_id[posixpath.basename(link)] = disk.name
        # Holders recorded on disks/partitions give the reverse edge of "slaves".
        self.slaves: dict[str, set[str]] = {k: set(v) for k, v in inv.slaves.items()}
        for disk in inv.disks:
            for holder in disk.holders:
                self.slaves.setdefault(holder, set()).add(disk.name)
            for part in disk.partitions:
                for holder in part.holders:
                    self.slaves.setdefault(holder, set()).add(part.name)
        for array in inv.md:
            self.slaves.setdefault(array.name, set()).update(m.name for m in array.members)
        self.mounts_by_point = sorted(inv.mounts, key=lambda m: len(m.mountpoint), reverse=True)

    # -- devices ---------------------------------------------------------------------
    def device(self, name: str, depth: int = 0) -> set[str]:
        if depth > _MAX_DEPTH:
            return set()
        if name in self.disk_names:
            return {name}
        if name in self.partition_parent:
            return {self.partition_parent[name]}
        result: set[str] = set()
        for lower in self.slaves.get(name, ()):
            result |= self.device(lower, depth + 1)
        return result

    def device_path(self, path: str, depth: int = 0) -> set[str]:
        """A device given as a path: /dev/sda1, /dev/disk/by-id/..., /dev/mapper/x."""
        base = posixpath.basename(path.rstrip("/"))
        if path.startswith("/dev/disk/by-") or base in self.by_id:
            return self.zfs_leaf(base, depth)
        if path.startswith("/dev/mapper/") or path.startswith("/dev/md/"):
            # Only the major:minor maps these to kernel names; callers pass the mount.
            return set()
        return self.device(base, depth)

    def zfs_leaf(self, leaf: str, depth: int) -> set[str]:
        """A vdev leaf as zpool prints it: sdb, nvme0n1, ata-WDC_..., wwn-...-part1,
        /dev/sdb1, /dev/disk/by-id/..., or a file path (/tmp/disks/rust.bin)."""
        base = posixpath.basename(leaf)
        for candidate in (base, _strip_part_suffix(base)):
            if candidate in self.by_id:
                return {self.by_id[candidate]}
        found = self.device(base, depth)
        if found:
            return found
        if leaf.startswith("/") and not leaf.startswith("/dev/"):
            return self.path(leaf, depth + 1)  # a file vdev: the disks under the file
        return set()

    # -- mounts and paths ------------------------------------------------------------
    def mount_for(self, path: str) -> Mount | None:
        path = posixpath.normpath(path)
        for mount in self.mounts_by_point:
            point = mount.mountpoint
            if path == point or point == "/" or path.startswith(point.rstrip("/") + "/"):
                return mount
        return None

    def mount(self, mount: Mount, depth: int) -> set[str]:
        if depth > _MAX_DEPTH:
            return set()
        if mount.fs_type == "fuse.mergerfs":
            return self.mergerfs(mount.mountpoint, depth)
        if mount.fs_type == "zfs":
            return self.zfs_dataset(mount.source, depth)
        if mount.fs_type == "btrfs":
            for fs in self.inv.btrfs:
                sources = {posixpath.basename(d.path) for d in fs.devices}
                if mount.mountpoint in fs.mountpoints or (
                    posixpath.basename(mount.source) in sources
                ):
                    return self.btrfs(fs.uuid, depth)
        name = self.inv.dev_names.get(mount.major_minor)
        if name is not None:
            return self.device(name, depth + 1)
        if mount.source.startswith("/dev/"):
            return self.device_path(mount.source, depth + 1)
        return set()

    def path(self, path: str, depth: int = 0) -> set[str]:
        mount = self.mount_for(path)
        return self.mount(mount, depth + 1) if mount is not None else set()

    # -- pools -----------------------------------------------------------------------
    def mergerfs(self, mountpoint: str, depth: int) -> set[str]:
        result: set[str] = set()
        for pool in self.inv.mergerfs:
            if pool.mountpoint == mountpoint:
                for branch in pool.branches:
                    result |= self.path(branch.path, depth + 1)
        return result

    def zpool(self, name: str, depth: int) -> set[str]:
        result: set[str] = set()
        for pool in self.inv.zfs.pools:
            if pool.name == name:
                for leaf in pool.leaves():
                    result |= self.zfs_leaf(leaf.name, depth + 1)
        return result

    def zfs_dataset(self, dataset: str, depth: int) -> set[str]:
        return self.zpool(dataset.split("/", 1)[0].split("@", 1)[0], depth)

    def btrfs(self, uuid: str, depth: int) -> set[str]:
        result: set[str] = set()
        for fs in self.inv.btrfs:
            if fs.uuid == uuid:
                for dev in fs.devices:
                    result |= self.device_path(dev.path, depth + 1)
        return result

    def target(self, target: str) -> set[str]:
        kind, _, name = target.partition(":")
        if kind == "zpool" and name:
            return self.zpool(name, 0)
        if kind == "zfs" and name:
            return self.zfs_dataset(name, 0)
        if kind == "btrfs" and name:
            return self.btrfs(name, 0)
        if kind == "md" and name:
            return self.device(name)
        return self.path(target)


def _strip_part_suffix(name: str) -> str:
    head, sep, tail = name.rpartition("-part")
    return head if sep and tail.isdigit() else name


def disks_under(inv: Inventory, target: str) -> tuple[str, ...]:
    """Names of the disks (as in ``inv.disks``) that hold ``target``, sorted.

    ``target`` is a path (any file or directory, a mountpoint, a mergerfs branch) or a
    named target: ``zpool:NAME``, ``zfs:DATASET``, ``btrfs:UUID``, ``md:NAME``.
    """
    return tuple(sorted(_Resolver(inv).target(target)))


def relation_map(inv: Inventory) -> dict[str, dict[str, list[str]]]:
    """Every mount, mergerfs pool and branch, ZFS pool and dataset, btrfs filesystem and
    md array, mapped to the disks under it. This is the ``relations`` part of
    ``tierdeck inventory --json``."""
    resolver = _Resolver(inv)

    def names(found: set[str]) -> list[str]:
        return sorted(found)

    mounts = {m.mountpoint: names(resolver.mount(m, 0)) for m in inv.mounts}
    mergerfs: dict[str, list[str]] = {}
    branches: dict[str, list[str]] = {}
    for pool in inv.mergerfs:
        mergerfs[pool.mountpoint] = names(resolver.mergerfs(pool.mountpoint, 0))
        for branch in pool.branches:
            branches[branch.path] = names(resolver.path(branch.path))
    return {
        "mounts": mounts,
        "mergerfs": mergerfs,
        "mergerfs_branches": branches,
        "zpools": {p.name: names(resolver.zpool(p.name, 0)) for p in inv.zfs.pools},
        "zfs_datasets": {d.name: names(resolver.zfs_dataset(d.name, 0)) for d in inv.zfs.datasets},
        "btrfs": {fs.uuid: names(resolver.btrfs(fs.uuid, 0)) for fs in inv.btrfs},
        "md": {a.name: names(resolver.device(a.name)) for a in inv.md},
    }


def disk_users(inv: Inventory) -> dict[str, tuple[str, ...]]:
    """The reverse of disks_under, for every disk at once: what sits on each disk.

    Per disk, in this order: ZFS pools ("zfs:cache"), md arrays ("md127"), btrfs
    filesystems ("btrfs:label"), then mountpoints of block filesystems on it (one per
    device, the shortest: a disk bind-mounted twice shows once). Computed in one pass
    over the inventory, so a 240-disk table costs the same as a 2-disk one per row.
    """
    resolver = _Resolver(inv)
    users: dict[str, list[str]] = {d.name: [] for d in inv.disks}

    def add(disks: set[str], item: str) -> None:
        for name in sorted(disks):
            if name in users and item not in users[name]:
                users[name].append(item)

    for pool in inv.zfs.pools:
        add(resolver.zpool(pool.name, 0), f"zfs:{pool.name}")
    for array in inv.md:
        add(resolver.device(array.name), array.name)
    for fs in inv.btrfs:
        add(resolver.btrfs(fs.uuid, 0), f"btrfs:{fs.label or fs.uuid[:8]}")
    shortest: dict[str, Mount] = {}
    for mount in inv.mounts:
        if mount.fs_type in ("fuse.mergerfs", "zfs", "btrfs"):
            continue  # shown as the pool above; mergerfs has its own section
        best = shortest.get(mount.major_minor)
        if best is None or (len(mount.mountpoint), mount.mountpoint) < (
            len(best.mountpoint),
            best.mountpoint,
        ):
            shortest[mount.major_minor] = mount
    for mount in sorted(shortest.values(), key=lambda m: (len(m.mountpoint), m.mountpoint)):
        add(resolver.mount(mount, 0), mount.mountpoint)
    return {name: tuple(items) for name, items in users.items()}
