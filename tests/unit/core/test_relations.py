"""disks_under / relation_map on small inventories shaped like the seeds' NASes."""

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
    Vdev,
    VdevKind,
    ZfsDataset,
    ZfsInfo,
    ZPool,
)
from tierdeck.core.relations import disks_under, relation_map


def disk(name: str, mm: str, parts: tuple[Partition, ...] = (), **kw: object) -> Disk:
    return Disk(name=name, path=f"/dev/{name}", major_minor=mm, kind=DiskKind.HDD,
                size_bytes=1, rotational=True, partitions=parts, **kw)  # type: ignore[arg-type]  # fmt: skip


def part(name: str, mm: str, holders: tuple[str, ...] = ()) -> Partition:
    return Partition(name=name, path=f"/dev/{name}", number=int(name[-1]), size_bytes=1,
                     major_minor=mm, holders=holders)  # fmt: skip


def mount(point: str, fs: str, source: str, mm: str, mid: int) -> Mount:
    return Mount(mount_id=mid, parent_id=1, major_minor=mm, root="/", mountpoint=point,
                 fs_type=fs, source=source, options=("rw",), super_options=())  # fmt: skip


def leaf(name: str) -> Vdev:
    return Vdev(name=name, kind=VdevKind.DISK, state="ONLINE")


def seed000_like() -> Inventory:
    disks = (
        disk("sda", "8:0", (part("sda1", "8:1"), part("sda3", "8:3", holders=("dm-0",)))),
        disk("sdb", "8:16", by_id=("/dev/disk/by-id/ata-QEMU_HARDDISK_QM00002",)),
        disk("sdc", "8:32"),
        disk("sdd", "8:48", (part("sdd1", "8:49"),)),
        disk("sde", "8:64"),
        disk("nvme0n1", "259:0"),
        disk("loop0", "7:0"),
    )
    pool = ZPool(name="cache", state="ONLINE", vdevs=(
        Vdev(name="mirror-0", kind=VdevKind.MIRROR, state="ONLINE",
             children=(leaf("ata-QEMU_HARDDISK_QM00002-part1"), leaf("nvme0n1"))),
    ))  # fmt: skip
    mounts = (
        mount("/", "ext4", "/dev/mapper/ubuntu--vg-ubuntu--lv", "253:0", 1),
        mount("/boot/efi", "vfat", "/dev/sda1", "8:1", 2),
        mount("/mnt/disk1", "ext4", "/dev/sde", "8:64", 3),
        mount("/mnt/disk2", "ext4", "/dev/sdc", "8:32", 4),
        mount("/mnt/parity1", "ext4", "/dev/sdd1", "8:49", 5),
        mount("/cache", "zfs", "cache", "0:50", 6),
        mount("/cache/media", "zfs", "cache/media", "0:51", 7),
        mount("/mnt/slow-storage", "fuse.mergerfs", "mergerfs", "0:60", 8),
        mount("/mnt/cached", "fuse.mergerfs", "mergerfs", "0:61", 9),
        mount("/mnt/tiered", "fuse.mergerfs", "mergerfs", "0:62", 10),
        mount("/srv/btr", "btrfs", "/dev/loop0", "0:70", 11),
    )

    def pool_of(point: str, *paths: str) -> MergerfsPool:
        return MergerfsPool(
            mountpoint=point, fsname="mergerfs", version="2.33.5", options={},
            create_policy="eplus", minfreespace_bytes=0,
            branches=tuple(MergerfsBranch(p, BranchMode.RW, None) for p in paths),
        )  # fmt: skip

    mergerfs = (
        pool_of("/mnt/slow-storage", "/mnt/disk1", "/mnt/disk2"),
        pool_of("/mnt/cached", "/cache"),
        pool_of("/mnt/tiered", "/mnt/cached", "/mnt/slow-storage"),  # a pool of pools
    )
    btrfs = (BtrfsFilesystem(uuid="u1", label="b", devices=(BtrfsDevice(1, "/dev/loop0"),),
                             allocations=(BtrfsAllocation("data", "single", 1, 1),)),)  # fmt: skip
    md = (MdArray(name="md127", level="raid1", state="clean",
                  members=(MdMember("sdd1", 0, "in_sync"), MdMember("sdc", 1, "in_sync"))),)  # fmt: skip
    zfs = ZfsInfo(available=True, pools=(pool,), datasets=(
        ZfsDataset("cache", "filesystem", 1, 1, 1, "/cache"),
        ZfsDataset("cache/media", "filesystem", 1, 1, 1, "/cache/media"),
    ))  # fmt: skip
    return Inventory(hostname="nas", disks=disks, mounts=mounts, mergerfs=mergerfs, zfs=zfs,
                     btrfs=btrfs, md=md, dev_names={"253:0": "dm-0"})  # fmt: skip


