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
