"""A big NAS as a recorded host, for the benchmarks: 240 disks, 20 pools, 10 mergerfs.

bench/inventory.py measures how tierdeck's inventory scales, which needs a machine far
larger than the demo NAS and than any we can capture. :func:`build_large_host` writes one
with :class:`~tests.support.recording.HostRecording`: SATA disks behind SAS HBAs,
OpenZFS 2.1.4 raidz2 pools and mergerfs 2.33.5 pools over them, speaking the tool
releases of :mod:`recording_tools`. Every size, serial and scrub time is derived from
the disk or pool index, so the host is the same on every run and its numbers agree
(child datasets share their pool's used space; a mergerfs pool's statvfs is the sum of
its branches').
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tierdeck.backends.disks import SECTOR

from .recording import HostRecording, PartitionSpec, sd_name
from .recording_tools import (
    MERGERFS_MOUNT_OPTIONS,
    MERGERFS_SUPER_OPTIONS,
    mergerfs_xattrs,
    record_zfs_2_1,
    zpool_status_text,
)

_LARGE_MODELS = (
    # (ATA model, firmware, bytes): two common 3.5" NAS disks; sizes are their LBA counts
    ("WDC WD180EDGZ-11B2DA0", "85.00A85", 35156656128 * SECTOR),
    ("ST16000NM001G-2KK103", "SN03", 31251759104 * SECTOR),
)
_MIB = 1024 * 1024
_CREATE_POLICIES = ("epmfs", "mfs", "lfs", "eplus", "pfrd")


def build_large_host(
    folder: str | Path, disks: int = 240, zpools: int = 20, mergerfs_pools: int = 10
) -> Path:
    """A big NAS for the benchmarks: ``disks`` SATA disks behind SAS HBAs (60 per HBA),
    ``zpools`` OpenZFS 2.1.4 pools of one raidz2 group of 12 whole disks each (the first
    also holds the root filesystem), the disks left over as ext4 data disks, and
    ``mergerfs_pools`` mergerfs 2.33.5 pools whose branches are the ZFS pools'
    mountpoints and those data disks, dealt round-robin. Returns the folder."""
    if zpools * 12 > disks:
        raise ValueError(f"{zpools} raidz2 pools of 12 disks need {zpools * 12} disks")
    if not 0 < mergerfs_pools <= zpools + disks - zpools * 12:
        raise ValueError("every mergerfs pool needs at least one branch")
    rec = HostRecording(folder, hostname="bignas", kernel="5.15.0-52-generic", udev=True)
    pools = [_LargePool.plan(i) for i in range(zpools)]
    if pools:
        rec.add_mount(
            "/",
            "zfs",
            "tank00/ROOT",
            "0:59",
            options="rw,noatime",
            super_options="rw,xattr,posixacl",
            usage=(pools[0].avail + _ROOT_USED, pools[0].avail, pools[0].avail),
        )
    branches: list[list[str]] = [[] for _ in range(mergerfs_pools)]
    for pool in pools:
        branches[pool.index % mergerfs_pools].append(pool.mountpoint)
    for index in range(disks):
        _add_large_disk(rec, index, zpools, branches)
    for pool in pools:
        pool.mount(rec)
    record_zfs_2_1(
        rec,
        "\n".join(pool.status() for pool in pools),
        [pool.list_line() for pool in pools],
        [line for pool in pools for line in pool.dataset_lines()],
    )
    for index, pool_branches in enumerate(branches):
        mountpoint = f"/mnt/pool{index:02d}"
        # mergerfs with statfs=base adds up its branches' filesystems.
        usages = [rec.statvfs(branch) for branch in pool_branches]
        totals = [sum(usage[k] for usage in usages) for k in range(3)]
        rec.add_mount(
            mountpoint,
            "fuse.mergerfs",
            "mergerfs",
            f"0:{40 + index}",
            options=MERGERFS_MOUNT_OPTIONS,
            super_options=MERGERFS_SUPER_OPTIONS,
            usage=(totals[0], totals[1], totals[2]),
        )
        options = {
            "category.create": _CREATE_POLICIES[index % len(_CREATE_POLICIES)],
            "minfreespace": str((index % 4 + 1) * 50 * 1024**3),
            "cache.files": "off",
            "dropcacheonclose": "true",
        }
        rec.add_xattrs(
            f"{mountpoint}/.mergerfs",
            mergerfs_xattrs(mountpoint, pool_branches, pid=2000 + index, options=options),
        )
    return rec.write()


_ROOT_USED = 8 * 1024**3


def _large_identity(index: int) -> tuple[str, str, int, str, str]:
    model, firmware, size = _LARGE_MODELS[index % len(_LARGE_MODELS)]
    serial = f"{'ZL' if model.startswith('ST') else '3GJ'}{index:05d}X"
    return model, firmware, size, serial, f"ata-{model.replace(' ', '_')}_{serial}"


def _add_large_disk(rec: HostRecording, index: int, zpools: int, branches: list[list[str]]) -> None:
    name = sd_name(index)
    model, firmware, size, serial, ata_id = _large_identity(index)
    wwn = f"0x5000c500{index:08x}"
    pool_index = index // 12
    if pool_index < zpools:
        pool = f"tank{pool_index:02d}"
        parts = [
            PartitionSpec(
                1,
                size - 10 * _MIB,
                fs_type="zfs_member",
                fs_label=pool,
                part_label="zfs-" + f"{index:016x}",
            ),
            PartitionSpec(9, 8 * _MIB, start_sector=(size - 9 * _MIB) // SECTOR),
        ]
    else:
        parts = [PartitionSpec(1, size - 2 * _MIB, fs_type="ext4", fs_label=f"data{index:03d}")]
    rec.add_disk(
        name,
        size,
        True,
        model=model,
        vendor="ATA",
        serial=serial,
        firmware=firmware,
        wwn=wwn,
        transport="sas",
        hctl=f"{index // 60}:0:{index % 60}:0",
        partitions=parts,
        by_id=[ata_id, f"wwn-{wwn}"],
    )
    if pool_index >= zpools:
        mountpoint = f"/mnt/data{index:03d}"
        used = (index * 37 % 80 + 1) * size // 100
        rec.add_mount(
            mountpoint,
            "ext4",
            f"/dev/{name}1",
            rec.devt(f"{name}1"),
            usage=(size, size - used, size - used - size // 20),
        )
        leftover = index - zpools * 12
        branches[(zpools + leftover) % len(branches)].append(mountpoint)


@dataclass(frozen=True)
class _LargePool:
    index: int
    size: int
    alloc: int
    avail: int

    @classmethod
    def plan(cls, index: int) -> _LargePool:
        members = range(index * 12, index * 12 + 12)
        disk_bytes = min(_large_identity(i)[2] for i in members) - 10 * _MIB
        # raidz2 of 12: zpool list shows raw space; datasets see 10/12 of it, less slop.
        size = disk_bytes // (16 * 1024 * _MIB) * (16 * 1024 * _MIB) * 12
        alloc = size * ((index * 17) % 85 + 5) // 100
        avail = size * 10 // 12 - size // 32 - alloc * 10 // 12
        return cls(index, size, alloc, avail)

    @property
    def name(self) -> str:
        return f"tank{self.index:02d}"

    @property
    def mountpoint(self) -> str:
        return f"/{self.name}"

    @property
    def used(self) -> int:
        return self.alloc * 10 // 12

    def status(self) -> str:
        members = range(self.index * 12, self.index * 12 + 12)
        # Half the pools were created with /dev/sdX names, half with by-id names.
        leaves = [sd_name(i) if self.index % 2 == 0 else _large_identity(i)[4] for i in members]
        i = self.index
        scan = (
            "none requested"
            if i % 5 == 4
            else f"scrub repaired 0B in {i + 3:02d}:{i * 7 % 60:02d}:{i * 13 % 60:02d} "
            f"with 0 errors on Sun Nov 13 {i % 24:02d}:{i * 3 % 60:02d}:00 2022"
        )
        return zpool_status_text(self.name, [("raidz2-0", leaves)], scan=scan)

    def list_line(self) -> str:
        return (
            f"{self.name}\t{self.size}\t{self.alloc}\t{self.size - self.alloc}"
            f"\t{self.index * 3 % 40}\t{self.alloc * 100 // self.size}\t1.00\tONLINE"
        )

    def _children(self) -> list[tuple[str, int]]:
        return [("media", self.used * 70 // 100), ("backup", self.used * 25 // 100)]

    def dataset_lines(self) -> list[str]:
        lines = [f"{self.name}\tfilesystem\t{self.used}\t{self.avail}\t196608\t{self.mountpoint}"]
        if self.index == 0:
            lines.append(
                f"{self.name}/ROOT\tfilesystem\t{_ROOT_USED}\t{self.avail}\t{_ROOT_USED}\t/"
            )
        for child, used in self._children():
            lines.append(
                f"{self.name}/{child}\tfilesystem\t{used}\t{self.avail}\t{used}"
                f"\t{self.mountpoint}/{child}"
            )
        vol = self.used * 5 // 100
        lines.append(f"{self.name}/vm-disk0\tvolume\t{vol}\t{self.avail + vol}\t{vol}\t-")
        return lines

    def mount(self, rec: HostRecording) -> None:
        minor = 60 + self.index * 4
        rec.add_mount(
            self.mountpoint,
            "zfs",
            self.name,
            f"0:{minor}",
            options="rw,noatime",
            super_options="rw,xattr,noacl",
            usage=(self.avail + 196608, self.avail, self.avail),
        )
        for offset, (child, used) in enumerate(self._children(), start=1):
            rec.add_mount(
                f"{self.mountpoint}/{child}",
                "zfs",
                f"{self.name}/{child}",
                f"0:{minor + offset}",
                options="rw,noatime",
                super_options="rw,xattr,noacl",
                usage=(self.avail + used, self.avail, self.avail),
            )


# ---------------------------------------------------------------- SMART, for bench/health.py

_SMART_FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "smart"
# real smartctl documents of the two models' families (tests/fixtures/smart/README.md)
_SMART_TEMPLATES = {
    "WDC WD180EDGZ-11B2DA0": "ata-wd140edfz-healthy.json",
    "ST16000NM001G-2KK103": "ata-st16000nm001g-healthy.json",
}


def large_host_asleep(disks: int = 240) -> range:
    """The disks in standby: the last five pools' (a quarter of the NAS), spun down."""
    return range(disks * 3 // 4, disks)


def write_smartctl_answers(folder: str | Path, disks: int = 240) -> Path:
    """What ``smartctl --json`` answers on the big NAS, one file per call, for the
    smartctl shim of bench/health.py: ``scan.json`` (``--scan-open``), ``disks/sdX.json``
    (each disk's ``-a``: a real document of its model's family with its own model,
    serial, device and figures derived from its index: hours, temperature, a few worn
    disks) and ``standby.json`` with ``asleep`` (the names of the disks in standby)."""
    import json

    out = Path(folder)
    (out / "disks").mkdir(parents=True, exist_ok=True)
    templates = {
        m: json.loads((_SMART_FIXTURES / f).read_text()) for m, f in _SMART_TEMPLATES.items()
    }
    devices = []
    for index in range(disks):
        name = sd_name(index)
        model, _firmware, size, serial, _ = _large_identity(index)
        doc = json.loads(json.dumps(templates[model]))
        doc["device"] = {"name": f"/dev/{name}", "info_name": f"/dev/{name} [SAT]",
                         "type": "sat", "protocol": "ATA"}  # fmt: skip
        doc["smartctl"]["argv"] = ["smartctl", "--json", "-n", "standby", "-a", "-d", "sat",
                                   f"/dev/{name}"]  # fmt: skip
        doc["model_name"], doc["serial_number"] = model, serial
        doc["user_capacity"] = {"blocks": size // 512, "bytes": size}
        doc["power_on_time"] = {"hours": 8000 + 97 * index}
        doc["temperature"] = {"current": 30 + index % 17}
        for row in doc["ata_smart_attributes"]["table"]:
            if row["id"] == 197 and index % 40 == 7:  # a few disks with pending sectors
                row["raw"] = {"value": index % 5 + 1, "string": str(index % 5 + 1)}
        (out / "disks" / f"{name}.json").write_text(json.dumps(doc, indent=2))
        devices.append({"name": f"/dev/{name}", "info_name": f"/dev/{name} [SAT]",
                        "type": "sat", "protocol": "ATA"})  # fmt: skip
    scan = json.loads((_SMART_FIXTURES / "vm-scan-open.json").read_text())
    scan["devices"] = devices
    (out / "scan.json").write_text(json.dumps(scan, indent=2))
    standby = (_SMART_FIXTURES / "standby-sda-transcribed.json").read_text()
    (out / "standby.json").write_text(standby)
    (out / "asleep").write_text("".join(f"{sd_name(i)}\n" for i in large_host_asleep(disks)))
    return out