def test_plain_disk_and_partition_mounts() -> None:
    inv = seed000_like()
    assert disks_under(inv, "/mnt/disk1") == ("sde",)
    assert disks_under(inv, "/mnt/parity1/some/file") == ("sdd",)
    assert disks_under(inv, "/boot/efi/EFI") == ("sda",)


def test_device_mapper_root_through_holders() -> None:
    assert disks_under(seed000_like(), "/etc/fstab") == ("sda",)


def test_zfs_mount_resolves_by_id_partition_and_plain_names() -> None:
    inv = seed000_like()
    assert disks_under(inv, "/cache") == ("nvme0n1", "sdb")
    assert disks_under(inv, "/cache/media/film.mkv") == ("nvme0n1", "sdb")
    assert disks_under(inv, "zpool:cache") == ("nvme0n1", "sdb")
    assert disks_under(inv, "zfs:cache/media") == ("nvme0n1", "sdb")


def test_mergerfs_pool_branch_and_pool_of_pools() -> None:
    inv = seed000_like()
    assert disks_under(inv, "/mnt/slow-storage") == ("sdc", "sde")
    assert disks_under(inv, "/mnt/cached/x") == ("nvme0n1", "sdb")
    assert disks_under(inv, "/mnt/tiered") == ("nvme0n1", "sdb", "sdc", "sde")


def test_btrfs_and_md_targets() -> None:
    inv = seed000_like()
    assert disks_under(inv, "/srv/btr") == ("loop0",)
    assert disks_under(inv, "btrfs:u1") == ("loop0",)
    assert disks_under(inv, "md:md127") == ("sdc", "sdd")


def test_unknown_targets_are_empty_not_errors() -> None:
    inv = seed000_like()
    assert disks_under(inv, "zpool:nope") == ()
    assert disks_under(inv, "md:md0") == ()


def test_mergerfs_pool_cycle_terminates() -> None:
    inv = seed000_like()
    loop_pool = MergerfsPool(mountpoint="/mnt/loop", fsname="m", version=None, options={},
                             create_policy=None, minfreespace_bytes=None,
                             branches=(MergerfsBranch("/mnt/loop/inner", BranchMode.RW, None),))  # fmt: skip
    inv2 = Inventory(hostname="x", disks=inv.disks,
                     mounts=(*inv.mounts, mount("/mnt/loop", "fuse.mergerfs", "m", "0:99", 20)),
                     mergerfs=(loop_pool,), zfs=inv.zfs, btrfs=(), md=())  # fmt: skip
    assert disks_under(inv2, "/mnt/loop") == ()


def test_relation_map_covers_every_kind() -> None:
    rel = relation_map(seed000_like())
    assert rel["mergerfs"]["/mnt/slow-storage"] == ["sdc", "sde"]
    assert rel["mergerfs_branches"]["/cache"] == ["nvme0n1", "sdb"]
    assert rel["zpools"]["cache"] == ["nvme0n1", "sdb"]
    assert rel["zfs_datasets"]["cache/media"] == ["nvme0n1", "sdb"]
    assert rel["btrfs"]["u1"] == ["loop0"]
    assert rel["md"]["md127"] == ["sdc", "sdd"]
    assert rel["mounts"]["/"] == ["sda"]
