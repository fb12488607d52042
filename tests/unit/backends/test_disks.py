"""read_disks: a real sysfs/udev capture of the dev VM, the live machine, built hosts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tierdeck.backends.disks import NO_UDEV_NOTE, read_disks
from tierdeck.backends.host import LiveHost, RecordedHost
from tierdeck.core.errors import PermissionDenied
from tierdeck.core.models import Disk, DiskKind, Partition, SourceNote

from tests.support.recording import HostRecording, PartitionSpec

from ...paths import FIXTURES

VM = FIXTURES / "disks" / "vm-virtio-loop"


def _by_name(disks: tuple[Disk, ...]) -> dict[str, Disk]:
    return {d.name: d for d in disks}


def test_recorded_vm_exact_fields() -> None:
    disks, notes = read_disks(RecordedHost(VM))
    assert notes == ()
    assert [d.name for d in disks] == ["vda", "loop0", "zram0"]  # physical first
    vda, loop0, zram0 = disks
    assert vda == Disk(
        name="vda",
        path="/dev/vda",
        major_minor="254:0",
        kind=DiskKind.HDD,  # virtio-blk reports rotational=1
        size_bytes=536870912 * 512,
        rotational=True,
        serial="overlayblk",  # /sys/block/vda/serial: udev failed on this disk here
        transport="virtio",
    )
    assert loop0 == Disk(
        name="loop0",
        path="/dev/loop0",
        major_minor="7:0",
        kind=DiskKind.VIRTUAL,
        size_bytes=400 * 1024 * 1024,
        rotational=True,
        transport="loop",
        backing_file="/tmp/tierdeck-disks-fixture.img",
        partitions=(
            Partition(
                name="loop0p1",
                path="/dev/loop0p1",
                number=1,
                size_bytes=131072 * 512,
                major_minor="259:0",
                fs_type="ext4",
                fs_label="tdfix-ext4",
                fs_uuid="c3acd3bd-c720-4a70-b23b-a34618bba4c6",
            ),
            Partition(
                name="loop0p2",
                path="/dev/loop0p2",
                number=2,
                size_bytes=684032 * 512,
                major_minor="259:1",
                fs_type="xfs",
                fs_label="tdfix-xfs",
                fs_uuid="25993b28-f715-46a7-a282-73cd26bf3a36",
            ),
        ),
    )
    assert zram0.kind is DiskKind.VIRTUAL and zram0.size_bytes == 0  # kept, unlike loops
    assert zram0.major_minor == "253:0" and zram0.transport is None


def test_recorded_vm_without_udev_database(tmp_path: Path) -> None:
    folder = tmp_path / "vm"
    shutil.copytree(VM, folder, symlinks=True)
    meta = json.loads((folder / "host.json").read_text())
    del meta["udev"]
    (folder / "host.json").write_text(json.dumps(meta))
    disks = _by_name(read_disks(RecordedHost(folder))[0])
    # sysfs alone still gives the partitions, but no filesystem labels.
    parts = disks["loop0"].partitions
    assert [(p.name, p.size_bytes, p.fs_type, p.fs_label) for p in parts] == [
        ("loop0p1", 67108864, None, None),
        ("loop0p2", 350224384, None, None),
    ]
    assert disks["vda"].serial == "overlayblk"


def test_live_host_finds_every_block_device() -> None:
    sys_block = Path("/sys/block")
    if not sys_block.is_dir():
        pytest.skip("no sysfs")
    disks = _by_name(read_disks(LiveHost())[0])
    found = 0
    for entry in sorted(sys_block.iterdir()):
        name = entry.name
        size = int((entry / "size").read_text()) * 512
        if name.startswith("loop"):
            continue  # other tests (the lab NAS) attach and detach loops concurrently
        if name.startswith(("md", "dm-", "ram")):
            assert name not in disks
            continue
        found += 1
        assert disks[name].size_bytes == size
        assert disks[name].major_minor == (entry / "dev").read_text().strip()
    assert found >= 1  # this VM has /dev/vda (virtio)


def _built(tmp_path: Path, udev: bool = False) -> HostRecording:
    return HostRecording(tmp_path / "host", udev=udev)


def test_without_udev_serials_missing_note_once_and_by_id_from_dev(tmp_path: Path) -> None:
    rec = _built(tmp_path)
    rec.add_disk("sda", 4000787030016, True, model="WDC WD40EFRX-68N32N0", vendor="ATA",
                 firmware="82.00A82", hctl="2:0:0:0", by_id=["ata-WDC_WD40EFRX-68N32N0_WD-X1"],
                 partitions=[PartitionSpec(1, 4000785956864)])  # fmt: skip
    rec.add_disk("sdb", 4000787030016, True, model="WDC WD40EFRX-68N32N0", vendor="ATA",
                 hctl="3:0:0:0", by_id=["ata-WDC_WD40EFRX-68N32N0_WD-X2"])  # fmt: skip
    disks, notes = read_disks(RecordedHost(rec.write()))
    assert notes == (SourceNote("udev", NO_UDEV_NOTE),)
    sda = disks[0]
    assert sda.by_id == ("/dev/disk/by-id/ata-WDC_WD40EFRX-68N32N0_WD-X1",)
    assert (sda.serial, sda.model, sda.vendor, sda.firmware) == (
        None, "WDC WD40EFRX-68N", "ATA", "0A82",
    )  # fmt: skip
    assert (sda.transport, sda.hctl, sda.kind) == ("sata", "2:0:0:0", DiskKind.HDD)
    assert [(p.name, p.major_minor) for p in sda.partitions] == [("sda1", "8:1")]


def test_udev_gives_serial_full_model_wwn_and_filesystems(tmp_path: Path) -> None:
    uuid = "1e0c6a66-52b1-4a4c-9f0e-5f0e3c7f1a10"
    rec = _built(tmp_path, udev=True)
    rec.add_disk("sda", 4000787030016, True, model="WDC WD40EFRX-68N32N0", vendor="ATA",
                 firmware="82.00A82", serial="WD-WCC7K1", wwn="0x50014ee2b5e6a7f8",
                 transport="sas", hctl="0:0:5:0", by_id=["ata-WDC_WD40EFRX-68N32N0_WD-WCC7K1"],
                 partitions=[PartitionSpec(1, 4000785956864, fs_type="xfs", fs_label="d1",
                                           fs_uuid=uuid)])  # fmt: skip
    disks, notes = read_disks(RecordedHost(rec.write()))
    assert notes == ()
    sda = disks[0]
    assert sda.model == "WDC WD40EFRX-68N32N0"  # udev's whole name beats sysfs's 16 chars
    assert (sda.serial, sda.wwn, sda.transport) == ("WD-WCC7K1", "0x50014ee2b5e6a7f8", "sata")
    assert sda.by_id == ("/dev/disk/by-id/ata-WDC_WD40EFRX-68N32N0_WD-WCC7K1",)
    part = sda.partitions[0]
    assert (part.fs_type, part.fs_label, part.fs_uuid) == ("xfs", "d1", uuid)


@pytest.mark.parametrize(
    ("style", "name", "rotational", "transport", "kind"),
    [
        ("ata", "sda", False, "sata", DiskKind.SSD),
        ("usb", "sdb", True, "usb", DiskKind.HDD),
        ("scsi", "sdc", True, "scsi", DiskKind.HDD),
        ("sas", "sdd", True, "sas", DiskKind.HDD),
        ("nvme", "nvme1n1", False, "nvme", DiskKind.NVME),
        ("virtio", "vda", True, "virtio", DiskKind.HDD),
    ],
)
def test_transport_from_sysfs_path(
    tmp_path: Path, style: str, name: str, rotational: bool, transport: str, kind: DiskKind
) -> None:
    rec = _built(tmp_path)
    rec.add_disk(name, 10**9, rotational, model="M", vendor="SEAGATE", transport=style)
    disk = read_disks(RecordedHost(rec.write()))[0][0]
    assert (disk.transport, disk.kind) == (transport, kind)


def test_skips_arrays_dm_ram_and_empty_loops_sorts_like_the_kernel(tmp_path: Path) -> None:
    rec = _built(tmp_path)
    for name in ("sdaa", "sdb", "sdz", "sda"):
        rec.add_disk(name, 10**9, True, transport="scsi")
    rec.add_dm("dm-0", "vg-lv", 10**9, ["sda"])
    rec.add_disk("loop0", 0, False, transport="loop")
    rec.add_disk("loop1", 4096, False, transport="loop", backing_file="/srv/img")
    rec.add_disk("zram0", 0, False, transport="virtual")
    rec.set_file("/sys/block/md127/size", "0\n")
    rec.set_file("/sys/block/ram0/size", "0\n")
    disks = read_disks(RecordedHost(rec.write()))[0]
    assert [d.name for d in disks] == ["sda", "sdb", "sdz", "sdaa", "loop1", "zram0"]
    assert disks[0].holders == ()
    assert disks[4].backing_file == "/srv/img"


def test_hctl_from_lsscsi_and_its_failures(tmp_path: Path) -> None:
    def host_with(lsscsi: str | None) -> RecordedHost:
        rec = HostRecording(tmp_path / f"h{len(list(tmp_path.iterdir()))}", udev=False)
        rec.add_disk("nvme0n1", 256060514304, False, model="Samsung SSD 950 PRO 256GB",
                     serial="S2GLNX", firmware="2B0QBXX7", transport="nvme")  # fmt: skip
        if lsscsi is not None:
            rec.add_command(["lsscsi"], lsscsi)
        return RecordedHost(rec.write())

    row = "[N:0:1:1]    disk    Samsung SSD 950 PRO 256GB__1               /dev/nvme0n1\n"
    disks, notes = read_disks(host_with(row))
    assert (disks[0].hctl, notes) == ("N:0:1:1", ())
    assert disks[0].serial == "S2GLNX"  # NVMe serials are in sysfs: no udev note
    disks, notes = read_disks(host_with(None))  # lsscsi not installed: quietly no HCTL
    assert (disks[0].hctl, notes) == (None, ())
    disks, notes = read_disks(host_with("lsscsi: garbage\n"))
    assert disks[0].hctl is None
    assert [n.source for n in notes] == ["lsscsi"]


class _Denying(RecordedHost):
    """A host where some files need more privilege than we have."""

    def __init__(self, folder: Path, denied: set[str]) -> None:
        super().__init__(folder)
        self.denied = denied

    def read_text(self, path: str) -> str:
        if path in self.denied:
            raise PermissionDenied(path)
        return super().read_text(path)


def test_unreadable_files_become_notes_never_errors(tmp_path: Path) -> None:
    rec = _built(tmp_path)
    rec.add_disk("sda", 10**9, True, model="GOOD", transport="scsi")
    rec.add_disk("sdb", 2 * 10**9, True, model="SECRET", transport="scsi")
    host = _Denying(rec.write(), {"/sys/block/sdb/device/model", "/sys/block/sdb/size"})
    disks = _by_name(read_disks(host)[0])
    assert disks["sda"].model == "GOOD" and disks["sda"].notes == ()
    sdb = disks["sdb"]
    assert (sdb.model, sdb.size_bytes, sdb.major_minor) == (None, 0, "8:16")
    assert sdb.notes == (
        "cannot read /sys/block/sdb/size: permission denied",
        "size unknown (/sys/block/sdb/size unreadable)",
        "cannot read /sys/block/sdb/device/model: permission denied",
    )


def test_no_sysfs_is_a_note(tmp_path: Path) -> None:
    rec = _built(tmp_path)
    rec.set_file("/proc/version", "Linux\n")
    disks, notes = read_disks(RecordedHost(rec.write()))
    assert disks == ()
    assert [n.source for n in notes] == ["disks"]
