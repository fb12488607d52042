"""The storage inventory as typed, frozen dataclasses.

Backends build these; the CLI serialises them (see ``core.serialize``); the TUI draws
them. Nothing here does I/O. Sizes are always bytes (int); ``None`` means "unknown or
unreadable", never zero.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class DiskKind(StrEnum):
    HDD = "hdd"
    SSD = "ssd"
    NVME = "nvme"
    VIRTUAL = "virtual"  # loop, zram, ram, nbd: no physical medium of their own
    OPTICAL = "optical"
    UNKNOWN = "unknown"


class Severity(StrEnum):
    INFO = "info"
    WARNING = "warning"
    CRITICAL = "critical"


# Each dataclass has a docstring: one without gets its signature as docstring, built
# with inspect at import (about 1 ms in all, before the dashboard's first paint).
@dataclass(frozen=True)
class Partition:
    """A partition of a disk."""

    name: str  # "sda1"
    path: str  # "/dev/sda1"
    number: int | None
    size_bytes: int
    major_minor: str  # "8:1"
    fs_type: str | None = None
    fs_label: str | None = None
    fs_uuid: str | None = None
    holders: tuple[str, ...] = ()  # kernel names holding it: "md127", "dm-0"


@dataclass(frozen=True)
class Disk:
    """A whole block device: a physical disk, or a virtual one (loop, zram)."""

    name: str  # "sda", "nvme0n1", "loop3"
    path: str  # "/dev/sda"
    major_minor: str  # "8:0"; the key into /proc/diskstats and blkio cgroups
    kind: DiskKind
    size_bytes: int
    rotational: bool | None
    model: str | None = None
    vendor: str | None = None
    serial: str | None = None
    wwn: str | None = None
    firmware: str | None = None
    transport: str | None = None  # "sata", "sas", "nvme", "usb", "virtio", "loop" ...
    hctl: str | None = None  # "0:0:1:0" from lsscsi / sysfs scsi address
    by_id: tuple[str, ...] = ()  # "/dev/disk/by-id/ata-WDC_WD180EDGZ-..."
    partitions: tuple[Partition, ...] = ()
    holders: tuple[str, ...] = ()  # holders of the whole disk (md, dm, bcache)
    fs_type: str | None = None  # a filesystem written straight on the disk
    fs_label: str | None = None
    fs_uuid: str | None = None
    removable: bool = False
    read_only: bool = False
    backing_file: str | None = None  # loop devices only
    notes: tuple[str, ...] = ()  # what could not be read, and why

    @property
    def virtual(self) -> bool:
        return self.kind is DiskKind.VIRTUAL


@dataclass(frozen=True)
class Mount:
    """One line of /proc/self/mountinfo, with df's figures when they could be read."""

    mount_id: int
    parent_id: int
    major_minor: str  # st_dev of the filesystem, "0:39" for FUSE/tmpfs
    root: str  # the path inside the filesystem that is mounted here ("/" or a subvol)
    mountpoint: str  # unescaped ("\040" is a space)
    fs_type: str  # "ext4", "fuse.mergerfs", "zfs", "btrfs"
    source: str  # "/dev/sdc", "cache/data", "mergerfs"
    options: tuple[str, ...]  # per-mount options ("rw", "relatime")
    super_options: tuple[str, ...]  # filesystem options ("ssd", "space_cache")
    size_bytes: int | None = None
    used_bytes: int | None = None
    avail_bytes: int | None = None

    @property
    def use_fraction(self) -> float | None:
        """Used share as df computes it: used / (used + avail)."""
        if self.used_bytes is None or self.avail_bytes is None:
            return None
        denominator = self.used_bytes + self.avail_bytes
        return self.used_bytes / denominator if denominator else None


class BranchMode(StrEnum):
    RW = "RW"
    RO = "RO"
    NC = "NC"  # no-create: existing files are writable, new ones never land here


@dataclass(frozen=True)
class MergerfsBranch:
    """One branch of a mergerfs pool, with its mode."""

    path: str
    mode: BranchMode
    minfreespace_bytes: int | None  # per-branch override; None = pool's minfreespace
    size_bytes: int | None = None
    avail_bytes: int | None = None


