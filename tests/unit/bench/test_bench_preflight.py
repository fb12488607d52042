"""plan_run / resolve_target / list_targets on a hand-built NAS inventory and a
RecordedHost folder (no real device needed). Command outputs (blkid, wipefs) are the
recorded ones in tests/fixtures/diskstats/preflight."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from tierdeck.app.bench import claims, fio_commands, fio_outcome, progress
from tierdeck.app.bench.preflight import PROBE_NAME, plan_run
from tierdeck.app.bench.target_lookup import list_targets, resolve_target
from tierdeck.backends.fio.jobfile import parse_jobfile
from tierdeck.backends.host import LiveHost, RecordedHost
from tierdeck.core.bench_models import (
    BenchRefused,
    BenchTarget,
    RefusalKind,
    RunRequest,
    RunWarning,
    TargetKind,
    WarningKind,
)
from tierdeck.core.jobspec import JobSpec
from tierdeck.core.models import (
    BranchMode,
    Disk,
    DiskKind,
    Inventory,
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
from tierdeck.core.placement import BenchFile, planned_files
from tierdeck.core.presets import preset

from ...paths import FIXTURES

PREFLIGHT = FIXTURES / "diskstats" / "preflight"
GiB = 1 << 30
MiB = 1 << 20

WRITE = JobSpec(name="w", rw="write", bs="1M", ioengine="libaio", direct=True, size="1G")


# --------------------------------------------------------------------------- a NAS


def disk(name: str, mm: str, *parts: Partition, **kw: Any) -> Disk:
    return Disk(name=name, path=f"/dev/{name}", major_minor=mm, kind=DiskKind.HDD,
                size_bytes=kw.pop("size", 4 * GiB), rotational=True, partitions=parts,
                **kw)  # fmt: skip


def part(name: str, mm: str, **kw: Any) -> Partition:
    return Partition(name=name, path=f"/dev/{name}", number=int(name[-1]),
                     size_bytes=kw.pop("size", GiB), major_minor=mm, **kw)  # fmt: skip


def mount(point: str, fs: str, source: str, mm: str, *options: str) -> Mount:
    return Mount(mount_id=len(point), parent_id=1, major_minor=mm, root="/", mountpoint=point,
                 fs_type=fs, source=source, options=options or ("rw",),
                 super_options=())  # fmt: skip


def nas() -> Inventory:
    disks = (
        disk("sda", "8:0", part("sda1", "8:1", fs_type="ext4")),
        disk("sdb", "8:16", fs_type="ext4"),
        disk("sdc", "8:32", fs_type="xfs"),
        disk("sdd", "8:48", by_id=("/dev/disk/by-id/ata-EMPTY_DISK",)),
        disk("sde", "8:64", part("sde1", "8:65", holders=("md0",))),
        disk("nvme0n1", "259:0"),
        disk("sdf", "8:80", part("sdf1", "8:81"), part("sdf2", "8:82")),
        disk("sdg", "8:96", read_only=True),
        disk("sdh", "8:112", holders=("dm-3",)),
    )
    mounts = (
        mount("/", "ext4", "/dev/sda1", "8:1"),
        mount("/proc", "proc", "proc", "0:22"),
        mount("/dev/shm", "tmpfs", "tmpfs", "0:25"),
        mount("/mnt/disk1", "ext4", "/dev/sdb", "8:16"),
        mount("/mnt/disk2", "xfs", "/dev/sdc", "8:32"),
        mount("/mnt/parity", "ext4", "/dev/sdf2", "8:82"),
        mount("/mnt/iso", "ext4", "/dev/sdx", "8:999", "ro"),
        mount("/mnt/pool", "fuse.mergerfs", "pool", "0:60"),
        mount("/tank", "zfs", "tank", "0:70"),
        mount("/tank/media", "zfs", "tank/media", "0:71"),
        mount("/mnt/ram", "ramfs", "ramfs", "0:80"),
    )
    pool = MergerfsPool(
        mountpoint="/mnt/pool", fsname="pool", version="2.33.5",
        branches=(MergerfsBranch("/mnt/disk1", BranchMode.RW, None),
                  MergerfsBranch("/mnt/disk2", BranchMode.RW, None)),
        options={"category.create": "mfs"}, create_policy="mfs", minfreespace_bytes=GiB,
    )  # fmt: skip
    zfs = ZfsInfo(
        available=True, version="zfs-2.1.11",
        pools=(ZPool(name="tank", state="ONLINE",
                     vdevs=(Vdev(name="nvme0n1", kind=VdevKind.DISK, state="ONLINE"),)),),
        datasets=(ZfsDataset("tank", "filesystem", 1, 1, 1, "/tank"),
                  ZfsDataset("tank/media", "filesystem", 1, 1, 1, "/tank/media"),
                  ZfsDataset("tank/vol", "volume", 1, 1, 1, None)),
    )  # fmt: skip
    dev_names = {d.major_minor: d.name for d in disks}
    dev_names.update({p.major_minor: p.name for d in disks for p in d.partitions})
    return Inventory(hostname="nas", disks=disks, mounts=mounts, mergerfs=(pool,), zfs=zfs,
                     btrfs=(), md=(), dev_names=dev_names)  # fmt: skip


def recorded(
    tmp_path: Path,
    *,
    is_root: bool = True,
    statvfs: dict[str, dict[str, int]] | None = None,
    commands: list[dict[str, Any]] | None = None,
    tools: tuple[str, ...] = ("fio", "blkid", "wipefs"),
) -> RecordedHost:
    root = tmp_path / "root"
    for directory in ("mnt/disk1/sub", "mnt/disk2", "mnt/pool/media", "tank/media",
                      "mnt/ram", "dev/shm", "proc", "mnt/parity"):  # fmt: skip
        (root / directory).mkdir(parents=True, exist_ok=True)
    (root / "proc" / "swaps").write_text((PREFLIGHT / "proc-swaps-none.txt").read_text())
    for node in ("sda", "sda1", "sdb", "sdd", "sde1", "sdf", "sdf1", "sdf2", "sdg", "sdh"):
        (root / "dev" / node).write_text("")
    (root / "dev" / "disk" / "by-id").mkdir(parents=True)
    os.symlink("../../sdd", root / "dev" / "disk" / "by-id" / "ata-EMPTY_DISK")
    (root / "mnt" / "disk1" / "file.bin").write_text("x")
    big = {"size": 4000 * GiB, "free": 3000 * GiB, "avail": 3000 * GiB}
    table = {
        "/": big, "/mnt/disk1": big, "/mnt/disk1/sub": big, "/mnt/disk2": big,
        "/mnt/pool": big, "/mnt/pool/media": big, "/tank/media": big,
        "/dev/shm": {"size": 8 * MiB, "avail": 8 * MiB}, "/mnt/ram": {"size": 0, "avail": 0},
    }  # fmt: skip
    table.update(statvfs or {})
    meta = {
        "hostname": "nas",
        "kernel": "6.1.0",
        "is_root": is_root,
        "tools": list(tools),
        "statvfs": table,
        "commands": commands or [],
        "fallback": {"blkid": {"returncode": 2, "stdout": ""}},
    }
    (tmp_path / "host.json").write_text(json.dumps(meta))
    return RecordedHost(tmp_path)


def blkid(node: str, fixture: str, returncode: int) -> dict[str, Any]:
    return {
        "argv": ["blkid", "-p", "-o", "export", node],
        "stdout": (PREFLIGHT / fixture).read_text(),
        "returncode": returncode,
    }


@pytest.fixture(autouse=True)
def no_real_probe(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, bool]]]:
    calls: list[tuple[str, bool]] = []

    def fake(host: object, directory: str, name: str, *, direct: bool) -> OSError | None:
        assert name == PROBE_NAME
        calls.append((directory, direct))
        return None

    # A recording has no files to open: its probe is the one the preflight asks for.
    monkeypatch.setattr(RecordedHost, "probe_write", fake)
    yield calls


# --------------------------------------------------------------------------- targets


def test_resolve_target_kinds_and_disks() -> None:
    inv = nas()
    pool = resolve_target(inv, "/mnt/pool")
    assert pool == BenchTarget("/mnt/pool", TargetKind.MERGERFS, "mergerfs /mnt/pool",
                               ("sdb", "sdc"), "fuse.mergerfs", "/mnt/pool")  # fmt: skip
    inside = resolve_target(inv, "/mnt/pool/media/")
    assert (inside.kind, inside.label) == (
        TargetKind.MERGERFS,
        "mergerfs /mnt/pool (/mnt/pool/media)",
    )
    branch = resolve_target(inv, "/mnt/disk1/sub")
    assert (branch.kind, branch.label, branch.disks) == (
        TargetKind.BRANCH, "branch /mnt/disk1 (/mnt/disk1/sub)", ("sdb",))  # fmt: skip
    media = resolve_target(inv, "/tank/media")
    assert (media.kind, media.label, media.disks, media.fs_type) == (
        TargetKind.ZFS, "zfs tank/media", ("nvme0n1",), "zfs")  # fmt: skip
    root = resolve_target(inv, "/")
    assert (root.kind, root.label, root.disks) == (TargetKind.MOUNT, "ext4 /", ("sda",))
    typed = resolve_target(inv, "/srv/data")
    assert (typed.kind, typed.label, typed.mountpoint) == (TargetKind.PATH, "path /srv/data", "/")
    raw = resolve_target(inv, "/dev/disk/by-id/ata-EMPTY_DISK")
    assert (raw.kind, raw.path, raw.disks) == (TargetKind.RAW, "/dev/sdd", ("sdd",))
    raw_part = resolve_target(inv, "/dev/sdf1")
    assert (raw_part.kind, raw_part.path, raw_part.disks) == (TargetKind.RAW, "/dev/sdf1", ("sdf",))
    with pytest.raises(BenchRefused):
        resolve_target(inv, "mnt/pool")


def test_list_targets_for_the_picker() -> None:
    labels = [t.label for t in list_targets(nas())]
    assert labels == [
        "mergerfs /mnt/pool",
        "branch /mnt/disk1",
        "branch /mnt/disk2",
        "zfs tank",
        "zfs tank/media",
        "ext4 /",
        "ext4 /mnt/parity",
    ]  # no proc, tmpfs, ramfs or read-only mounts; each path once


# --------------------------------------------------------------------------- refusals


def test_missing_relative_and_non_directory_targets(tmp_path: Path) -> None:
    host, inv = recorded(tmp_path), nas()
    with pytest.raises(BenchRefused, match="does not exist"):
        plan_run(host, inv, "/mnt/nowhere", [WRITE])
    with pytest.raises(BenchRefused, match="absolute path"):
        plan_run(host, inv, "mnt/disk1", [WRITE])
    with pytest.raises(BenchRefused, match="not a directory"):
        plan_run(host, inv, "/mnt/disk1/file.bin", [WRITE])
    with pytest.raises(BenchRefused, match="no jobs"):
        plan_run(host, inv, "/mnt/disk1", [])
    with pytest.raises(BenchRefused, match="not storage"):
        plan_run(host, inv, "/proc", [WRITE])
    no_fio = recorded(tmp_path / "nofio", tools=("blkid",))
    with pytest.raises(BenchRefused, match="fio is not installed"):
        plan_run(no_fio, inv, "/mnt/disk1", [WRITE])


def test_plain_request_and_default_name(tmp_path: Path, no_real_probe: list[Any]) -> None:
    request = plan_run(recorded(tmp_path), nas(), "/mnt/disk1/sub", [WRITE])
    assert request == RunRequest(
        target=resolve_target(nas(), "/mnt/disk1/sub"),
        jobs=(WRITE,),
        name="w on branch /mnt/disk1 (/mnt/disk1/sub)",
        files=(BenchFile(".tierdeck-bench.w.0.0", GiB),),
    )
    assert no_real_probe == [("/mnt/disk1/sub", True)]


def test_overrides_apply_to_every_job(tmp_path: Path) -> None:
    jobs = preset("seed002-suite").jobs
    request = plan_run(recorded(tmp_path), nas(), "/mnt/disk2", jobs, preset="seed002-suite",
                       size="64M", runtime=2, direct=True, name="short")  # fmt: skip
    assert [(j.size, j.runtime, j.direct, j.time_based) for j in request.jobs] == [
        ("64M", 2, True, True)] * 4  # fmt: skip
    assert [j.rw for j in request.jobs] == ["write", "randwrite", "read", "randread"]
    assert request.name == "short" and request.preset == "seed002-suite"


@pytest.mark.parametrize(("size", "runtime"), [("lots", None), ("0", None), (None, 0)])
def test_bad_overrides_refused(tmp_path: Path, size: str | None, runtime: int | None) -> None:
    with pytest.raises(BenchRefused):
        plan_run(recorded(tmp_path), nas(), "/mnt/disk1", [WRITE], size=size, runtime=runtime)


def test_invalid_job_and_missing_size_refused(tmp_path: Path) -> None:
    host = recorded(tmp_path)
    with pytest.raises(BenchRefused, match="rw='scribble'"):
        plan_run(host, nas(), "/mnt/disk1", [JobSpec(name="x", rw="scribble", size="1M")])
    with pytest.raises(BenchRefused, match="no size"):
        plan_run(host, nas(), "/mnt/disk1", [JobSpec(name="x", rw="read")])


# --------------------------------------------------------------------------- free space


def test_full_target_refused_with_both_numbers(tmp_path: Path) -> None:
    with pytest.raises(BenchRefused) as refused:
        plan_run(recorded(tmp_path), nas(), "/dev/shm", [WRITE], size="64M")
    message = str(refused.value)
    assert "not enough free space on tmpfs /dev/shm" in message
    assert "64M (67108864 bytes)" in message and "8.0M (8388608 bytes)" in message
    assert not refused.value.offer_buffered


def test_space_counts_every_clone_and_file_like_fio(tmp_path: Path) -> None:
    # numjobs=4 without a filename: four files of 1 GiB, as plain fio lays them out
    clones = JobSpec(name="c", rw="write", size="1G", numjobs=4)
    three = {"/mnt/disk1": {"size": 100 * GiB, "avail": 3 * GiB + 512 * MiB}}
    with pytest.raises(BenchRefused, match=r"the 4 test files need 4\.0G") as refused:
        plan_run(recorded(tmp_path / "a", statvfs=three), nas(), "/mnt/disk1", [clones])
    assert refused.value.kind is RefusalKind.NO_SPACE
    five = {"/mnt/disk1": {"size": 100 * GiB, "avail": 6 * GiB}}
    request = plan_run(recorded(tmp_path / "b", statvfs=five), nas(), "/mnt/disk1", [clones])
    assert [f.name for f in request.files] == [f".tierdeck-bench.c.{n}.0" for n in range(4)]


def test_kept_files_of_a_sweeps_previous_cell_take_no_new_room(tmp_path: Path) -> None:
    # A sweep keeps an ok cell's files for the next cell with the same files: they are
    # tierdeck's (no "not a tierdeck test file"), and the free space already counts them.
    clones = JobSpec(name="c", rw="write", size="1G", numjobs=4)
    two = {"/mnt/disk1": {"size": 100 * GiB, "avail": 2 * GiB}}
    with pytest.raises(BenchRefused, match=r"the 4 test files need 4\.0G"):
        plan_run(recorded(tmp_path / "a", statvfs=two), nas(), "/mnt/disk1", [clones])
    host = recorded(tmp_path / "b", statvfs=two)
    for n in range(3):  # three of the four are there already
        (tmp_path / "b" / "root" / "mnt" / "disk1" / f".tierdeck-bench.c.{n}.0").write_text("")
    request = plan_run(host, nas(), "/mnt/disk1", [clones], tags=("sweep:7",), keep_files=True)
    assert (request.tags, request.keep_files) == (("sweep:7",), True)
    assert len(request.files) == 4  # all four are still the run's, removed in the end
    plain = plan_run(host, nas(), "/mnt/disk1", [clones])
    assert (plain.tags, plain.keep_files) == ((), False)


def test_copy_on_write_targets_need_room_for_overwrites(tmp_path: Path) -> None:
    # The lab's btrfs raid1 hit ENOSPC with randwrite over a 180 MiB file and 215 MiB
    # free: rewriting a file on a copy-on-write filesystem needs room for both copies.
    inv = nas()
    cow = Inventory(**{**inv.__dict__, "mounts": tuple(
        replace(m, fs_type="btrfs") if m.mountpoint == "/mnt/disk1" else m for m in inv.mounts
    )})  # fmt: skip
    rewrite = JobSpec(name="r", rw="randwrite", size="180M", runtime=8, time_based=True)
    space = {"/mnt/disk1": {"size": 512 * MiB, "avail": 215 * MiB}}
    with pytest.raises(BenchRefused, match="copy-on-write.*twice") as refused:
        plan_run(recorded(tmp_path / "a", statvfs=space), cow, "/mnt/disk1", [rewrite])
    assert "360M" in str(refused.value)
    # Written once (no loop, not laid out first): the file's size is enough.
    once = JobSpec(name="o", rw="write", size="180M")
    plan_run(recorded(tmp_path / "b", statvfs=space), cow, "/mnt/disk1", [once])
    # The same rewrite on ext4 fits: it overwrites in place.
    plan_run(recorded(tmp_path / "c", statvfs=space), inv, "/mnt/disk1", [rewrite])


def test_a_jobs_own_file_stays_inside_the_target(tmp_path: Path) -> None:
    host, inv = recorded(tmp_path), nas()
    inside = JobSpec(name="s", rw="write", size="1M", filename="/mnt/disk2/shared.dat")
    request = plan_run(host, inv, "/mnt/disk2", [inside])
    assert request.jobs[0].filename == "shared.dat"  # fio puts directory= in front
    assert [f.name for f in request.files] == ["shared.dat"]
    outside = JobSpec(name="s", rw="write", size="1M", filename="/dev/sdb")
    with pytest.raises(BenchRefused, match="outside the target /mnt/disk2"):
        plan_run(host, inv, "/mnt/disk2", [outside])
    with pytest.raises(BenchRefused, match="not a tierdeck test file"):  # would be lost
        plan_run(host, inv, "/mnt/disk1", [JobSpec(name="s", rw="write", size="1M",
                                                   filename="file.bin")])  # fmt: skip
    with pytest.raises(BenchRefused, match="opendir"):
        plan_run(host, inv, "/mnt/disk2", [JobSpec(name="o", rw="read", size="1M",
                                                   extra={"opendir": "/etc"})])  # fmt: skip
    moved = JobSpec(name="d", rw="write", size="1M", extra={"directory": "/mnt/elsewhere"})
    request = plan_run(host, inv, "/mnt/disk2", [moved])
    [placement] = [w for w in request.warnings if w.kind is WarningKind.PLACEMENT]
    assert "directory=/mnt/elsewhere is replaced by the target" in placement.text
    assert "directory" not in request.jobs[0].extra


def test_space_just_enough_and_just_short(tmp_path: Path) -> None:
    # 1 GiB file on a 10 GiB filesystem: tierdeck keeps 1 % (≈102 MiB) free.
    fits = {"/mnt/disk1": {"size": 10 * GiB, "avail": GiB + 103 * MiB}}
    plan_run(recorded(tmp_path / "a", statvfs=fits), nas(), "/mnt/disk1", [WRITE])
    short = {"/mnt/disk1": {"size": 10 * GiB, "avail": GiB + 100 * MiB}}
    with pytest.raises(BenchRefused, match="keeps 102M free"):
        plan_run(recorded(tmp_path / "b", statvfs=short), nas(), "/mnt/disk1", [WRITE])


def test_mergerfs_file_must_fit_on_one_branch(tmp_path: Path) -> None:
    branches = {
        "/mnt/pool": {"size": 100 * GiB, "avail": 10 * GiB},
        "/mnt/disk1": {"size": 50 * GiB, "avail": 5 * GiB},
        "/mnt/disk2": {"size": 50 * GiB, "avail": 5 * GiB},
    }
    host = recorded(tmp_path, statvfs=branches)
    plan_run(host, nas(), "/mnt/pool", [WRITE], size="4G")  # 5G - minfreespace 1G
    with pytest.raises(BenchRefused, match="keeps each file on one branch"):
        plan_run(host, nas(), "/mnt/pool", [WRITE], size="6G")


def test_ramfs_reports_no_capacity_so_space_is_not_checked(tmp_path: Path) -> None:
    request = plan_run(recorded(tmp_path), nas(), "/mnt/ram", [WRITE], direct=False)
    assert request.warnings[0] == RunWarning(
        WarningKind.NO_CAPACITY,
        "ramfs /mnt/ram reports no capacity (ramfs?): free space was not checked",
    )


# --------------------------------------------------------------------------- O_DIRECT


def test_odirect_refusal_offers_buffered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[bool] = []

    def einval(host: object, directory: str, name: str, *, direct: bool) -> OSError | None:
        calls.append(direct)
        return OSError(errno.EINVAL, "Invalid argument") if direct else None

    monkeypatch.setattr(RecordedHost, "probe_write", einval)
    host = recorded(tmp_path)
    with pytest.raises(BenchRefused) as refused:
        plan_run(host, nas(), "/mnt/pool", [WRITE])
    assert refused.value.offer_buffered
    reason = refused.value.reason
    assert reason.startswith("mergerfs /mnt/pool does not support O_DIRECT")
    assert "FUSE" in reason and "tmpfs" in reason and "ramfs" in reason
    assert "direct=0" in reason and "page cache" in reason and "inflate" in reason

    request = plan_run(host, nas(), "/mnt/pool", [WRITE], direct=False)
    assert calls == [True, False]
    assert not any(j.direct for j in request.jobs)
    assert request.warnings == (
        RunWarning(
            WarningKind.BUFFERED,
            "direct=0 (buffered I/O) on mergerfs /mnt/pool: the page cache can inflate these "
            "results; compare them only with other buffered runs.",
        ),
    )


def test_other_probe_errors_are_plain_refusals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(RecordedHost, "probe_write",
                        lambda *a, **k: OSError(errno.EROFS, "Read-only file system"))  # fmt: skip
    with pytest.raises(BenchRefused) as refused:
        plan_run(recorded(tmp_path), nas(), "/mnt/disk1", [WRITE])
    assert not refused.value.offer_buffered
    assert "Read-only file system (EROFS)" in refused.value.reason


def test_buffered_jobs_need_no_warning(tmp_path: Path, no_real_probe: list[Any]) -> None:
    job = JobSpec(name="r", rw="randread", bs="16K", ioengine="sync", size="1G")
    request = plan_run(recorded(tmp_path), nas(), "/mnt/disk1", [job], direct=False)
    assert request.warnings == () and no_real_probe == [("/mnt/disk1", False)]


def test_probe_write_on_a_real_directory(tmp_path: Path) -> None:
    host = LiveHost()
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    os.symlink(victim, tmp_path / PROBE_NAME)  # planted under our name
    assert host.probe_write(str(tmp_path), PROBE_NAME, direct=False) is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["victim"]
    assert victim.read_text() == "keep me"
    assert host.probe_write(str(tmp_path / "missing"), PROBE_NAME, direct=False) is not None


def test_symlink_under_a_test_file_name_refused(tmp_path: Path) -> None:
    host = recorded(tmp_path)
    os.symlink("/etc/shadow", tmp_path / "root" / "mnt" / "disk2" / ".tierdeck-bench.w.0.0")
    with pytest.raises(BenchRefused, match="not a plain file"):
        plan_run(host, nas(), "/mnt/disk2", [WRITE])


# --------------------------------------------------------------------------- caches


def test_drop_caches_needs_root(tmp_path: Path) -> None:
    seed001 = preset("seed001-uncached-randread")
    user = recorded(tmp_path / "user", is_root=False)
    with pytest.raises(BenchRefused, match="needs root"):
        plan_run(user, nas(), "/mnt/disk1", seed001.jobs, drop_caches=True)
    # The preset asks for it: not refused, but said, and not done.
    request = plan_run(user, nas(), "/mnt/disk1", seed001.jobs, preset=seed001.name)
    assert (request.drop_caches, request.lay_out_first) == (False, True)
    assert request.warnings[0].kind is WarningKind.CACHES_KEPT
    assert "needs root: skipped" in request.warnings[0].text
    root = recorded(tmp_path / "root", is_root=True)
    request = plan_run(root, nas(), "/mnt/disk1", seed001.jobs, preset=seed001.name)
    assert (request.drop_caches, request.lay_out_first, request.warnings) == (True, True, ())
    # ZFS keeps reads in its ARC whatever drop_caches does: said before the run.
    request = plan_run(root, nas(), "/tank/media", seed001.jobs, preset=seed001.name)
    assert any(
        w.kind is WarningKind.CACHES_KEPT and "not the ZFS ARC" in w.text for w in request.warnings
    )


# --------------------------------------------------------------------------- raw mode


def test_raw_device_needs_raw_mode_and_the_typed_name(tmp_path: Path) -> None:
    host, inv = recorded(tmp_path), nas()
    with pytest.raises(BenchRefused, match=r"block device.*raw mode.*\(sdd\) typed") as asked:
        plan_run(host, inv, "/dev/sdd", [WRITE])
    assert asked.value.kind is RefusalKind.RAW_CONFIRMATION
    with pytest.raises(BenchRefused, match="does not match the device name 'sdd'"):
        plan_run(host, inv, "/dev/sdd", [WRITE], raw_confirm="sdb")


def test_raw_empty_disk_accepted(tmp_path: Path, no_real_probe: list[Any]) -> None:
    host = recorded(tmp_path, commands=[blkid("/dev/sdd", "blkid-empty-loop.stdout", 2)])
    request = plan_run(host, nas(), "/dev/sdd", [WRITE], raw_confirm="sdd")
    assert request.target.kind is TargetKind.RAW and request.target.disks == ("sdd",)
    assert request.warnings == (
        RunWarning(
            WarningKind.RAW_MODE,
            "raw mode: fio reads and writes /dev/sdd directly; its contents are lost",
        ),
    )
    assert request.lay_out_first is False and no_real_probe == []
    assert fio_commands.job_args(request)[:2] == ["--name=w", "--filename=/dev/sdd"]
    assert fio_commands.test_files(request) == ()


def test_raw_disk_with_a_filesystem_refused_even_confirmed(tmp_path: Path) -> None:
    host = recorded(tmp_path, commands=[blkid("/dev/sdd", "blkid-ext4-loop.stdout", 0)])
    with pytest.raises(BenchRefused) as refused:
        plan_run(host, nas(), "/dev/sdd", [WRITE], raw_confirm="sdd")
    assert "blkid finds a signature on /dev/sdd: ext4" in refused.value.reason
    assert "would destroy it" in refused.value.reason
    # Said before any name is asked for: nobody types a name to learn it was in vain.
    with pytest.raises(BenchRefused) as unasked:
        plan_run(host, nas(), "/dev/sdd", [WRITE])
    assert unasked.value.kind is RefusalKind.INVALID
    assert "blkid finds a signature" in unasked.value.reason


def test_raw_wipefs_when_blkid_is_missing(tmp_path: Path) -> None:
    wipefs = {"argv": ["wipefs", "-n", "/dev/sdd"],
              "stdout": (PREFLIGHT / "wipefs-ext4-loop.stdout").read_text()}  # fmt: skip
    host = recorded(tmp_path / "a", tools=("fio", "wipefs"), commands=[wipefs])
    with pytest.raises(BenchRefused, match="loop2  0x438  ext4"):
        plan_run(host, nas(), "/dev/sdd", [WRITE], raw_confirm="sdd")
    empty = {"argv": ["wipefs", "-n", "/dev/sdd"], "stdout": ""}
    host = recorded(tmp_path / "b", tools=("fio", "wipefs"), commands=[empty])
    assert (
        plan_run(host, nas(), "/dev/sdd", [WRITE], raw_confirm="/dev/sdd").target.path == "/dev/sdd"
    )
    host = recorded(tmp_path / "c", tools=("fio",))
    with pytest.raises(BenchRefused, match="neither blkid nor wipefs"):
        plan_run(host, nas(), "/dev/sdd", [WRITE], raw_confirm="sdd")


@pytest.mark.parametrize(
    ("node", "confirm", "reason"),
    [
        ("/dev/sdb", "sdb", "sdb is mounted on /mnt/disk1"),
        ("/dev/sdf", "sdf", "sdf2 is mounted on /mnt/parity"),
        ("/dev/sde1", "sde1", "it is held by md0"),
        ("/dev/sdh", "sdh", "it is held by dm-3"),
        ("/dev/sda", "sda", "partition sda1 carries ext4"),
        ("/dev/disk/by-id/ata-EMPTY_DISK", "sdd", None),
    ],
)
def test_raw_in_use_refused(tmp_path: Path, node: str, confirm: str, reason: str | None) -> None:
    host = recorded(tmp_path)
    if reason is None:  # the by-id path of the empty disk is fine
        request = plan_run(host, nas(), node, [WRITE], raw_confirm=confirm)
        assert request.target.path == "/dev/sdd"
        return
    with pytest.raises(BenchRefused, match=reason):
        plan_run(host, nas(), node, [WRITE], raw_confirm=confirm)


def test_raw_zfs_member_read_only_size_and_root(tmp_path: Path) -> None:
    host = recorded(tmp_path)
    (tmp_path / "root" / "dev" / "nvme0n1").write_text("")
    with pytest.raises(BenchRefused, match="belongs to ZFS pool tank"):
        plan_run(host, nas(), "/dev/nvme0n1", [WRITE], raw_confirm="nvme0n1")
    with pytest.raises(BenchRefused, match="read-only; w writes"):
        plan_run(host, nas(), "/dev/sdg", [WRITE], raw_confirm="sdg")
    with pytest.raises(BenchRefused, match="larger than /dev/sdd"):
        plan_run(host, nas(), "/dev/sdd", [WRITE], raw_confirm="sdd", size="5G")
    user = recorded(tmp_path / "user", is_root=False)
    with pytest.raises(BenchRefused, match="raw mode needs root"):
        plan_run(user, nas(), "/dev/sdd", [WRITE], raw_confirm="sdd")


# --------------------------------------------------------------------------- one run


def test_busy_target_refused_and_shared_disks_warned(tmp_path: Path) -> None:
    host, inv = recorded(tmp_path), nas()
    running = plan_run(host, inv, "/mnt/disk1", [WRITE], name="first")
    with claims.claim(host, running):
        with pytest.raises(BenchRefused, match=r"already running on branch /mnt/disk1 \(first\)"):
            plan_run(host, inv, "/mnt/disk1/", [WRITE])
        beside = plan_run(host, inv, "/mnt/pool", [WRITE])
        assert beside.warnings == (
            RunWarning(
                WarningKind.SHARED_DISKS,
                "another benchmark (first) is running on sdb: both results will be lower "
                "than either disk alone can do",
            ),
        )
        with (
            pytest.raises(BenchRefused, match="already running"),
            claims.claim(host, running),
        ):
            pass
    assert claims.running_request("/mnt/disk1") is None
    plan_run(host, inv, "/mnt/disk1", [WRITE])  # free again


def test_another_process_holding_the_target_is_refused(tmp_path: Path) -> None:
    request = plan_run(recorded(tmp_path), nas(), "/mnt/disk1", [WRITE], name="mine")
    holder = (
        "import sys\n"
        "from tierdeck.app.bench import claims\n"
        "from tierdeck.backends.host import LiveHost\n"
        "from tierdeck.core.bench_models import BenchTarget, RunRequest, TargetKind\n"
        "target = BenchTarget('/mnt/disk1', TargetKind.BRANCH, 'branch /mnt/disk1', ('sdb',))\n"
        "request = RunRequest(target=target, jobs=(), name='theirs')\n"
        "with claims.claim(LiveHost(), request):\n"
        "    print('held', flush=True)\n"
        "    sys.stdin.read()\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", holder], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "held\n"
        with (
            pytest.raises(BenchRefused, match="another tierdeck process"),
            claims.claim(LiveHost(), request),  # the machine-wide lock is the host's
        ):
            pass
    finally:
        proc.communicate("", timeout=30)
    with claims.claim(LiveHost(), request):  # released with the other process
        assert claims.running_request("/mnt/disk1/") == request


# --------------------------------------------------------------------------- runner pieces
# The runner's pure helpers, fed recorded fio output (tests/fixtures/fio); the runner
# itself runs real fio in tests/integration/test_bench_engine.py.

FIO = FIXTURES / "fio"


def test_failure_message_is_fios_own_words() -> None:
    from tierdeck.backends.fio.json_documents import split_documents
    from tierdeck.backends.fio.stream import parse_report

    docs, stdout_lines = split_documents((FIO / "fio333_odirect_ramfs.stdout").read_text())
    stderr_lines = (FIO / "fio333_odirect_ramfs.stderr").read_text().splitlines()
    outcome = fio_outcome.FioOutcome(
        returncode=1, last_report=parse_report(docs[-1]), messages=stdout_lines + stderr_lines
    )
    assert fio_outcome.fio_failure(outcome) == "\n".join([
        "fio job failed: odirect (err=22: Invalid argument)",
        "fio: pid=10255, err=22/file:filesetup.c:805, func=open(/tmp/tdfio/ramfs/od.bin), "
        "error=Invalid argument",
        "fio: looks like your file system does not support direct=1/buffered=0",
        "fio: destination does not support O_DIRECT",
    ])  # fmt: skip
    assert fio_outcome.fio_failure(fio_outcome.FioOutcome(returncode=-9)) == (
        "fio was killed by signal 9"
    )
    assert fio_outcome.fio_failure(fio_outcome.FioOutcome(returncode=0)) == (
        "fio printed no final report"
    )
    exit_0 = fio_outcome.FioOutcome(returncode=0, last_report=parse_report(docs[-1]))
    assert fio_outcome.fio_failure(exit_0) is not None  # a job with error=22 failed anyway


def test_progress_follows_groups_and_bytes() -> None:
    from tierdeck.backends.fio.json_documents import split_documents
    from tierdeck.backends.fio.stream import parse_report

    jobs = parse_jobfile((FIO / "stonewall_rate_limited.fio").read_text())
    docs, _ = split_documents((FIO / "fio333_status_stonewall.json").read_text())

    model = progress.ProgressModel(jobs)
    assert [len(g) for g in model.groups] == [1, 1] and model.weights == [3.0, 3.0]
    fractions = [model.fraction(parse_report(d)) for d in docs]
    assert fractions == sorted(fractions)
    assert fractions[0] < 0.5 < fractions[-2] and fractions[-1] == pytest.approx(1.0)
    assert model.fraction(None) == 0.0
    sized = progress.ProgressModel([JobSpec(name="s", rw="read", size="1M")])
    assert sized.weights == [1.0]


def test_commands_and_test_files() -> None:
    target = BenchTarget("/mnt/my:pool", TargetKind.MERGERFS, "m", ())
    jobs = (JobSpec(name="a", rw="read", size="1M"), JobSpec(name="b", rw="read", size="1M",
            file_tag="a", stonewall=True))  # fmt: skip
    request = RunRequest(target=target, jobs=jobs, name="n", files=planned_files(jobs))
    assert fio_commands.measure_command(request)[:4] == (
        "fio", "--output-format=json+", "--status-interval=1", "--eta=never")  # fmt: skip
    assert fio_commands.layout_command(request)[1] == "--create_only=1"
    args = fio_commands.job_args(request)
    assert args[:3] == [
        "--directory=/mnt/my\\:pool",
        "--filename_format=.tierdeck-bench.$jobname.$jobnum.$filenum",
        "--name=a",
    ]
    assert "--filename=.tierdeck-bench.a" in args  # b's file_tag
    assert fio_commands.test_files(request) == (
        "/mnt/my:pool/.tierdeck-bench.a.0.0",
        "/mnt/my:pool/.tierdeck-bench.a",
    )


def test_a_hung_branch_is_skipped_in_the_space_check_not_waited_for(
    tmp_path: Path, no_real_probe: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    # disk2 on NFS whose server is gone: its statvfs never answers (a dead mergerfs
    # under a branch does the same); the pool's other branch still holds the file.
    import threading

    from tierdeck.app.bench import space as bench_space

    inv = nas()
    mounts = tuple(
        replace(m, fs_type="nfs4") if m.mountpoint == "/mnt/disk2" else m for m in inv.mounts
    )
    inv = replace(inv, mounts=mounts)
    host = recorded(tmp_path)
    never = threading.Event()
    answer = RecordedHost.statvfs

    def statvfs(self: RecordedHost, path: str) -> Any:
        if path == "/mnt/disk2" and not never.wait(10):
            raise AssertionError("the space check waited for a hung branch")
        return answer(self, path)

    monkeypatch.setattr(RecordedHost, "statvfs", statvfs)
    monkeypatch.setattr(bench_space, "NETWORK_STATVFS_TIMEOUT", 0.2)
    try:
        request = plan_run(host, inv, "/mnt/pool", [WRITE], size="4G")
    finally:
        never.set()
    assert request.target.path == "/mnt/pool"
