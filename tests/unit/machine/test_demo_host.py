"""The demo NAS (app/machine/demo_host) is seed 000's machine: checked against the seed's text."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from tierdeck.app.machine.demo import demo_host_path, load_demo_host
from tierdeck.backends.disks import read_disks
from tierdeck.backends.host import RecordedHost
from tierdeck.core.models import DiskKind

from tests.support.recording_tools import (
    ZFS_LIST_ARGV,
    ZFS_VERSION_ARGV,
    ZPOOL_LIST_ARGV,
    ZPOOL_STATUS_ARGV,
    ZPOOL_STATUS_JSON_ARGV,
)

from ...paths import REPO

GIB = 1024**3
PROMPT = "root@nas:/home/gfm# "


@pytest.fixture(scope="module")
def host() -> RecordedHost:
    return load_demo_host()


@pytest.fixture(scope="module")
def seed() -> str:
    repo = REPO
    for folder in (repo.parent / "shared" / "seeds", Path("/work/shared/seeds")):
        for path in sorted(folder.glob("000_*.txt")):
            return path.read_text(encoding="utf-8")
    pytest.skip("seed 000 not available (shared/seeds beside the repository)")


def output_of(seed: str, command: str) -> str:
    """What the seed shows after ``<prompt><command>``, up to the next prompt or the end
    of the code block, blank lines at its end dropped."""
    start = seed.index(PROMPT + command + "\n") + len(PROMPT + command + "\n")
    lines = []
    for line in seed[start:].splitlines(keepends=True):
        if line.startswith((PROMPT, "```")):
            break
        lines.append(line)
    return "".join(lines).rstrip("\n") + "\n"


def test_host_identity(host: RecordedHost) -> None:
    assert demo_host_path().name == "demo_host"
    assert (host.hostname, host.kernel, host.is_root) == ("nas", "5.15.0-52-generic", True)


def test_lsscsi_and_zpool_status_are_the_seed_verbatim(host: RecordedHost, seed: str) -> None:
    assert host.run(["lsscsi"]).stdout == output_of(seed, "lsscsi")
    assert host.run(list(ZPOOL_STATUS_ARGV)).stdout == output_of(seed, "zpool status")
    assert output_of(seed, "lsscsi").startswith("[0:0:0:0]    disk    ATA      WDC WD180EDGZ-11")
    assert output_of(seed, "zpool status").endswith("errors: No known data errors\n")


def test_disks(host: RecordedHost) -> None:
    disks, notes = read_disks(host)
    assert notes == ()
    table = {
        d.name: (d.kind, d.size_bytes, d.model, d.hctl, d.transport, d.rotational)
        for d in disks
        if not d.virtual
    }
    assert table == {
        "sda": (DiskKind.HDD, 128 * GIB, "QEMU HARDDISK", "1:0:0:0", "scsi", True),
        "sdb": (DiskKind.HDD, 500148224 * 512, "QEMU HARDDISK", "1:0:0:1", "scsi", True),
        "sdc": (DiskKind.HDD, 18000207937536, "WDC WD180EDGZ-11B2DA0", "0:0:0:0", "sata", True),
        "sdd": (DiskKind.HDD, 18000207937536, "WDC WD180EDGZ-11B2DA0", "0:0:1:0", "sata", True),
        "sde": (DiskKind.HDD, 8001563222016, "WDC WD80EFZX-68UW8N0", "0:0:2:0", "sata", True),
        "nvme0n1": (
            DiskKind.NVME, 256060514304, "Samsung SSD 950 PRO 256GB", "N:0:1:1", "nvme", False,
        ),
        "sr0": (DiskKind.OPTICAL, 0, "QEMU DVD-ROM", "3:0:0:0", "sata", True),
    }  # fmt: skip
    # The sizes mkfs.btrfs printed for the two cache devices.
    assert f"{table['sdb'][1] / GIB:.2f}GiB" == "238.49GiB"
    assert f"{table['nvme0n1'][1] / GIB:.2f}GiB" == "238.47GiB"
    loops = {d.name: (d.size_bytes, d.backing_file, d.fs_type) for d in disks if d.virtual}
    assert sorted(loops) == ["loop0", "loop1", "loop2", "loop3", "loop4"]  # 5-7 unattached
    assert loops["loop4"] == (71118848, "/var/lib/snapd/snaps/lxd_22753.snap", "squashfs")
    by = {d.name: d for d in disks}
    assert [(p.name, p.fs_type, p.holders) for p in by["sda"].partitions] == [
        ("sda1", "vfat", ()),
        ("sda2", "ext4", ()),
        ("sda3", "LVM2_member", ("dm-0",)),
    ]
    for name in ("sdb", "nvme0n1"):  # ZFS whole-disk layout: data on 1, reserve on 9
        parts = by[name].partitions
        assert [(p.number, p.fs_type, p.fs_label) for p in parts] == [
            (1, "zfs_member", "cache"),
            (9, None, None),
        ]
    assert (by["sdc"].fs_type, by["sde"].fs_type, by["sdc"].partitions) == ("ext4", "ext4", ())
    assert by["sdd"].partitions[0].name == "sdd1"
    assert by["sdc"].serial and by["sdc"].by_id[0].startswith("/dev/disk/by-id/ata-WDC_WD180")
    assert by["nvme0n1"].firmware == "2B0QBXX7"


def _df_h(n: int) -> str:
    """GNU df -h: binary units, rounded up, one decimal under 10."""
    if n < 1024:
        return str(n)
    exp = 1
    while n >= 1024 ** (exp + 1):
        exp += 1
    tenths = math.ceil(n * 10 / 1024**exp)
    if tenths < 100:
        return f"{tenths / 10:.1f}{'KMGTPE'[exp - 1]}"
    whole = math.ceil(n / 1024**exp)
    return f"1.0{'KMGTPE'[exp]}" if whole >= 1024 else f"{whole}{'KMGTPE'[exp - 1]}"


def test_every_df_row_has_a_mount_and_the_same_numbers(host: RecordedHost, seed: str) -> None:
    rows = [line.split() for line in output_of(seed, "df -h").splitlines()[1:]]
    assert len(rows) == 22
    mountinfo = host.read_text("/proc/self/mountinfo").splitlines()
    mounted = {line.split()[4]: line.split(" - ")[1].split()[:2] for line in mountinfo}
    for source, size, used, avail, pct, mountpoint in rows:
        fs_type, mount_source = mounted[mountpoint]
        assert mount_source == source, mountpoint
        fs = host.statvfs(mountpoint)
        denominator = fs.used_bytes + fs.avail_bytes
        got_pct = f"{math.ceil(fs.used_bytes * 100 / denominator)}%"
        assert (_df_h(fs.size_bytes), _df_h(fs.used_bytes), _df_h(fs.avail_bytes), got_pct) == (
            size, used, avail, pct,
        ), mountpoint  # fmt: skip
    assert mounted["/mnt/cached"] == ["fuse.mergerfs", "mergerfs"]
    assert mounted["/cache"] == ["zfs", "cache"]
    assert mounted["/mnt/disk1"] == mounted["/mnt/snapraid-content/disk1"] == ["ext4", "/dev/sde"]


def test_mergerfs_pools_carry_the_seed_fstab_options(host: RecordedHost) -> None:
    cached = {
        n: host.getxattr("/mnt/cached/.mergerfs", n)
        for n in host.listxattr("/mnt/cached/.mergerfs")
    }
    slow = {
        n: host.getxattr("/mnt/slow-storage/.mergerfs", n)
        for n in host.listxattr("/mnt/slow-storage/.mergerfs")
    }
    assert len(cached) == len(slow) == 63  # every key mergerfs 2.33.5 exposes
    p = "user.mergerfs."
    assert cached[p + "branches"] == "/cache=RW"
    assert slow[p + "branches"] == "/mnt/disk1=RW:/mnt/disk2=RW"  # /mnt/disk* expanded
    assert (cached[p + "category.create"], slow[p + "category.create"]) == ("lfs", "eplus")
    assert (cached[p + "minfreespace"], slow[p + "minfreespace"]) == ("4294967296", "322122547200")
    for pool in (cached, slow):
        assert pool[p + "version"] == "2.33.5"
        assert pool[p + "cache.files"] == "off"
        assert pool[p + "moveonenospc"] == "mfs"  # what mergerfs makes of moveonenospc=true
        assert pool[p + "dropcacheonclose"] == "true"
        assert pool[p + "fsname"] == "mergerfs"


def test_zfs_2_1_4_commands(host: RecordedHost) -> None:
    assert (
        host.run(list(ZFS_VERSION_ARGV)).stdout
        == "zfs-2.1.4-0ubuntu0.1\nzfs-kmod-2.1.4-0ubuntu0.1\n"
    )
    refused = host.run(list(ZPOOL_STATUS_JSON_ARGV))
    assert refused.returncode == 2
    assert refused.stderr.startswith("invalid option 'j'\nusage:\n\tstatus [-c [script1,")
    pool = host.run(list(ZPOOL_LIST_ARGV)).stdout.rstrip("\n").split("\t")
    assert pool[0] == "cache" and pool[4:] == ["0", "0", "1.00", "ONLINE"]
    assert int(pool[1]) == 238 * GIB
    dataset = host.run(list(ZFS_LIST_ARGV)).stdout.rstrip("\n").split("\t")
    assert dataset[:2] == ["cache", "filesystem"] and dataset[5] == "/cache"
    fs = host.statvfs("/cache")
    assert (int(dataset[3]), int(dataset[4])) == (fs.avail_bytes, fs.used_bytes)
