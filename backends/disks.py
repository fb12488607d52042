"""Whole block devices and their partitions: sysfs first, then udev, then lsscsi.

sysfs is always there and needs no privilege for the facts that matter (size, major:minor,
rotational, model), so it is the base. udev adds what the kernel does not expose as plain
files (ATA serials, WWNs, filesystem types and labels, by-id links), but its database is
empty in containers and minimal VMs, so every udev fact is optional. lsscsi is asked only
when a SCSI address could not be read from the sysfs path (NVMe, odd HBAs).

One unreadable disk never hides the others: what could not be read goes to
``Disk.notes`` and the rest is still returned.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from ..core.errors import HostError, ParseError, PermissionDenied, ToolMissing
from ..core.models import Disk, DiskKind, Partition, SourceNote
from .host import Host
from .lsscsi import LsscsiRow, parse_lsscsi

SECTOR = 512  # /sys/block/*/size is always in 512-byte units, whatever the disk's LBA size
# Not disks: md arrays, device-mapper (LVM, LUKS) and ram disks are other layers' business.
_SKIP_PREFIXES = ("md", "dm-", "ram")
_VIRTUAL_PREFIXES = ("loop", "zram", "nbd")
_HCTL_IN_PATH = re.compile(r"/(\d+:\d+:\d+:\d+)/block/[^/]+$")
_UDEV_BUS = {"ata": "sata", "scsi": "scsi", "usb": "usb", "nvme": "nvme", "ieee1394": "firewire"}
NO_UDEV_NOTE = "udev database not available: serials and filesystem labels from sysfs only"


@dataclass
class _Facts:
    """Reads one device's files, collecting what failed instead of raising."""

    host: Host
    notes: list[str] = field(default_factory=list)

    def text(self, path: str) -> str | None:
        try:
            return self.host.read_text(path).strip()
        except FileNotFoundError:
            return None
        except PermissionDenied:
            self.notes.append(f"cannot read {path}: permission denied")
        except (HostError, OSError) as exc:
            self.notes.append(f"cannot read {path}: {exc}")
        return None

    def listdir(self, path: str) -> list[str]:
        try:
            return self.host.listdir(path)
        except FileNotFoundError:
            return []
        except PermissionDenied:
            self.notes.append(f"cannot list {path}: permission denied")
        except (HostError, OSError) as exc:
            self.notes.append(f"cannot list {path}: {exc}")
        return []

    def number(self, path: str) -> int | None:
        value = self.text(path)
        if value is None:
            return None
        try:
            return int(value)
        except ValueError:
            self.notes.append(f"{path}: not a number: {value!r}")
            return None


def read_disks(host: Host) -> tuple[tuple[Disk, ...], tuple[SourceNote, ...]]:
    """Every disk under /sys/block (physical first, then loop/zram/nbd), and source notes.

    Raises nothing for a single bad disk; only the absence of /sys/block itself becomes
    a SourceNote with no disks.
    """
    notes: list[SourceNote] = []
    try:
        names = host.listdir("/sys/block")
    except (HostError, OSError) as exc:
        return (), (SourceNote("disks", f"cannot list /sys/block: {exc}"),)

    by_id_links: dict[str, list[str]] | None = None
    disks: list[Disk] = []
    udev_missing = False
    for name in names:
        if name.startswith(_SKIP_PREFIXES):
            continue
        props = _udev(host, name)
        if props is None:
            if by_id_links is None:
                by_id_links = _by_id_from_dev(host)
            links = tuple(by_id_links.get(name, ()))
        else:
            links = _by_id_from_udev(props)
        disk = _read_disk(host, name, props, links)
        if disk is None:
            continue
        if props is None and disk.serial is None and not disk.virtual:
            udev_missing = True
        disks.append(disk)

    if any(_wants_lsscsi(d) for d in disks):
        rows, note = _lsscsi_rows(host)
        if note is not None:
            notes.append(note)
        disks = [_merge_lsscsi(d, rows.get(d.path)) for d in disks]
    if udev_missing:
        notes.append(SourceNote("udev", NO_UDEV_NOTE))
    disks.sort(key=lambda d: (d.virtual, _natural_key(d.name)))
    return tuple(disks), tuple(notes)


