"""find_problems: what must stand out on the dashboard."""

from __future__ import annotations

from dataclasses import replace

from tierdeck.core.health import find_problems
from tierdeck.core.models import (
    BranchMode,
    Inventory,
    MdArray,
    MdMember,
    MergerfsBranch,
    MergerfsPool,
    Mount,
    ScanStatus,
    Severity,
    Vdev,
    VdevKind,
    ZfsInfo,
    ZPool,
)

G = 1024**3


def inv(**kw: object) -> Inventory:
    base = Inventory(hostname="h", disks=(), mounts=(), mergerfs=(), zfs=ZfsInfo(True),
                     btrfs=(), md=())  # fmt: skip
    return replace(base, **kw)  # type: ignore[arg-type]


def test_healthy_inventory_has_no_problems() -> None:
    pool = ZPool("cache", "ONLINE", (Vdev("sdb", VdevKind.DISK, "ONLINE"),), capacity_pct=10)
    assert find_problems(inv(zfs=ZfsInfo(True, pools=(pool,)))) == ()


def test_degraded_pool_faulted_leaf_and_resilver() -> None:
    bad = Vdev("sdc", VdevKind.DISK, "FAULTED", read_errors=0, write_errors=1925,
               note="too many errors")  # fmt: skip
    mirror = Vdev("mirror-0", VdevKind.MIRROR, "DEGRADED",
                  children=(Vdev("sdb", VdevKind.DISK, "ONLINE"), bad))  # fmt: skip
    scan = ScanStatus("resilver", "in_progress", "resilver in progress", 34.5, "0:12:00 to go")
    pool = ZPool("tank", "DEGRADED", (mirror,), scan=scan)
    problems = find_problems(inv(zfs=ZfsInfo(True, pools=(pool,))))
    texts = [(p.severity, p.subject, p.message) for p in problems]
    assert (Severity.WARNING, "zpool tank", "pool is DEGRADED") in texts
    assert (Severity.CRITICAL, "zpool tank vdev sdc",
            "state FAULTED, errors read 0 write 1925 cksum 0 too many errors") in texts  # fmt: skip
    assert (Severity.WARNING, "zpool tank", "resilver 34.5% done, 0:12:00 to go") in texts
    assert problems[0].severity is Severity.CRITICAL  # most severe first


def test_branch_below_minfreespace_and_all_full() -> None:
    pool = MergerfsPool(
        mountpoint="/mnt/slow", fsname="m", version="2.33.5", options={}, create_policy="eplus",
        minfreespace_bytes=300 * G,
        branches=(MergerfsBranch("/mnt/disk1", BranchMode.RW, None, 8000 * G, 100 * G),
                  MergerfsBranch("/mnt/disk2", BranchMode.RW, None, 18000 * G, 5000 * G)),
    )  # fmt: skip
    problems = find_problems(inv(mergerfs=(pool,)))
    assert [p.subject for p in problems] == ["mergerfs /mnt/slow branch /mnt/disk1"]
    assert "below minfreespace 300G" in problems[0].message
    full = replace(pool, branches=(pool.branches[0],))
    assert any(p.severity is Severity.CRITICAL for p in find_problems(inv(mergerfs=(full,))))


def test_nearly_full_filesystem_but_not_snaps() -> None:
    def m(point: str, fs: str, used: int, avail: int) -> Mount:
        return Mount(1, 1, "8:1", "/", point, fs, "/dev/x", ("rw",), (), used + avail, used, avail)

    problems = find_problems(inv(mounts=(m("/data", "ext4", 95, 5), m("/snap/core", "squashfs", 64, 0),
                                         m("/ok", "xfs", 10, 90))))  # fmt: skip
    assert [(p.severity, p.subject) for p in problems] == [(Severity.WARNING, "filesystem /data")]


def test_md_degraded_and_resync() -> None:
    array = MdArray("md127", "raid1", "active", (MdMember("sdb", 0, "in_sync"),),
                    raid_disks=2, active_disks=1, sync_action="recover", sync_progress=12.6,
                    sync_eta="finish=127.5min")  # fmt: skip
    texts = {(p.severity, p.message) for p in find_problems(inv(md=(array,)))}
    assert (Severity.CRITICAL, "degraded: 1 of 2 devices active") in texts
    assert (Severity.INFO, "recover 12.6% finish=127.5min") in texts


def test_full_zpool_is_reported_once_not_again_per_dataset() -> None:
    pool = ZPool("tank", "ONLINE", (Vdev("sdb", VdevKind.DISK, "ONLINE"),), capacity_pct=95)
    dataset = Mount(1, 1, "0:50", "/", "/tank", "zfs", "tank", ("rw",), (), 100, 96, 4)
    other = Mount(2, 1, "0:51", "/", "/other", "zfs", "other", ("rw",), (), 100, 96, 4)
    problems = find_problems(inv(zfs=ZfsInfo(True, pools=(pool,)), mounts=(dataset, other)))
    assert [(p.subject, p.message) for p in problems] == [
        ("zpool tank", "95% full"),
        ("filesystem /other", "96% full (4B free)"),
    ]
