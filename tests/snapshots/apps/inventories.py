"""Hand-built inventories for TUI tests: a degraded NAS the demo host cannot show.

The values are model objects (not tool output): device names, models and sizes follow
seed 000 (lsscsi/df/zpool status in /work/shared/seeds/000_*.txt), and the degraded
states follow zpool-status(8) and md(4) vocabulary (DEGRADED, FAULTED, "(resilvering)",
"[2/1]", "recover").
"""

from __future__ import annotations

from tierdeck.core.models import (
    BranchMode,
    BtrfsAllocation,
    BtrfsDevice,
    BtrfsFilesystem,
    Disk,
    DiskKind,
    Inventory,
    MdArray,
    MdMember,
    MergerfsBranch,
    MergerfsPool,
    Mount,
    Partition,
    ScanStatus,
    SourceNote,
    Vdev,
    VdevKind,
    ZfsDataset,
    ZfsInfo,
    ZPool,
)

G = 1024**3
T = 1024**4


def _hdd(name: str, minor: int, model: str, serial: str, size: int, hctl: str) -> Disk:
    return Disk(
        name=name,
        path=f"/dev/{name}",
        major_minor=f"8:{minor}",
        kind=DiskKind.HDD,
        size_bytes=size,
        rotational=True,
        model=model,
        vendor="ATA",
        serial=serial,
        transport="sata",
        hctl=hctl,
        by_id=(f"/dev/disk/by-id/ata-{model.replace(' ', '_')}_{serial}",),
    )


def _mount(mid: int, devnum: str, point: str, fs: str, source: str, size: int, used: int) -> Mount:
    return Mount(
        mount_id=mid,
        parent_id=1,
        major_minor=devnum,
        root="/",
        mountpoint=point,
        fs_type=fs,
        source=source,
        options=("rw", "relatime"),
        super_options=(),
        size_bytes=size,
        used_bytes=used,
        avail_bytes=size - used,
    )


