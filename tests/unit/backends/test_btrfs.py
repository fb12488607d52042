"""btrfs from sysfs, on sysfs trees recorded on the dev VM (tests/fixtures/btrfs)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from tierdeck.backends.btrfs import profile_name, read_btrfs
from tierdeck.backends.host import RecordedHost
from tierdeck.backends.mounts import parse_mountinfo
from tierdeck.core.models import BtrfsAllocation, BtrfsDevice, Mount

from ...paths import FIXTURES as ALL_FIXTURES

FIXTURES = ALL_FIXTURES / "btrfs"
RAID1_UUID = "d625d35f-335f-4079-97d6-372eb1c9f92e"
SINGLE_UUID = "61af770f-c4a2-4334-9ad2-4881fe255275"
MIB = 1024**2
LOOP_SIZE = 512 * MIB

# The numbers of `btrfs filesystem df`, recorded next to the trees.
RAID1_ALLOCATIONS = (
    BtrfsAllocation("data", "RAID1", 64 * MIB, 40 * MIB),
    BtrfsAllocation("metadata", "RAID1", 53673984, 192 * 1024),
    BtrfsAllocation("system", "RAID1", 8 * MIB, 16 * 1024),
)


def load(name: str) -> tuple[RecordedHost, tuple[Mount, ...]]:
    host = RecordedHost(FIXTURES / name)
    return host, parse_mountinfo(host.read_text("/proc/self/mountinfo"))


def test_raid1_and_single() -> None:
    host, mounts = load("raid1-and-single")
    filesystems, notes = read_btrfs(host, mounts)
    single, raid1 = filesystems  # sysfs order: sorted by uuid
    assert single.uuid == SINGLE_UUID
    assert single.label is None
    assert single.devices == (BtrfsDevice(1, "/dev/loop2", LOOP_SIZE),)
    assert single.allocations == (
        BtrfsAllocation("data", "single", 8 * MIB, 8 * MIB),
        BtrfsAllocation("metadata", "DUP", 32 * MIB, 128 * 1024),
        BtrfsAllocation("system", "DUP", 8 * MIB, 16 * 1024),
    )
    assert single.mountpoints == ("/srv/tdlab/single",)
    assert single.total_bytes == LOOP_SIZE
    assert (single.profile("data"), single.profile("metadata")) == ("single", "DUP")

    assert raid1.uuid == RAID1_UUID
    assert raid1.label == "tdraid1"
    assert raid1.devices == (
        BtrfsDevice(1, "/dev/loop0", LOOP_SIZE),
        BtrfsDevice(2, "/dev/loop1", LOOP_SIZE),
    )
    assert raid1.allocations == RAID1_ALLOCATIONS
    assert raid1.mountpoints == ("/srv/tdlab/btr", "/srv/tdlab/btr sub")
    assert raid1.total_bytes == 2 * LOOP_SIZE
    assert raid1.profile("data") == "RAID1"
    # Two devices: sysfs cannot say which devid is which, and we say so.
    assert [n.source for n in notes] == [f"btrfs {RAID1_UUID}"]
    assert "may be swapped" in notes[0].message


def test_degraded_raid1_reports_missing_device() -> None:
    host, mounts = load("raid1-degraded")
    (fs,), notes = read_btrfs(host, mounts)
    assert notes == ()  # one present device: its devid is certain
    assert fs.devices == (
        BtrfsDevice(1, "/dev/loop0", LOOP_SIZE),
        BtrfsDevice(2, "<missing disk #2>", None, missing=True),
    )
    assert fs.total_bytes == LOOP_SIZE
    assert fs.mountpoints == ("/srv/tdlab/btr",)
    assert fs.allocations == RAID1_ALLOCATIONS


def test_no_btrfs_module_means_no_filesystems(tmp_path: Path) -> None:
    (tmp_path / "host.json").write_text("{}")
    assert read_btrfs(RecordedHost(tmp_path), ()) == ((), ())


def test_unreadable_device_size_leaves_total_unknown(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "raid1-degraded", tmp_path / "h", symlinks=True)
    (tmp_path / "h/root/sys/devices/virtual/block/loop0/size").write_text("garbage\n")
    (fs,), _ = read_btrfs(RecordedHost(tmp_path / "h"), ())
    assert fs.devices[0] == BtrfsDevice(1, "/dev/loop0", None)
    assert fs.total_bytes is None
    assert fs.mountpoints == ()


def test_kernel_without_devinfo_numbers_devices(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "raid1-and-single", tmp_path / "h", symlinks=True)
    shutil.rmtree(tmp_path / f"h/root/sys/fs/btrfs/{RAID1_UUID}/devinfo")
    _, raid1 = read_btrfs(RecordedHost(tmp_path / "h"), ())[0]
    assert [(d.devid, d.path) for d in raid1.devices] == [(1, "/dev/loop0"), (2, "/dev/loop1")]


def test_profile_name() -> None:
    assert [profile_name(p) for p in ("single", "dup", "raid1c3", "raid10")] == [
        "single",
        "DUP",
        "RAID1C3",
        "RAID10",
    ]


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(
        [
            f"sys/fs/btrfs/{RAID1_UUID}/label",
            f"sys/fs/btrfs/{RAID1_UUID}/devinfo/2/missing",
            f"sys/fs/btrfs/{RAID1_UUID}/allocation/data/raid1/total_bytes",
            f"sys/fs/btrfs/{RAID1_UUID}/allocation/system/raid1/used_bytes",
            "sys/devices/virtual/block/loop0/size",
        ]
    ),
    st.text(max_size=40),
)
def test_garbage_in_sysfs_files_never_raises(path: str, garbage: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "h"
        shutil.copytree(FIXTURES / "raid1-degraded", copy, symlinks=True)
        (copy / "root" / path).write_text(garbage)
        (fs,), _ = read_btrfs(RecordedHost(copy), ())
        assert fs.uuid == RAID1_UUID
