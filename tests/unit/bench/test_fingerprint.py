"""The environment fingerprint of a benchmark target, on hand-built inventories and a
RecordedHost (fio --version captured on the dev VM; zfs get from tests/fixtures)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tierdeck.app.bench.fingerprint import fingerprint, fio_version, parse_zfs_get, zfs_properties
from tierdeck.app.bench.target_lookup import resolve_target
from tierdeck.backends.host import RecordedHost
from tierdeck.core.bench_models import EnvFingerprint
from tierdeck.core.models import (
    BranchMode,
    Disk,
    DiskKind,
    Inventory,
    MergerfsBranch,
    MergerfsPool,
    Mount,
    Vdev,
    VdevKind,
    ZfsDataset,
    ZfsInfo,
    ZPool,
)

from ...paths import FIXTURES

PREFLIGHT = FIXTURES / "diskstats" / "preflight"
ZFS_GET = (PREFLIGHT / "zfs-get-Hp-derived-iem277.txt").read_text()


def host(tmp_path: Path, *, tools: tuple[str, ...] = ("fio", "zfs"), **extra: Any) -> RecordedHost:
    commands = [
        {"argv": ["fio", "--version"], "stdout": "fio-3.33\n"},  # dev VM, fio 3.33
        {"argv": ["zfs", "get", "-H", "-p", "all", "tank/pg13wal"], "stdout": ZFS_GET},
        {"argv": ["zfs", "get", "-H", "-p", "all", "tank/gone"], "returncode": 1,
         "stderr": "cannot open 'tank/gone': dataset does not exist\n"},
    ]  # fmt: skip
    meta = {"kernel": "6.1.0-21-amd64", "tools": list(tools), "commands": commands, **extra}
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "host.json").write_text(json.dumps(meta))
    return RecordedHost(tmp_path)


def mount(
    point: str, fs: str, source: str, mm: str, opts: tuple[str, ...], sup: tuple[str, ...]
) -> Mount:
    return Mount(mount_id=len(point), parent_id=1, major_minor=mm, root="/", mountpoint=point,
                 fs_type=fs, source=source, options=opts, super_options=sup)  # fmt: skip


def inventory() -> Inventory:
    disks = (
        Disk(name="sdb", path="/dev/sdb", major_minor="8:16", kind=DiskKind.HDD, size_bytes=1,
             rotational=True, vendor="ATA", model="WDC WD180EDGZ-11B2DA0"),
        Disk(name="sdc", path="/dev/sdc", major_minor="8:32", kind=DiskKind.HDD, size_bytes=1,
             rotational=True, vendor="WDC", model="WDC WD120EMFZ"),
        Disk(name="loop3", path="/dev/loop3", major_minor="7:3", kind=DiskKind.VIRTUAL,
             size_bytes=1, rotational=False, backing_file="/var/tmp/lab/hdd1.img"),
        Disk(name="nvme0n1", path="/dev/nvme0n1", major_minor="259:0", kind=DiskKind.NVME,
             size_bytes=1, rotational=False),
    )  # fmt: skip
    mounts = (
        mount("/", "ext4", "/dev/sdz1", "8:241", ("rw", "relatime"), ("rw", "errors=remount-ro")),
        mount("/mnt/disk1", "xfs", "/dev/sdb", "8:16", ("rw", "noatime"), ("rw", "inode64")),
        mount("/mnt/disk2", "xfs", "/dev/loop3", "7:3", ("rw",), ("rw",)),
        mount("/mnt/pool", "fuse.mergerfs", "pool", "0:60", ("rw", "nosuid"),
              ("rw", "user_id=0", "allow_other")),
        mount("/pg", "zfs", "tank/pg13wal", "0:70", ("rw", "noatime"), ("rw", "xattr")),
        mount("/mnt/zpool", "fuse.mergerfs", "zpool", "0:61", ("rw",), ("rw",)),
    )  # fmt: skip
    pools = (
        MergerfsPool(
            mountpoint="/mnt/pool", fsname="pool", version="2.33.5",
            branches=(MergerfsBranch("/mnt/disk1", BranchMode.RW, None),
                      MergerfsBranch("/mnt/disk2", BranchMode.RW, None)),
            options={"category.create": "mfs", "cache.files": "off", "pid": "4242"},
            create_policy="mfs", minfreespace_bytes=None,
        ),
        MergerfsPool(
            mountpoint="/mnt/zpool", fsname="zpool", version="2.40.2",
            branches=(MergerfsBranch("/pg", BranchMode.RW, None),
                      MergerfsBranch("/mnt/disk1", BranchMode.RW, None)),
            options={"category.create": "epmfs"}, create_policy="epmfs", minfreespace_bytes=None,
        ),
    )  # fmt: skip
    zfs = ZfsInfo(
        available=True, version="zfs-2.1.11-1",
        pools=(ZPool(name="tank", state="ONLINE",
                     vdevs=(Vdev(name="nvme0n1", kind=VdevKind.DISK, state="ONLINE"),)),),
        datasets=(ZfsDataset("tank/pg13wal", "filesystem", 1, 1, 1, "/pg"),),
    )  # fmt: skip
    return Inventory(hostname="nas", disks=disks, mounts=mounts, mergerfs=pools, zfs=zfs,
                     btrfs=(), md=(), kernel="6.1.0-21-amd64",
                     dev_names={"8:16": "sdb", "7:3": "loop3"})  # fmt: skip


def test_parse_zfs_get_recorded_lines() -> None:
    issue = (PREFLIGHT / "zfs-get-Hp-issue6436.txt").read_text()
    assert parse_zfs_get(issue) == {"compressratio": "1.12x"}
    props = parse_zfs_get(ZFS_GET)
    assert len(props) == 11
    assert props["recordsize"] == "8192"
    assert props["mountpoint"] == "/var/lib/pgsql/13/data/pg_wal"
    assert props["atime"] == "off"  # source "inherited from tank" has spaces: not a value
    assert parse_zfs_get("garbage\nno tabs here\n\t\t\n") == {}


def test_fio_version_and_missing_tools(tmp_path: Path) -> None:
    assert fio_version(host(tmp_path / "a")) == "fio-3.33"
    assert fio_version(host(tmp_path / "b", tools=())) is None
    assert zfs_properties(host(tmp_path / "c", tools=()), "tank/pg13wal") == {}
    assert zfs_properties(host(tmp_path / "d"), "tank/gone") == {}


def test_mergerfs_pool_fingerprint(tmp_path: Path) -> None:
    inv = inventory()
    target = resolve_target(inv, "/mnt/pool")
    assert fingerprint(host(tmp_path), inv, target) == EnvFingerprint(
        kernel="6.1.0-21-amd64",
        fio_version="fio-3.33",
        fs_type="fuse.mergerfs",
        mount_options=("rw", "nosuid", "user_id=0", "allow_other"),
        mergerfs_version="2.33.5",
        mergerfs_options={"category.create": "mfs", "cache.files": "off"},  # no "pid"
        disk_models={"sdb": "ATA WDC WD180EDGZ-11B2DA0", "loop3": "loop on /var/tmp/lab/hdd1.img"},
    )


def test_branch_fingerprint_has_no_mergerfs_part(tmp_path: Path) -> None:
    inv = inventory()
    env = fingerprint(host(tmp_path), inv, resolve_target(inv, "/mnt/disk1"))
    assert (env.fs_type, env.mount_options) == ("xfs", ("rw", "noatime", "inode64"))
    assert env.mergerfs_version is None and env.mergerfs_options == {}
    assert env.disk_models == {"sdb": "ATA WDC WD180EDGZ-11B2DA0"}


def test_zfs_dataset_fingerprint(tmp_path: Path) -> None:
    inv = inventory()
    env = fingerprint(host(tmp_path), inv, resolve_target(inv, "/pg"))
    assert (env.fs_type, env.zfs_version) == ("zfs", "zfs-2.1.11-1")
    assert env.zfs_properties["recordsize"] == "8192"
    assert env.zfs_properties["compression"] == "off"
    assert env.disk_models == {"nvme0n1": "nvme (no model)"}
    without_zfs = fingerprint(
        host(tmp_path / "nozfs", tools=("fio",)), inv, resolve_target(inv, "/pg")
    )
    assert without_zfs.zfs_version == "zfs-2.1.11-1" and without_zfs.zfs_properties == {}


def test_mergerfs_over_zfs_keys_properties_by_dataset(tmp_path: Path) -> None:
    inv = inventory()
    env = fingerprint(host(tmp_path), inv, resolve_target(inv, "/mnt/zpool"))
    assert env.mergerfs_version == "2.40.2" and env.zfs_version == "zfs-2.1.11-1"
    assert env.zfs_properties["tank/pg13wal:recordsize"] == "8192"
    assert "recordsize" not in env.zfs_properties
    assert env.disk_models == {"nvme0n1": "nvme (no model)", "sdb": "ATA WDC WD180EDGZ-11B2DA0"}


def test_raw_fingerprint_has_no_filesystem(tmp_path: Path) -> None:
    inv = inventory()
    env = fingerprint(host(tmp_path), inv, resolve_target(inv, "/dev/sdc"))
    assert (env.fs_type, env.mount_options, env.kernel) == (None, (), "6.1.0-21-amd64")
    assert env.disk_models == {"sdc": "WDC WD120EMFZ"}  # vendor already in the model