def degraded_inventory() -> Inventory:
    """A NAS in trouble: raidz1 with a faulted disk resilvering onto a new one, a
    degraded md mirror recovering, a mergerfs branch below minfreespace, a 95 % full
    filesystem, a missing btrfs device, and things a non-root user could not read."""
    disks = (
        _hdd("sdc", 32, "WDC WD180EDGZ-11", "2VH7TM9L", 18 * T, "0:0:0:0"),
        _hdd("sdd", 48, "WDC WD180EDGZ-11", "3FG1KL2P", 18 * T, "0:0:1:0"),
        _hdd("sde", 64, "WDC WD80EFZX-68U", "VK0ABCDY", 8 * T, "0:0:2:0"),
        _hdd("sdf", 80, "WDC WD80EFZX-68U", "VK0ZZZZY", 8 * T, "0:0:3:0"),
        Disk(
            name="sdg",
            path="/dev/sdg",
            major_minor="8:96",
            kind=DiskKind.HDD,
            size_bytes=8 * T,
            rotational=True,
            model="WDC WD80EFZX-68U",
            transport="sata",
            hctl="0:0:4:0",
            partitions=(
                Partition(
                    "sdg1", "/dev/sdg1", 1, 8 * T, "8:97", "linux_raid_member", holders=("md127",)
                ),
            ),
            notes=("serial: permission denied (try as root)",),
        ),
        Disk(
            name="loop0",
            path="/dev/loop0",
            major_minor="7:0",
            kind=DiskKind.VIRTUAL,
            size_bytes=64 * 1024**2,
            rotational=False,
            transport="loop",
            backing_file="/var/lib/snapd/snaps/core20_1634.snap",
            read_only=True,
        ),
    )
    raidz = Vdev(
        name="raidz1-0",
        kind=VdevKind.RAIDZ,
        state="DEGRADED",
        parity=1,
        children=(
            Vdev("sdc", VdevKind.DISK, "ONLINE"),
            Vdev("sdd", VdevKind.DISK, "ONLINE", checksum_errors=12),
            Vdev(
                "replacing-2",
                VdevKind.REPLACING,
                "DEGRADED",
                children=(
                    Vdev(
                        "sde",
                        VdevKind.DISK,
                        "FAULTED",
                        read_errors=3,
                        write_errors=1925,
                        note="too many errors",
                    ),
                    Vdev("sdf", VdevKind.DISK, "ONLINE", note="(resilvering)"),
                ),
            ),
        ),
    )
    tank = ZPool(
        name="tank",
        state="DEGRADED",
        vdevs=(raidz,),
        status="One or more devices is currently being resilvered.",
        action="Wait for the resilver to complete.",
        scan=ScanStatus(
            function="resilver",
            state="in_progress",
            text="resilver in progress since Sun Nov 22 00:10:11 2026",
            percent_done=45.2,
            eta="02:13:40 to go",
        ),
        errors="No known data errors",
        size_bytes=24 * T,
        alloc_bytes=22 * T,
        free_bytes=2 * T,
        capacity_pct=91,
        fragmentation_pct=12,
    )
    mounts = (
        _mount(30, "0:50", "/tank", "zfs", "tank", 22 * T, 20 * T),
        _mount(31, "9:127", "/mnt/backup", "ext4", "/dev/md127", 100 * G, 95 * G),
        _mount(32, "0:60", "/mnt/slow", "fuse.mergerfs", "mergerfs", 26 * T, 21 * T),
    )
    mergerfs = (
        MergerfsPool(
            mountpoint="/mnt/slow",
            fsname="mergerfs",
            version="2.33.5",
            branches=(
                MergerfsBranch("/tank", BranchMode.RW, None, 22 * T, 2 * T),
                MergerfsBranch("/mnt/backup", BranchMode.RW, 10 * G, 100 * G, 5 * G),
                MergerfsBranch("/mnt/old", BranchMode.NC, None, 4 * T, 1 * T),
            ),
            options={"category.create": "eplus", "minfreespace": "300G", "moveonenospc": "true"},
            create_policy="eplus",
            minfreespace_bytes=300 * G,
            size_bytes=26 * T,
            avail_bytes=3 * T,
        ),
        MergerfsPool(
            mountpoint="/mnt/secret",
            fsname="mergerfs",
            version=None,
            branches=(),
            options={},
            create_policy=None,
            minfreespace_bytes=None,
            error="permission denied: /mnt/secret/.mergerfs (try as root)",
        ),
    )
    btrfs = (
        BtrfsFilesystem(
            uuid="0c4241e9-e4ea-41b6-9dab-a3cc4b936edb",
            label="cached-mirror",
            devices=(
                BtrfsDevice(1, "/dev/sdc", 18 * T),
                BtrfsDevice(2, "/dev/sdx", None, missing=True),
            ),
            allocations=(
                BtrfsAllocation("data", "RAID1", 33 * G, 31 * G),
                BtrfsAllocation("metadata", "RAID1", 1 * G, 17 * 1024**2),
            ),
        ),
    )
    md = (
        MdArray(
            name="md127",
            level="raid1",
            state="clean, degraded, recovering",
            members=(MdMember("sdg1", 0, "in_sync"), MdMember("sdh1", None, "spare")),
            raid_disks=2,
            active_disks=1,
            size_bytes=100 * G,
            sync_action="recover",
            sync_progress=12.5,
            sync_eta="finish=81.3min",
            sync_speed="speed=123456K/sec",
            bitmap="internal",
            metadata_version="1.2",
        ),
    )
    return Inventory(
        hostname="sickbox",
        disks=disks,
        mounts=mounts,
        mergerfs=mergerfs,
        zfs=ZfsInfo(
            available=True,
            version="zfs-2.1.4-0ubuntu0.1",
            pools=(tank,),
            datasets=(ZfsDataset("tank", "filesystem", 20 * T, 2 * T, 1 * T, "/tank"),),
        ),
        btrfs=btrfs,
        md=md,
        notes=(SourceNote("smart", "smartctl needs root"),),
        is_root=False,
        kernel="5.15.0-52-generic",
    )


def _loop(index: int, size: int, *, fs_type: str | None = None) -> Disk:
    return Disk(
        name=f"loop{index}",
        path=f"/dev/loop{index}",
        major_minor=f"7:{index}",
        kind=DiskKind.VIRTUAL,
        size_bytes=size,
        rotational=False,
        transport="loop",
        backing_file=f"/srv/lab/images/loop{index}.img",
        fs_type=fs_type,
    )


LAB = "/srv/lab"