def _read_disk(
    host: Host, name: str, props: dict[str, str] | None, by_id: tuple[str, ...]
) -> Disk | None:
    facts = _Facts(host)
    base = f"/sys/block/{name}"
    sectors = facts.number(f"{base}/size")
    if name.startswith("loop") and sectors == 0:
        return None  # an unattached loop device: nothing behind it
    if sectors is None:
        facts.notes.append(f"size unknown ({base}/size unreadable)")
    udev = props or {}
    major_minor = facts.text(f"{base}/dev") or _udev_dev(udev)
    if not major_minor:
        facts.notes.append("major:minor unknown")
    rotational = facts.text(f"{base}/queue/rotational")
    model = facts.text(f"{base}/device/model")
    udev_model = _spaced(udev.get("ID_MODEL"))
    # libata cuts ATA models to the 16 characters of a SCSI INQUIRY ("WDC WD180EDGZ-11");
    # udev reads the whole name from the drive, so prefer it when it extends sysfs's.
    if udev_model and (not model or (udev_model.startswith(model) and udev_model != model)):
        model = udev_model
    vendor = facts.text(f"{base}/device/vendor")
    if vendor is not None and vendor.startswith("0x"):
        vendor = None  # virtio exposes a numeric PCI vendor id here, not a name
    vendor = vendor or _spaced(udev.get("ID_VENDOR"))
    serial = (
        udev.get("ID_SERIAL_SHORT")
        or facts.text(f"{base}/device/serial")  # NVMe controllers
        or facts.text(f"{base}/serial")  # virtio-blk
    )
    wwn = udev.get("ID_WWN") or facts.text(f"{base}/wwid") or facts.text(f"{base}/device/wwid")
    firmware = (
        facts.text(f"{base}/device/rev")
        or facts.text(f"{base}/device/firmware_rev")
        or udev.get("ID_REVISION")
    )
    sys_path = _resolved(host, base)
    hctl_match = _HCTL_IN_PATH.search(sys_path)
    partitions = _partitions(host, facts, name, props is not None)
    return Disk(
        name=name,
        path=f"/dev/{name}",
        major_minor=major_minor or "",
        kind=_kind(name, rotational),
        size_bytes=(sectors or 0) * SECTOR,
        rotational=None if rotational not in ("0", "1") else rotational == "1",
        model=model or None,
        vendor=vendor or None,
        serial=serial or None,
        wwn=wwn or None,
        firmware=firmware or None,
        transport=_transport(name, sys_path, udev, vendor),
        hctl=hctl_match.group(1) if hctl_match else None,
        by_id=by_id,
        partitions=partitions,
        holders=tuple(facts.listdir(f"{base}/holders")),
        fs_type=udev.get("ID_FS_TYPE") or None,
        fs_label=udev.get("ID_FS_LABEL") or None,
        fs_uuid=udev.get("ID_FS_UUID") or None,
        removable=facts.text(f"{base}/removable") == "1",
        read_only=facts.text(f"{base}/ro") == "1",
        backing_file=facts.text(f"{base}/loop/backing_file") if name.startswith("loop") else None,
        notes=tuple(facts.notes),
    )


def _partitions(host: Host, facts: _Facts, disk: str, use_udev: bool) -> tuple[Partition, ...]:
    base = f"/sys/block/{disk}"
    found: list[Partition] = []
    # Partition directories are named after the disk (sda1, nvme0n1p1, loop0p2); checking
    # only those keeps us from probing the thirty other attribute entries of each disk.
    for entry in facts.listdir(base):
        if entry == disk or not entry.startswith(disk):
            continue
        number_text = facts.text(f"{base}/{entry}/partition")
        if number_text is None:
            continue
        sectors = facts.number(f"{base}/{entry}/size")
        props = _udev(host, entry) if use_udev else None
        udev = props or {}
        found.append(
            Partition(
                name=entry,
                path=f"/dev/{entry}",
                number=int(number_text) if number_text.isdigit() else None,
                size_bytes=(sectors or 0) * SECTOR,
                major_minor=facts.text(f"{base}/{entry}/dev") or _udev_dev(udev) or "",
                fs_type=udev.get("ID_FS_TYPE") or None,
                fs_label=udev.get("ID_FS_LABEL") or None,
                fs_uuid=udev.get("ID_FS_UUID") or None,
                holders=tuple(facts.listdir(f"{base}/{entry}/holders")),
            )
        )
    found.sort(key=lambda p: (p.number is None, p.number or 0, p.name))
    return tuple(found)


def _kind(name: str, rotational: str | None) -> DiskKind:
    if name.startswith("nvme"):
        return DiskKind.NVME
    if name.startswith(_VIRTUAL_PREFIXES):
        return DiskKind.VIRTUAL
    if name.startswith("sr"):
        return DiskKind.OPTICAL
    if rotational == "1":
        return DiskKind.HDD
    if rotational == "0":
        return DiskKind.SSD
    return DiskKind.UNKNOWN


