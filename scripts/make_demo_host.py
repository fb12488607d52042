"""Write app/machine/demo_host/: the NAS of seed 000 as a RecordedHost folder.

    .venv/bin/python scripts/make_demo_host.py                    # regenerate the demo
    .venv/bin/python scripts/make_demo_host.py --capture-mergerfs # re-capture (root)

The seed (shared/seeds/000_*.txt) gives the machine: `lsscsi`, `df -h`, `zpool status`,
the two mergerfs fstab lines, ZFS 2.1.4 on kernel 5.15.0-52-generic, btrfs's sizes of
sdb and nvme0n1. The `lsscsi` and `zpool status` outputs are recorded verbatim; every
other file is derived so that tierdeck shows exactly what the seed shows (the df -h
rows are checked below against the seed, number for number). mergerfs's attributes are
the real ones of mergerfs 2.33.5 mounted here with the seed's options
(``--capture-mergerfs``). app/machine/demo_host/SOURCES.md lists what comes from where.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The builders are test/dev support (tests/support), not installed: import them from here.
sys.path.insert(0, str(ROOT))

from tests.support.recording import HostRecording, PartitionSpec  # noqa: E402
from tests.support.recording_tools import record_zfs_2_1  # noqa: E402
from tests.support.smart_recording import adapted_document  # noqa: E402

DEMO = ROOT / "app" / "machine" / "demo_host"
CAPTURED = DEMO / "captured"
SEED_GLOB = "000_*.txt"
KIB, MIB, GIB, TIB = 1024, 1024**2, 1024**3, 1024**4

# The seed's fstab options, verbatim (the branch glob /mnt/disk* is expanded by mergerfs).
CACHED_OPTIONS = (
    "nonempty,allow_other,use_ino,cache.files=off,category.create=lfs,moveonenospc=true,"
    "dropcacheonclose=true,minfreespace=4G,fsname=mergerfs"
)
SLOW_OPTIONS = (
    "defaults,nonempty,allow_other,use_ino,category.create=eplus,cache.files=off,"
    "moveonenospc=true,dropcacheonclose=true,minfreespace=300G,fsname=mergerfs"
)


# --------------------------------------------------------------------------- the seed


def seed_text() -> str:
    for folder in (ROOT.parent / "shared" / "seeds", Path("/work/shared/seeds")):
        found = sorted(folder.glob(SEED_GLOB))
        if found:
            return found[0].read_text(encoding="utf-8")
    raise SystemExit("seed 000 not found (expected shared/seeds/ beside the repository)")


def seed_block(text: str, command: str) -> str:
    """The output printed after ``root@nas:/home/gfm# <command>``: its lines up to the
    next prompt or code fence, without the blank line the notes leave before the fence."""
    start = text.index(f"root@nas:/home/gfm# {command}\n") + len(f"root@nas:/home/gfm# {command}\n")
    lines: list[str] = []
    for line in text[start:].splitlines():
        if line.startswith(("root@nas:", "```")):
            break
        lines.append(line)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines) + "\n"


def df_rows(text: str) -> list[list[str]]:
    return [line.split() for line in seed_block(text, "df -h").splitlines()[1:]]


# ------------------------------------------------------------------------- df -h rules


def df_h(n: int) -> str:
    """GNU df -h: powers of 1024, rounded up, one decimal below 10."""
    if n < KIB:
        return str(n)
    exp = 1
    while n >= 1024 ** (exp + 1) and exp < 6:
        exp += 1
    unit = "KMGTPE"[exp - 1]
    tenths = math.ceil(n * 10 / 1024**exp)
    if tenths < 100:
        return f"{tenths / 10:.1f}{unit}"
    whole = math.ceil(n / 1024**exp)
    if whole >= 1024:
        return f"1.0{'KMGTPE'[exp]}"
    return f"{whole}{unit}"


def df_pct(used: int, avail: int) -> str:
    total = used + avail
    return f"{math.ceil(used * 100 / total)}%" if total else "-"


def _align(n: float) -> int:
    return int(n) // 4096 * 4096


# --------------------------------------------------------------------- the machine

# mountpoint -> (size, used, avail) in bytes, chosen so that df -h prints the seed's row.
USAGE: dict[str, tuple[int, int, int]] = {
    "/dev": (1951240 * KIB, 0, 1951240 * KIB),
    "/run": (398848 * KIB, 2816 * KIB, 396032 * KIB),
    "/": (_align(59.5 * GIB), _align(9.75 * GIB), _align(47.2 * GIB)),
    "/dev/shm": (1996820 * KIB, 0, 1996820 * KIB),
    "/run/lock": (5120 * KIB, 0, 5120 * KIB),
    "/sys/fs/cgroup": (1996820 * KIB, 0, 1996820 * KIB),
    "/boot": (_align(1.95 * GIB), _align(106.5 * MIB), _align(1.69 * GIB)),
    "/boot/efi": (_align(1.05 * GIB), _align(5.25 * MIB), _align(1.05 * GIB) - _align(5.25 * MIB)),
    "/mnt/disk2": (
        _align(16.35 * TIB),
        _align(50.4 * GIB),
        _align(16.35 * TIB) - _align(50.4 * GIB),
    ),
    "/cache": (_align(230.56 * GIB) + 1048064, 1048064, _align(230.56 * GIB)),
    "/mnt/disk1": (_align(7.27 * TIB), _align(70.3 * GIB), _align(7.27 * TIB) - _align(70.3 * GIB)),
    "/mnt/parity1": (
        _align(16.35 * TIB),
        _align(116.5 * GIB),
        _align(16.35 * TIB) - _align(116.5 * GIB),
    ),
    "/run/user/1000": (399360 * KIB, 0, 399360 * KIB),
}
SNAPS = {  # loop -> (snap mountpoint, snap file, bytes): squashfs, always 100% full
    "loop0": ("/snap/core20/1623", "core20_1623.snap", 66355200),
    "loop1": ("/snap/core20/1634", "core20_1634.snap", 66363392),
    "loop2": ("/snap/snapd/17336", "snapd_17336.snap", 50298880),
    "loop3": ("/snap/snapd/16292", "snapd_16292.snap", 49233920),
    "loop4": ("/snap/lxd/22753", "lxd_22753.snap", 71118848),
}
for _loop, (_mp, _file, _size) in SNAPS.items():
    USAGE[_mp] = (_size, _size, 0)
USAGE["/mnt/snapraid-content/disk2"] = USAGE["/mnt/disk2"]
USAGE["/mnt/snapraid-content/disk1"] = USAGE["/mnt/disk1"]
USAGE["/mnt/cached"] = USAGE["/cache"]
# mergerfs (statfs=base) adds up the filesystems of its branches.
USAGE["/mnt/slow-storage"] = tuple(  # type: ignore[assignment]
    a + b for a, b in zip(USAGE["/mnt/disk1"], USAGE["/mnt/disk2"], strict=True)
)

# Ubuntu 20.04's mountinfo shape; mount ids in the order df listed the mounts.
MOUNTINFO = "".join(
    line + "\n"
    for line in (
        "22 27 0:21 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw",
        "23 27 0:22 / /proc rw,nosuid,nodev,noexec,relatime shared:13 - proc proc rw",
        "24 27 0:5 / /dev rw,nosuid,noexec,relatime shared:2 - "
        "devtmpfs udev rw,size=1951240k,nr_inodes=487810,mode=755",
        "25 24 0:23 / /dev/pts rw,nosuid,noexec,relatime shared:3 - "
        "devpts devpts rw,gid=5,mode=620,ptmxmode=000",
        "26 27 0:24 / /run rw,nosuid,nodev,noexec,relatime shared:5 - "
        "tmpfs tmpfs rw,size=398848k,mode=755",
        "27 1 253:0 / / rw,relatime shared:1 - ext4 /dev/mapper/ubuntu--vg-ubuntu--lv rw",
        "28 24 0:25 / /dev/shm rw,nosuid,nodev shared:4 - tmpfs tmpfs rw",
        "29 26 0:26 / /run/lock rw,nosuid,nodev,noexec,relatime shared:6 - "
        "tmpfs tmpfs rw,size=5120k",
        "30 22 0:27 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:9 - tmpfs tmpfs ro,mode=755",
        "150 27 0:50 / /mnt/cached {fuse_opts} shared:160 - fuse.mergerfs mergerfs {fuse_super}",
        "151 27 0:51 / /mnt/slow-storage {fuse_opts} shared:162 - "
        "fuse.mergerfs mergerfs {fuse_super}",
        "152 27 8:2 / /boot rw,relatime shared:164 - ext4 /dev/sda2 rw",
        "153 152 8:1 / /boot/efi rw,relatime shared:166 - "
        "vfat /dev/sda1 "
        "rw,fmask=0022,dmask=0022,codepage=437,"
        "iocharset=iso8859-1,shortname=mixed,errors=remount-ro",
        "154 27 8:32 / /mnt/disk2 rw,relatime shared:168 - ext4 /dev/sdc rw",
        "155 27 8:32 / /mnt/snapraid-content/disk2 rw,relatime shared:170 - ext4 /dev/sdc rw",
        "156 27 0:48 / /cache rw,relatime shared:172 - zfs cache rw,xattr,noacl",
        "157 27 8:64 / /mnt/snapraid-content/disk1 rw,relatime shared:174 - ext4 /dev/sde rw",
        "158 27 8:64 / /mnt/disk1 rw,relatime shared:176 - ext4 /dev/sde rw",
        "159 27 7:1 / /snap/core20/1634 ro,nodev,relatime shared:178 - squashfs /dev/loop1 ro",
        "160 27 7:3 / /snap/snapd/16292 ro,nodev,relatime shared:180 - squashfs /dev/loop3 ro",
        "161 27 7:2 / /snap/snapd/17336 ro,nodev,relatime shared:182 - squashfs /dev/loop2 ro",
        "162 27 7:0 / /snap/core20/1623 ro,nodev,relatime shared:184 - squashfs /dev/loop0 ro",
        "163 27 7:4 / /snap/lxd/22753 ro,nodev,relatime shared:186 - squashfs /dev/loop4 ro",
        "164 27 8:49 / /mnt/parity1 rw,relatime shared:188 - ext4 /dev/sdd1 rw",
        "165 26 0:53 / /run/user/1000 rw,nosuid,nodev,relatime shared:190 - "
        "tmpfs tmpfs rw,size=399360k,mode=700,uid=1000,gid=1000",
    )
)

# Pool "cache" (mirror of sdb + nvme0n1, the smaller side 238.47 GiB): zpool list raw
# size, allocation, and the root dataset; avail and refer are the /cache statvfs above.
POOL_SIZE = 238 * GIB
POOL_ALLOC = 1347584
ZFS_USED = 1216512


def _uuid(name: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"tierdeck-demo/{name}"))


def build(seed: str) -> None:
    rec = HostRecording(DEMO, hostname="nas", kernel="5.15.0-52-generic", is_root=True)
    qemu = {"vendor": "QEMU", "firmware": "2.5+", "transport": "scsi"}
    wd18 = {"model": "WDC WD180EDGZ-11B2DA0", "vendor": "ATA", "firmware": "85.00A85"}
    wd18.update(transport="sas")
    rec.add_disk(
        "sda",
        128 * GIB,
        True,
        model="QEMU HARDDISK",
        serial="drive-scsi0-0-0-0",
        hctl="1:0:0:0",
        by_id=["scsi-0QEMU_QEMU_HARDDISK_drive-scsi0-0-0-0"],
        partitions=[
            PartitionSpec(1, 1127 * MIB, 2048, "vfat", None, "B5F1-2C3D"),
            PartitionSpec(2, 2 * GIB, 2310144, "ext4", None, _uuid("sda2")),
            PartitionSpec(
                3,
                128 * GIB - 3176 * MIB - MIB,
                6504448,
                "LVM2_member",
                None,
                "Qc3kZr-8vJd-2f1x-Yw4n-Ht7u-Lp0a-Mn5bS1",
                holders=("dm-0",),
            ),
        ],
        **qemu,
    )
    rec.add_dm("dm-0", "ubuntu--vg-ubuntu--lv", 61 * GIB, ["sda3"])
    # sdb: 238.49 GiB as mkfs.btrfs reported it; ZFS whole-disk layout (part 1 + 9).
    sdb_bytes = 500148224 * 512
    nvme_bytes = 500118192 * 512  # 238.47 GiB, ditto
    pool_guid = "5935584402389574401"
    for name, size in (("sdb", sdb_bytes), ("nvme0n1", nvme_bytes)):
        parts = [
            PartitionSpec(
                1,
                size - 10 * MIB,
                2048,
                "zfs_member",
                "cache",
                pool_guid,
                part_label="zfs-9b1c3f7d2a4e6b80",
            ),
            PartitionSpec(9, 8 * MIB, (size - 9 * MIB) // 512),
        ]
        if name == "sdb":
            rec.add_disk(
                "sdb",
                size,
                True,
                model="QEMU HARDDISK",
                serial="drive-scsi0-0-0-1",
                hctl="1:0:0:1",
                by_id=["scsi-0QEMU_QEMU_HARDDISK_drive-scsi0-0-0-1"],
                partitions=parts,
                **qemu,
            )
        else:
            rec.add_disk(
                "nvme0n1",
                size,
                False,
                model="Samsung SSD 950 PRO 256GB",
                serial="S2GLNXAGB01234T",
                firmware="2B0QBXX7",
                transport="nvme",
                wwn="eui.0025385b71b01234",
                partitions=parts,
                by_id=[
                    "nvme-Samsung_SSD_950_PRO_256GB_S2GLNXAGB01234T",
                    "nvme-eui.0025385b71b01234",
                ],
            )
    wd18_bytes = 35156656128 * 512
    rec.add_disk(
        "sdc",
        wd18_bytes,
        True,
        serial="3GJ0V8RE",
        wwn="0x5000cca2b0c1d2e3",
        hctl="0:0:0:0",
        fs_type="ext4",
        fs_label="disk2",
        fs_uuid=_uuid("sdc"),
        by_id=["ata-WDC_WD180EDGZ-11B2DA0_3GJ0V8RE", "wwn-0x5000cca2b0c1d2e3"],
        **wd18,
    )
    rec.add_disk(
        "sdd",
        wd18_bytes,
        True,
        serial="3GJ1PZKL",
        wwn="0x5000cca2b0c1f405",
        hctl="0:0:1:0",
        partitions=[PartitionSpec(1, wd18_bytes - 2 * MIB, 2048, "ext4", "parity1", _uuid("sdd1"))],
        by_id=["ata-WDC_WD180EDGZ-11B2DA0_3GJ1PZKL", "wwn-0x5000cca2b0c1f405"],
        **wd18,
    )
    rec.add_disk(
        "sde",
        15628053168 * 512,
        True,
        model="WDC WD80EFZX-68UW8N0",
        vendor="ATA",
        firmware="83.H0A83",
        serial="R6GU4K8Y",
        wwn="0x50014ee2bb3c4d5e",
        transport="sas",
        hctl="0:0:2:0",
        fs_type="ext4",
        fs_label="disk1",
        fs_uuid=_uuid("sde"),
        by_id=["ata-WDC_WD80EFZX-68UW8N0_R6GU4K8Y", "wwn-0x50014ee2bb3c4d5e"],
    )
    rec.add_disk(
        "sr0",
        0,
        True,
        model="QEMU DVD-ROM",
        vendor="QEMU",
        firmware="2.5+",
        serial="QM00003",
        transport="ata",
        hctl="3:0:0:0",
        removable=True,
        by_id=["ata-QEMU_DVD-ROM_QM00003"],
    )
    for loop, (_mp, snap, size) in SNAPS.items():
        rec.add_disk(
            loop,
            size,
            False,
            transport="loop",
            fs_type="squashfs",
            read_only=True,
            backing_file=f"/var/lib/snapd/snaps/{snap}",
        )
    for loop in ("loop5", "loop6", "loop7"):  # created at boot, never attached
        rec.add_disk(loop, 0, False, transport="loop")
    # udev names QEMU's SCSI disks after the VPD page 0x83 identifier, with a 0 prefix.
    for name in ("sda", "sdb"):
        serial = "drive-scsi0-0-0-0" if name == "sda" else "drive-scsi0-0-0-1"
        for device in (name, *(f"{name}{n}" for n in (1, 2, 3, 9))):
            if device in {"sda", "sda1", "sda2", "sda3", "sdb", "sdb1", "sdb9"}:
                rec.set_udev(device, {"ID_SERIAL": f"0QEMU_QEMU_HARDDISK_{serial}"})

    fuse_opts, fuse_super = captured_mergerfs_mount_options()
    rec.set_mountinfo(MOUNTINFO.format(fuse_opts=fuse_opts, fuse_super=fuse_super))
    for mountpoint, (size, used, avail) in USAGE.items():
        rec.add_statvfs(mountpoint, size, size - used, avail)
    for mountpoint in ("/mnt/cached", "/mnt/slow-storage"):
        rec.add_xattrs(f"{mountpoint}/.mergerfs", captured_xattrs(mountpoint))

    status = seed_block(seed, "zpool status")
    avail = USAGE["/cache"][2]
    record_zfs_2_1(
        rec,
        status,
        [f"cache\t{POOL_SIZE}\t{POOL_ALLOC}\t{POOL_SIZE - POOL_ALLOC}\t0\t0\t1.00\tONLINE"],
        [f"cache\tfilesystem\t{ZFS_USED}\t{avail}\t{USAGE['/cache'][1]}\t/cache"],
    )
    rec.add_command(["lsscsi"], seed_block(seed, "lsscsi"))
    record_smart(rec, wd18_bytes)
    rec.set_file(
        "/proc/mdstat",
        "Personalities : [linear] [multipath] [raid0] [raid1] [raid6] [raid5] [raid4] "
        "[raid10] \nunused devices: <none>\n",
    )
    rec.write()
    write_health_readings()


# ---------------------------------------------------------------------- SMART

# Each demo disk answers with a real document of tests/fixtures/smart/ (README there
# names their origins), told of the demo's disk: the WD whites answer as the WD140EDFZ
# recorded by scrutiny, the parity disk sleeps between syncs (snapraid's usual setup),
# the cache NVMe answers as scrutiny's Samsung 970 EVO with its 7 media errors (so the
# demo shows a warning), and QEMU's SCSI disks give the answer recorded on a VM's disk.
SMART_DISKS = {
    # name: (fixture, -d type from --scan-open or None, model, serial, bytes)
    "sdc": ("ata-wd140edfz-healthy.json", "sat", "WDC WD180EDGZ-11B2DA0", "3GJ0V8RE", None),
    "sdd": ("standby-sda-transcribed.json", "sat", None, None, None),
    "sde": (
        "ata-wd140edfz-healthy.json",
        "sat",
        "WDC WD80EFZX-68UW8N0",
        "R6GU4K8Y",
        15628053168 * 512,
    ),  # fmt: skip
    "nvme0n1": (
        "nvme-970evo-media-errors.json",
        "nvme",
        "Samsung SSD 950 PRO 256GB",
        "S2GLNXAGB01234T",
        500118192 * 512,
    ),  # fmt: skip
    "sda": ("vm-virtio-vda.json", None, None, None, None),
    "sdb": ("vm-virtio-vda.json", None, None, None, None),
}


def record_smart(rec: HostRecording, wd18_bytes: int) -> None:
    from tierdeck.backends.smart.collect import device_argv
    from tierdeck.backends.smart.scan import SmartTarget

    scanned = []
    for name, (fixture, kind, model, serial, size) in SMART_DISKS.items():
        device = f"/dev/{name}"
        if name in ("sdc", "sdd"):
            size = wd18_bytes
        text, status = adapted_document(fixture, device, model=model, serial=serial,
                                        size_bytes=size)  # fmt: skip
        rec.add_command(device_argv(SmartTarget(name, device, kind)), text, returncode=status)
        if kind is not None:
            protocol = "NVMe" if kind == "nvme" else "ATA"
            scanned.append({"name": device, "info_name": device, "type": kind,
                            "protocol": protocol})  # fmt: skip
    scan = json.loads((ROOT / "tests/fixtures/smart/vm-scan-open.json").read_text())
    scan["devices"] = scanned
    rec.add_command(["smartctl", "--json", "--scan-open"], json.dumps(scan, indent=2) + "\n")


def _temperature_range(fixture: str) -> list[int] | None:
    """The lifetime minimum and maximum an ATA drive gives with its temperature
    (attribute 194's "32 (Min/Max 24/38)"); None where it gives none."""
    doc = json.loads((ROOT / "tests/fixtures/smart" / fixture).read_text())
    for attr in (doc.get("ata_smart_attributes") or {}).get("table", []):
        match = re.search(r"Min/Max (\d+)/(\d+)", (attr.get("raw") or {}).get("string", ""))
        if attr.get("id") == 194 and match:
            return [int(match[1]), int(match[2])]
    return None


def write_health_readings() -> None:
    """The demo disks' figures as the demo host answers them, read on the seed's night:
    the last of the kept readings the demo history works back from
    (app/history/demo_readings.py)."""
    from dataclasses import asdict

    from tierdeck.app.health.collect import collect
    from tierdeck.app.history.demo import SEED_NIGHT
    from tierdeck.app.history.demo_readings import READINGS_FILE
    from tierdeck.app.history.health_readings import readings_of
    from tierdeck.backends.host import RecordedHost

    report, inv = collect(RecordedHost(DEMO), now=SEED_NIGHT)
    disks = []
    for reading in readings_of(report, {d.name: d.wwn for d in inv.disks if d.wwn}):
        if reading.temperature_c is None and reading.percentage_used is None:
            continue  # asleep or unreadable when read: nothing to draw
        disk = asdict(reading)
        del disk["t"]
        disk["temperature_range"] = _temperature_range(SMART_DISKS[reading.name][0])
        disks.append(disk)
    data = {"end": SEED_NIGHT, "disks": disks}
    READINGS_FILE.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


# ---------------------------------------------------------------------- mergerfs capture


def _getfattr_values(text: str) -> tuple[str, dict[str, str]]:
    """(the dumped file, {xattr: value}) from `getfattr -d -m -` text."""
    path = ""
    values: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("# file: "):
            path = line[len("# file: ") :]
        elif "=" in line:
            key, _, raw = line.partition("=")
            values[key] = raw[1:-1] if raw.startswith('"') else raw
    return path, values


def captured_xattrs(mountpoint: str) -> dict[str, str]:
    """The captured dump of a pool, its temporary prefix taken off every path."""
    name = mountpoint.rsplit("/", 1)[-1]
    path, values = _getfattr_values((CAPTURED / f"mergerfs-{name}.getfattr.txt").read_text())
    prefix = path[: -len(f"{mountpoint}/.mergerfs")]
    return {key: value.replace(prefix, "") for key, value in values.items()}


def captured_mergerfs_mount_options() -> tuple[str, str]:
    line = (CAPTURED / "mergerfs.mountinfo.txt").read_text().splitlines()[0]
    before, _, after = line.partition(" - ")
    return before.split()[5], after.split()[2]


def capture_mergerfs() -> None:
    """Mount mergerfs 2.33 with the seed's options over temporary dirs laid out like the
    NAS (cache/, mnt/disk1, mnt/disk2) and keep `getfattr` and mountinfo verbatim."""
    CAPTURED.mkdir(parents=True, exist_ok=True)
    base = Path(tempfile.mkdtemp(prefix="tierdeck-mergerfs-"))
    mounted: list[Path] = []
    try:
        for sub in ("cache", "mnt/disk1", "mnt/disk2", "mnt/cached", "mnt/slow-storage"):
            (base / sub).mkdir(parents=True)
        for options, branches, target in (
            (CACHED_OPTIONS, f"{base}/cache", base / "mnt/cached"),
            (SLOW_OPTIONS, f"{base}/mnt/disk*", base / "mnt/slow-storage"),
        ):
            subprocess.run(["mergerfs", "-o", options, branches, str(target)], check=True)
            mounted.append(target)
            dump = subprocess.run(
                ["getfattr", "-d", "-m", "-", "--absolute-names", f"{target}/.mergerfs"],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            (CAPTURED / f"mergerfs-{target.name}.getfattr.txt").write_text(dump)
        lines = [
            line
            for line in Path("/proc/self/mountinfo").read_text().splitlines()
            if str(base) in line
        ]
        (CAPTURED / "mergerfs.mountinfo.txt").write_text("\n".join(lines) + "\n")
        version = subprocess.run(["mergerfs", "--version"], capture_output=True, text=True)
        (CAPTURED / "mergerfs.version.txt").write_text(version.stdout + version.stderr)
    finally:
        for target in reversed(mounted):
            subprocess.run(["umount", str(target)], check=False)
        shutil.rmtree(base, ignore_errors=True)


# ------------------------------------------------------------------------------ checks


def check_against_seed(seed: str) -> None:
    """Every df -h row of the seed must come out of the recorded statvfs unchanged."""
    for row in df_rows(seed):
        mountpoint = row[5]
        size, used, avail = USAGE[mountpoint]
        got = [df_h(size), df_h(used), df_h(avail), df_pct(used, avail)]
        if got != row[1:5]:
            raise SystemExit(f"df -h {mountpoint}: seed {row[1:5]}, recorded {got}")
    mounts = {line.split()[4] for line in MOUNTINFO.splitlines()}
    missing = {row[5] for row in df_rows(seed)} - mounts
    if missing:
        raise SystemExit(f"df rows without a mountinfo line: {sorted(missing)}")


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--capture-mergerfs", action="store_true")
    args = parser.parse_args(argv)
    if args.capture_mergerfs:
        capture_mergerfs()
    seed = seed_text()
    check_against_seed(seed)
    build(seed)
    print(f"wrote {DEMO}")


if __name__ == "__main__":
    main(sys.argv[1:])