def lab_inventory() -> Inventory:
    """The lab NAS of app/machine/lab.py (btrfs raid1 "cache" on loop0+loop1, ext4 hdd0 on
    loop2, xfs hdd1 on loop3, mergerfs pool/slow = hdd0:hdd1 and pool/cached =
    cache:hdd0:hdd1), plus what a disk row can also be: loop4 unused, sdg a member of
    md127 (mounted on /mnt/backup), sdc a leaf of ZFS pool tank (mounted on /tank)."""
    M = 1024**2
    disks = (
        _hdd("sdc", 32, "WDC WD180EDGZ-11", "2VH7TM9L", 18 * T, "0:0:0:0"),
        Disk(
            name="sdg",
            path="/dev/sdg",
            major_minor="8:96",
            kind=DiskKind.HDD,
            size_bytes=8 * T,
            rotational=True,
            model="WDC WD80EFZX-68U",
            partitions=(
                Partition(
                    "sdg1", "/dev/sdg1", 1, 8 * T, "8:97", "linux_raid_member", holders=("md127",)
                ),
            ),
        ),
        _loop(0, 256 * M, fs_type="btrfs"),
        _loop(1, 256 * M, fs_type="btrfs"),
        _loop(2, 320 * M, fs_type="ext4"),
        _loop(3, 320 * M, fs_type="xfs"),
        _loop(4, 128 * M),
    )
    mounts = (
        _mount(40, "0:45", f"{LAB}/mnt/cache", "btrfs", "/dev/loop0", 256 * M, 4 * M),
        _mount(41, "7:2", f"{LAB}/mnt/hdd0", "ext4", "/dev/loop2", 300 * M, 20 * M),
        _mount(42, "7:3", f"{LAB}/mnt/hdd1", "xfs", "/dev/loop3", 300 * M, 30 * M),
        _mount(43, "0:50", f"{LAB}/pool/slow", "fuse.mergerfs", "lab-slow", 600 * M, 50 * M),
        _mount(44, "0:51", f"{LAB}/pool/cached", "fuse.mergerfs", "lab-cached", 856 * M, 54 * M),
        _mount(45, "9:127", "/mnt/backup", "ext4", "/dev/md127", 100 * G, 5 * G),
        _mount(46, "0:60", "/tank", "zfs", "tank", 18 * T, 1 * T),
    )

    def branch(name: str) -> MergerfsBranch:
        return MergerfsBranch(f"{LAB}/mnt/{name}", BranchMode.RW, None, 300 * M, 250 * M)

    def pool(name: str, branches: tuple[str, ...], policy: str) -> MergerfsPool:
        return MergerfsPool(
            mountpoint=f"{LAB}/pool/{name}",
            fsname=f"lab-{name}",
            version="2.33.5",
            branches=tuple(branch(b) for b in branches),
            options={"category.create": policy, "minfreespace": "16M"},
            create_policy=policy,
            minfreespace_bytes=16 * M,
            size_bytes=len(branches) * 300 * M,
            avail_bytes=len(branches) * 250 * M,
        )

    cache = BtrfsFilesystem(
        uuid="5d1b7c1e-0a4e-4d0f-9a53-6f1c4f7e2b10",
        label="cache",
        devices=(BtrfsDevice(1, "/dev/loop0", 256 * M), BtrfsDevice(2, "/dev/loop1", 256 * M)),
        allocations=(BtrfsAllocation("data", "RAID1", 64 * M, 4 * M),),
        mountpoints=(f"{LAB}/mnt/cache",),
    )
    tank = ZPool(
        name="tank",
        state="ONLINE",
        vdevs=(Vdev("sdc", VdevKind.DISK, "ONLINE"),),
        size_bytes=18 * T,
    )
    md = MdArray(
        name="md127",
        level="raid1",
        state="clean",
        members=(MdMember("sdg1", 0, "in_sync"),),
        raid_disks=1,
        active_disks=1,
        size_bytes=100 * G,
    )
    return Inventory(
        hostname="lab",
        disks=disks,
        mounts=mounts,
        mergerfs=(
            pool("slow", ("hdd0", "hdd1"), "mfs"),
            pool("cached", ("cache", "hdd0", "hdd1"), "ff"),
        ),
        zfs=ZfsInfo(
            available=True,
            version="zfs-2.1.4",
            pools=(tank,),
            datasets=(ZfsDataset("tank", "filesystem", 1 * T, 17 * T, 1 * T, "/tank"),),
        ),
        btrfs=(cache,),
        md=(md,),
        dev_names={f"7:{i}": f"loop{i}" for i in range(5)}
        | {"8:32": "sdc", "8:96": "sdg", "8:97": "sdg1", "9:127": "md127"},
        slaves={"md127": ("sdg1",)},
    )