def _transport(name: str, sys_path: str, udev: dict[str, str], vendor: str | None) -> str | None:
    if name.startswith("loop"):
        return "loop"
    bus = udev.get("ID_BUS")
    if bus:
        if bus == "scsi" and "-sas-" in udev.get("ID_PATH", ""):
            return "sas"
        return _UDEV_BUS.get(bus, bus)
    # Without udev, the device's place in the sysfs tree tells the bus it hangs off.
    # USB first: a USB-SATA bridge shows both /usb and /host../target.. in its path.
    if "/usb" in sys_path:
        return "usb"
    if "/ata" in sys_path:
        return "sata"
    if "/nvme" in sys_path:
        return "nvme"
    if "/end_device-" in sys_path:  # a SAS HBA; SATA disks behind it report vendor "ATA"
        return "sata" if vendor == "ATA" else "sas"
    if "/host" in sys_path and "/target" in sys_path:
        return "scsi"
    if "virtio" in sys_path:
        return "virtio"
    if "/mmc" in sys_path:
        return "mmc"
    return None


def _wants_lsscsi(disk: Disk) -> bool:
    return (
        disk.hctl is None
        and disk.kind not in (DiskKind.VIRTUAL,)
        and (disk.name.startswith(("sd", "sr", "st", "nvme")))
    )


def _lsscsi_rows(host: Host) -> tuple[dict[str, LsscsiRow], SourceNote | None]:
    try:
        result = host.run(["lsscsi"])
    except ToolMissing:
        return {}, None  # optional: the HCTL column stays empty
    except HostError as exc:
        return {}, SourceNote("lsscsi", str(exc))
    if not result.ok:
        first = result.stderr.strip().splitlines()[:1]
        return {}, SourceNote("lsscsi", f"exited {result.returncode}: {' '.join(first)}")
    try:
        return parse_lsscsi(result.stdout), None
    except ParseError as exc:
        return {}, SourceNote("lsscsi", str(exc))


def _merge_lsscsi(disk: Disk, row: LsscsiRow | None) -> Disk:
    if row is None or disk.hctl is not None:
        return disk
    return replace(
        disk,
        hctl=row.hctl,
        model=disk.model or row.model,
        vendor=disk.vendor or row.vendor,
        firmware=disk.firmware or row.revision,
    )


def _udev(host: Host, name: str) -> dict[str, str] | None:
    try:
        return host.udev_properties(name)
    except (HostError, OSError):
        return None


def _udev_dev(props: dict[str, str]) -> str | None:
    if "MAJOR" in props and "MINOR" in props:
        return f"{props['MAJOR']}:{props['MINOR']}"
    return None


def _by_id_from_udev(props: dict[str, str]) -> tuple[str, ...]:
    links = props.get("DEVLINKS", "").split()
    return tuple(sorted(link for link in links if link.startswith("/dev/disk/by-id/")))


def _by_id_from_dev(host: Host) -> dict[str, list[str]]:
    """Kernel name -> its /dev/disk/by-id links, read from the links themselves."""
    table: dict[str, list[str]] = {}
    try:
        entries = host.listdir("/dev/disk/by-id")
    except (HostError, OSError):
        return table
    for entry in entries:
        link = f"/dev/disk/by-id/{entry}"
        try:
            target = host.realpath(link)
        except (HostError, OSError):
            continue
        table.setdefault(target.rsplit("/", 1)[-1], []).append(link)
    return table


def _resolved(host: Host, path: str) -> str:
    try:
        return host.realpath(path)
    except (HostError, OSError):
        return path


def _spaced(value: str | None) -> str | None:
    """udev's ID_MODEL/ID_VENDOR replace spaces by underscores; put them back."""
    if not value:
        return None
    return value.replace("_", " ").strip() or None


def _natural_key(name: str) -> tuple[tuple[int, str, int], ...]:
    """sda < sdb < sdz < sdaa (kernel order), nvme0n1 < nvme1n1 < nvme10n1."""
    match = re.fullmatch(r"(sd|vd|hd|xvd)([a-z]+)", name)
    if match:
        return ((0, match.group(1), len(match.group(2))), (0, match.group(2), 0))
    return tuple(
        (1, text, int(digits) if digits else -1)
        for text, digits in re.findall(r"(\D*)(\d*)", name)
        if text or digits
    )