@dataclass(frozen=True)
class MergerfsPool:
    """A mounted mergerfs pool: its branches and runtime options."""

    mountpoint: str
    fsname: str
    version: str | None
    branches: tuple[MergerfsBranch, ...]
    options: dict[str, str]  # every runtime option, keys spelled with "-" (normalised)
    create_policy: str | None  # category.create / func.create
    minfreespace_bytes: int | None
    size_bytes: int | None = None
    avail_bytes: int | None = None
    error: str | None = None  # set when the .mergerfs control file could not be read

    def branch_minfreespace(self, branch: MergerfsBranch) -> int | None:
        if branch.minfreespace_bytes is not None:
            return branch.minfreespace_bytes
        return self.minfreespace_bytes


class VdevKind(StrEnum):
    ROOT = "root"
    MIRROR = "mirror"
    RAIDZ = "raidz"
    DRAID = "draid"
    REPLACING = "replacing"
    SPARE = "spare"  # a "spare-N" group while a hot spare stands in
    DISK = "disk"
    FILE = "file"
    MISSING = "missing"  # a leaf shown only by GUID
    INDIRECT = "indirect"


class VdevClass(StrEnum):
    DATA = "data"
    LOG = "log"
    CACHE = "cache"
    SPARE = "spare"
    SPECIAL = "special"
    DEDUP = "dedup"


@dataclass(frozen=True)
class Vdev:
    """A node of a zpool's vdev tree: a group (mirror, raidz) or a leaf (disk, file)."""

    name: str  # as zpool prints it: "mirror-0", "sdb", "/tmp/disks/rust.bin"
    kind: VdevKind
    state: str  # ONLINE, DEGRADED, FAULTED, OFFLINE, UNAVAIL, REMOVED, AVAIL, INUSE
    read_errors: int = 0
    write_errors: int = 0
    checksum_errors: int = 0
    note: str | None = None  # "(resilvering)", "was /dev/sdb1", "too many errors" ...
    children: tuple[Vdev, ...] = ()
    vdev_class: VdevClass = VdevClass.DATA
    parity: int | None = None  # raidz1-3 / draid parity
    draid_config: str | None = None  # "draid2:4d:11c:1s" style spec

    @property
    def is_leaf(self) -> bool:
        return not self.children and self.kind in (VdevKind.DISK, VdevKind.FILE, VdevKind.MISSING)

    def leaves(self) -> tuple[Vdev, ...]:
        if not self.children:
            return (self,)
        return tuple(leaf for child in self.children for leaf in child.leaves())

    @property
    def healthy(self) -> bool:
        return self.state in ("ONLINE", "AVAIL") and not (
            self.read_errors or self.write_errors or self.checksum_errors
        )


@dataclass(frozen=True)
class ScanStatus:
    """A zpool's last or running scrub or resilver."""

    function: str  # "scrub", "resilver", "none"
    state: str  # "in_progress", "finished", "canceled", "none"
    text: str  # zpool's own words, joined to one line
    percent_done: float | None = None
    eta: str | None = None


@dataclass(frozen=True)
class ZPool:
    """An imported zpool: its vdev tree by class, errors and capacity."""

    name: str
    state: str
    vdevs: tuple[Vdev, ...]  # top-level data vdevs
    logs: tuple[Vdev, ...] = ()
    cache: tuple[Vdev, ...] = ()
    spares: tuple[Vdev, ...] = ()
    special: tuple[Vdev, ...] = ()
    dedup: tuple[Vdev, ...] = ()
    read_errors: int = 0
    write_errors: int = 0
    checksum_errors: int = 0
    status: str | None = None  # the "status:" paragraph
    action: str | None = None
    scan: ScanStatus | None = None
    errors: str | None = None  # "No known data errors" ...
    size_bytes: int | None = None  # from zpool list
    alloc_bytes: int | None = None
    free_bytes: int | None = None
    fragmentation_pct: int | None = None
    capacity_pct: int | None = None
    dedup_ratio: float | None = None
    health: str | None = None

    def all_vdevs(self) -> tuple[Vdev, ...]:
        return self.vdevs + self.logs + self.cache + self.spares + self.special + self.dedup

    def leaves(self) -> tuple[Vdev, ...]:
        return tuple(leaf for v in self.all_vdevs() for leaf in v.leaves())


@dataclass(frozen=True)
class ZfsDataset:
    """A ZFS filesystem, volume or snapshot."""

    name: str  # "cache/media"
    kind: str  # "filesystem", "volume", "snapshot"
    used_bytes: int | None
    avail_bytes: int | None
    refer_bytes: int | None
    mountpoint: str | None  # None for volumes, "none" / "legacy" kept as given

    @property
    def pool(self) -> str:
        return self.name.split("/", 1)[0].split("@", 1)[0]


