"""HostRecording writes what the kernel and the tools would show; build_large_host."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tierdeck.backends.host import RecordedHost

from tests.support.large_host import build_large_host
from tests.support.recording import HostRecording, PartitionSpec, partition_name, sd_name
from tests.support.recording_tools import (
    MERGERFS_2_33_5_DEFAULTS,
    ZFS_LIST_ARGV,
    ZPOOL_LIST_ARGV,
    ZPOOL_STATUS_ARGV,
    ZPOOL_STATUS_JSON_ARGV,
    mergerfs_xattrs,
    zpool_status_text,
)

from ..paths import DEMO_HOST, REPO

CAPTURED = DEMO_HOST / "captured"


def test_kernel_shaped_sysfs(tmp_path: Path) -> None:
    rec = HostRecording(tmp_path / "h", udev=False)
    rec.add_disk("sdc", 18000207937536, True, model="WDC WD180EDGZ-11B2DA0", vendor="ATA",
                 firmware="85.00A85", transport="sas", hctl="0:0:0:0",
                 partitions=[PartitionSpec(1, 10**12)], by_id=["ata-X_1"])  # fmt: skip
    rec.add_disk("nvme0n1", 256060514304, False, model="Samsung SSD 950 PRO 256GB",
                 serial="S2GL", firmware="2B0QBXX7", transport="nvme", wwn="eui.00253",
                 partitions=[PartitionSpec(1, 10**9)])  # fmt: skip
    folder = rec.write()
    root = folder / "root"
    host = RecordedHost(folder)
    # Links are recorded as data (sysfs has link cycles), never as symlinks on disk.
    assert not any(p.is_symlink() for p in root.rglob("*"))
    assert host.readlink("/sys/block/sdc") == (
        "../devices/pci0000:00/0000:00:10.0/host0/port-0:0/end_device-0:0/target0:0:0/0:0:0:0"
        "/block/sdc"
    )
    device_path = "/sys/devices/pci0000:00/0000:00:10.0/host0/port-0:0/end_device-0:0"
    device_path += "/target0:0:0/0:0:0:0"
    device = root / device_path.lstrip("/")
    assert host.readlink(f"{device_path}/block/sdc/device") == "../../../0:0:0:0"
    assert host.realpath("/sys/block/sdc/device") == device_path
    # INQUIRY fields as libata fills them: padded, model cut to 16, firmware's last 4.
    assert (device / "vendor").read_text() == "ATA     \n"
    assert (device / "model").read_text() == "WDC WD180EDGZ-11\n"
    assert (device / "rev").read_text() == "0A85\n"
    assert (device / "block/sdc/sdc1/partition").read_text() == "1\n"
    assert (device / "block/sdc/sdc1/dev").read_text() == "8:33\n"
    assert host.readlink("/dev/disk/by-id/ata-X_1-part1") == "../../sdc1"
    assert host.readlink("/sys/block/nvme0n1").endswith("/nvme/nvme0/nvme0n1")
    assert "sdc" in host.listdir("/sys/block") and host.is_dir("/sys/block/sdc")
    assert host.read_text("/sys/block/nvme0n1/device/serial") == "S2GL".ljust(20) + "\n"
    assert host.read_text("/sys/block/nvme0n1/dev") == "259:0\n"
    assert host.read_text("/sys/block/nvme0n1/nvme0n1p1/dev") == "259:1\n"
    assert host.udev_properties("sdc") is None  # udev=False: no database at all


def test_names_and_numbers() -> None:
    assert [sd_name(i) for i in (0, 25, 26, 239, 701)] == ["sda", "sdz", "sdaa", "sdif", "sdzz"]
    assert (partition_name("sda", 9), partition_name("nvme0n1", 1)) == ("sda9", "nvme0n1p1")


def test_metadata_commands_and_fallbacks(tmp_path: Path) -> None:
    rec = HostRecording(tmp_path / "h", hostname="nas", kernel="5.15.0-52-generic")
    rec.add_command(["zfs", "version"], "zfs-2.1.4-0ubuntu0.1\n")
    rec.add_command(["zpool", "status"], "x" * 5000)  # big: goes to a file
    rec.set_fallback("zpool", "invalid option 'j'\n", 2)
    rec.set_tools(["lsscsi"])
    rec.add_statvfs("/mnt/a/", 100, 60, 50)
    rec.add_xattrs("/mnt/a/.mergerfs", {"user.mergerfs.version": "2.33.5"})
    rec.add_mount("/", "ext4", "/dev/sda1", "8:1")
    rec.add_mount("/mnt/my disk", "xfs", "/dev/sdb1", "8:17", usage=(10, 5, 4))
    host = RecordedHost(rec.write())
    assert (host.hostname, host.kernel, host.is_root) == ("nas", "5.15.0-52-generic", True)
    assert host.run(["zpool", "status"]).stdout == "x" * 5000
    assert (tmp_path / "h/commands/001.txt").is_file()
    refused = host.run(["zpool", "status", "-j"])
    assert (refused.returncode, refused.stderr) == (2, "invalid option 'j'\n")
    assert host.has_tool("lsscsi") and not host.has_tool("btrfs")
    assert host.statvfs("/mnt/a").avail_bytes == 50
    assert host.getxattr("/mnt/a/.mergerfs", "user.mergerfs.version") == "2.33.5"
    assert host.read_text("/proc/self/mountinfo").splitlines() == [
        "24 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw",
        "25 24 8:17 / /mnt/my\\040disk rw,relatime shared:2 - xfs /dev/sdb1 rw",
    ]
    assert host.statvfs("/mnt/my disk").size_bytes == 10


def test_write_keeps_notes_and_refuses_foreign_folders(tmp_path: Path) -> None:
    rec = HostRecording(tmp_path / "h")
    rec.add_disk("sda", 10**9, True, transport="scsi")
    folder = rec.write()
    (folder / "SOURCES.md").write_text("kept")
    rec.write()
    assert (folder / "SOURCES.md").read_text() == "kept"
    foreign = tmp_path / "foreign"
    (foreign / "root").mkdir(parents=True)
    with pytest.raises(FileExistsError):
        HostRecording(foreign).write()


def _seed_zpool_status() -> str | None:
    for folder in (REPO.parent / "shared" / "seeds", Path("/work/shared/seeds")):
        for seed in sorted(folder.glob("000_*.txt")):
            text = seed.read_text()
            start = text.index("# zpool status\n") + len("# zpool status\n")
            end = text.index("errors: No known data errors\n", start)
            return text[start : end + len("errors: No known data errors\n")]
    return None


def test_zpool_status_layout_matches_the_seed() -> None:
    seed = _seed_zpool_status()
    if seed is None:
        pytest.skip("seed 000 not available")
    scan = "resilvered 12.0M in 0 days 00:00:00 with 0 errors on Thu Nov  3 23:34:42 2022"
    # The seed was pasted from a terminal, which turned zpool's tabs into 8 spaces.
    text = zpool_status_text("cache", [("mirror-0", ["sdb", "nvme0n1"])], scan=scan,
                             indent=" " * 8)  # fmt: skip
    assert text == seed


def test_mergerfs_xattrs_match_the_real_capture() -> None:
    dump = (CAPTURED / "mergerfs-slow-storage.getfattr.txt").read_text()
    real = dict(re.findall(r'^(user\.mergerfs\.[^=]+)="(.*)"$', dump, re.M))
    prefix = re.search(r"^# file: (.*)/mnt/slow-storage/\.mergerfs$", dump, re.M)
    assert prefix is not None
    built = mergerfs_xattrs(
        "/mnt/slow-storage",
        ["/mnt/disk1", "/mnt/disk2"],
        pid=int(real["user.mergerfs.pid"]),
        options={"category.create": "eplus", "cache.files": "off", "moveonenospc": "mfs",
                 "dropcacheonclose": "true", "minfreespace": "322122547200"},
    )  # fmt: skip
    assert built == {k: v.replace(prefix.group(1), "") for k, v in real.items()}
    assert len(MERGERFS_2_33_5_DEFAULTS) + 4 == len(built)


def test_large_host(tmp_path: Path) -> None:
    host = RecordedHost(build_large_host(tmp_path / "big"))
    meta = json.loads((tmp_path / "big/host.json").read_text())
    assert len([n for n in host.listdir("/sys/block") if n.startswith("sd")]) == 240
    status = host.run(list(ZPOOL_STATUS_ARGV)).stdout
    assert status.count("  pool: tank") == 20
    assert status.count("\t  raidz2-0 ") == 20
    assert len(re.findall(r"^\t    \S+ +ONLINE       0     0     0$", status, re.M)) == 240
    assert "\t    ata-WDC_WD180EDGZ-11B2DA0_3GJ00012X  ONLINE" in status  # by-id pools too
    pools = host.run(list(ZPOOL_LIST_ARGV)).stdout.splitlines()
    assert len(pools) == 20 and all(len(line.split("\t")) == 8 for line in pools)
    datasets = host.run(list(ZFS_LIST_ARGV)).stdout.splitlines()
    assert "tank00/ROOT" in {line.split("\t")[0] for line in datasets}
    assert all(len(line.split("\t")) == 6 for line in datasets)
    refused = host.run(list(ZPOOL_STATUS_JSON_ARGV))
    assert refused.returncode == 2 and refused.stderr.startswith("invalid option 'j'\nusage:\n")
    ctrls = sorted(meta["xattrs"])
    assert ctrls == [f"/mnt/pool{i:02d}/.mergerfs" for i in range(10)]
    branches = meta["xattrs"]["/mnt/pool00/.mergerfs"]["user.mergerfs.branches"]
    assert branches == "/tank00=RW:/tank10=RW"
    pool00 = host.statvfs("/mnt/pool00")
    assert (
        pool00.size_bytes == host.statvfs("/tank00").size_bytes + host.statvfs("/tank10").size_bytes
    )
    mountinfo = host.read_text("/proc/self/mountinfo").splitlines()
    assert mountinfo[0] == "24 1 0:59 / / rw,noatime shared:1 - zfs tank00/ROOT rw,xattr,posixacl"
    assert sum(" - fuse.mergerfs mergerfs " in line for line in mountinfo) == 10
    assert len(meta["udev"]) == 240 * 3  # every disk and its two partitions


def test_large_host_rejects_impossible_shapes(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        build_large_host(tmp_path / "a", disks=20, zpools=2)
    with pytest.raises(ValueError):
        build_large_host(tmp_path / "b", disks=12, zpools=1, mergerfs_pools=2)