@dataclass(frozen=True)
class ZfsInfo:
    """What ZFS the machine has, and its pools and datasets."""

    available: bool  # False when zpool/zfs are not installed
    version: str | None = None  # "zfs-2.1.4-0ubuntu0.1"
    json_output: bool = False  # True when OpenZFS >= 2.3 answered -j
    pools: tuple[ZPool, ...] = ()
    datasets: tuple[ZfsDataset, ...] = ()
    message: str | None = None  # why the section is empty, or what failed


@dataclass(frozen=True)
class BtrfsDevice:
    """A device of a btrfs filesystem."""

    devid: int
    path: str  # "/dev/loop3"
    size_bytes: int | None = None
    missing: bool = False


@dataclass(frozen=True)
class BtrfsAllocation:
    """Space a btrfs filesystem allocated to one kind of chunk."""

    kind: str  # "data", "metadata", "system"
    profile: str  # "RAID1", "single", "DUP" ...
    total_bytes: int
    used_bytes: int


@dataclass(frozen=True)
class BtrfsFilesystem:
    """A btrfs filesystem: its devices, allocations and mountpoints."""

    uuid: str
    label: str | None
    devices: tuple[BtrfsDevice, ...]
    allocations: tuple[BtrfsAllocation, ...]
    mountpoints: tuple[str, ...] = ()
    total_bytes: int | None = None  # sum of device sizes

    def profile(self, kind: str) -> str | None:
        profiles = {a.profile for a in self.allocations if a.kind == kind}
        return "/".join(sorted(profiles)) if profiles else None


@dataclass(frozen=True)
class MdMember:
    """A member of an md array."""

    name: str  # "sdb1"
    slot: int | None  # RaidDevice number; None for spares
    state: str  # "in_sync", "faulty", "spare", "write_mostly,in_sync" ...


@dataclass(frozen=True)
class MdArray:
    """A Linux software RAID (md) array."""

    name: str  # "md127"
    level: str  # "raid1"
    state: str  # "active", "clean", "degraded"? (array_state / mdstat)
    members: tuple[MdMember, ...]
    raid_disks: int | None = None
    active_disks: int | None = None  # "[2/1]" in mdstat: the 1
    size_bytes: int | None = None
    sync_action: str | None = None  # idle, resync, recover, check, repair, reshape
    sync_progress: float | None = None  # 0..100
    sync_eta: str | None = None  # "finish=12.3min"
    sync_speed: str | None = None  # "speed=123456K/sec"
    bitmap: str | None = None  # "internal", "none", or a file path
    metadata_version: str | None = None

    @property
    def degraded(self) -> bool:
        return (
            self.raid_disks is not None
            and self.active_disks is not None
            and self.active_disks < self.raid_disks
        )


@dataclass(frozen=True)
class Problem:
    """Something an admin should look at, found in an inventory (core.health)."""

    severity: Severity
    subject: str  # "zpool tank", "mergerfs /mnt/slow branch /mnt/disk1"
    message: str


@dataclass(frozen=True)
class SourceNote:
    """A source (ZFS, udev, a mount) that could not be read fully: shown, never fatal."""

    source: str  # "zfs", "udev", "mergerfs /mnt/pool"
    message: str


@dataclass(frozen=True)
class Inventory:
    """Everything tierdeck knows of a machine's storage at one moment."""

    hostname: str
    disks: tuple[Disk, ...]
    mounts: tuple[Mount, ...]
    mergerfs: tuple[MergerfsPool, ...]
    zfs: ZfsInfo
    btrfs: tuple[BtrfsFilesystem, ...]
    md: tuple[MdArray, ...]
    notes: tuple[SourceNote, ...] = ()
    is_root: bool = True
    kernel: str | None = None
    # Every block device the kernel knows, by "major:minor" -> kernel name ("253:0" ->
    # "dm-0"), and what each stacked device (dm, md, bcache) sits on ("dm-0" -> ("sda3",)).
    # They let relations walk from a mount to physical disks through any stacking.
    dev_names: dict[str, str] = field(default_factory=dict)
    slaves: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def disk(self, name: str) -> Disk | None:
        for d in self.disks:
            if d.name == name:
                return d
        return None
