"""Which devices to ask smartctl about, and with which ``-d`` type.

``smartctl --json --scan-open`` lists the devices smartctl can open with the type it
found by opening them (``sat`` for a SATA disk behind libata, ``nvme``, ``scsi``, a
known USB bridge's type, ``megaraid,N`` for each disk behind a MegaRAID controller).
Opening asks for a SCSI INQUIRY, which libata answers from what it already knows of
the disk: no command reaches the medium, so a sleeping disk stays asleep. Reading a
device afterwards with that ``-d`` type and ``-n standby`` then never wakes it: without
a type, smartctl's own detection could (smartctl(8), ``-n``).

Some types are certain before the scan answers (``certain_targets``): smartctl's own
detection makes a SCSI disk whose INQUIRY vendor is ``ATA`` (libata, or a SATA disk
behind a SAS HBA) a ``sat`` device unless it hangs off USB, and an NVMe controller an
``nvme`` one. Those can be read while the scan still runs; the caller keeps such an
answer only when the scan then plans that very call (same device, same type).

Disks the inventory sees but the scan does not list (a virtio disk, a device smartctl
could not open) are still asked, without a type, so that each is reported with
smartctl's own reason instead of silently missing.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ...core.errors import HostError
from ...core.models import Disk
from ..host import Host

# types naming one disk behind a controller: "megaraid,N", "sat+megaraid,N", "cciss,N",
# "areca,N/E", "3ware,N", "aacraid,H,L,ID", "hpt,L/M/N", "sssraid,E,S"
_CONTROLLER_RE = re.compile(r"(?:^|\+)((?:megaraid|cciss|areca|3ware|aacraid|hpt|sssraid),\S+)$")
_NVME_CTRL_RE = re.compile(r"^nvme[0-9]+$")
_NVME_NS_RE = re.compile(r"^nvme[0-9]+n[0-9]+$")
_SD_RE = re.compile(r"^sd[a-z]+$")


@dataclass(frozen=True)
class SmartTarget:
    name: str  # how the disk is called in tierdeck's output ("sda", "nvme0n1")
    device: str  # what smartctl is given ("/dev/sda", "/dev/nvme0", "/dev/bus/0")
    device_type: str | None  # the -d type, None: smartctl detects it
    scan_error: str | None = None  # --scan-open could not open it: why


def parse_scan(text: str) -> list[tuple[str, str | None, str | None]]:
    """(device, type, open error) of each device in ``smartctl --json --scan-open``."""
    try:
        doc: Any = json.loads(text)
    except (ValueError, RecursionError):
        return []
    devices = doc.get("devices") if isinstance(doc, dict) else None
    found = []
    for entry in devices if isinstance(devices, list) else ():
        if not isinstance(entry, dict):
            continue
        name, kind, error = entry.get("name"), entry.get("type"), entry.get("open_error")
        if isinstance(name, str) and name.startswith("/dev/") and len(name) < 256:
            found.append((
                name,
                kind if isinstance(kind, str) and kind else None,
                error if isinstance(error, str) and error else None,
            ))  # fmt: skip
    return found


def _nvme_namespace(host: Host, controller: str) -> str:
    """nvme0 -> nvme0n1, the block device the inventory lists (its first namespace)."""
    try:
        entries = host.listdir(f"/sys/class/nvme/{controller}")
    except (OSError, HostError):
        return controller
    spaces = sorted(e for e in entries if _NVME_NS_RE.match(e) and e.startswith(controller + "n"))
    return spaces[0] if spaces else controller


def target_name(host: Host, device: str, device_type: str | None) -> str:
    base = device.removeprefix("/dev/")
    controller = _CONTROLLER_RE.search(device_type or "")
    if controller:
        return f"{base}:{controller.group(1)}"
    if _NVME_CTRL_RE.match(base):
        return _nvme_namespace(host, base)
    return base


def _read_or_none(host: Host, path: str) -> str | None:
    try:
        return host.read_text(path)
    except (OSError, HostError):
        return None


def certain_targets(host: Host) -> list[SmartTarget]:
    """The devices whose ``-d`` type the scan is sure to give, from sysfs alone (see the
    module's text): each ``sdX`` whose vendor is ``ATA`` and that is not on USB (a USB
    bridge's type depends on the bridge), and each NVMe controller. A read sysfs
    cannot answer leaves the device out: the scan's plan reads it."""
    targets: list[SmartTarget] = []
    try:
        blocks = host.listdir("/sys/block")
    except (OSError, HostError):
        blocks = []
    for name in blocks:
        if not _SD_RE.match(name):
            continue
        vendor = _read_or_none(host, f"/sys/block/{name}/device/vendor")
        if vendor is None or vendor.strip() != "ATA":
            continue
        if "/usb" in host.realpath(f"/sys/block/{name}"):
            continue
        targets.append(SmartTarget(name, f"/dev/{name}", "sat"))
    try:
        controllers = host.listdir("/sys/class/nvme")
    except (OSError, HostError):
        controllers = []
    for controller in controllers:
        if _NVME_CTRL_RE.match(controller):
            targets.append(SmartTarget(_nvme_namespace(host, controller), f"/dev/{controller}",
                                       "nvme"))  # fmt: skip
    return targets


def plan_targets(
    host: Host, scanned: list[tuple[str, str | None, str | None]], disks: tuple[Disk, ...]
) -> list[SmartTarget]:
    """The scan's devices, then the inventory's physical disks it did not list."""
    targets: list[SmartTarget] = []
    seen: set[str] = set()
    for device, kind, error in scanned:
        name = target_name(host, device, kind)
        if name in seen:
            continue
        seen.add(name)
        targets.append(SmartTarget(name, device, kind, error))
    for disk in disks:
        if disk.virtual or disk.kind.value == "optical" or disk.name in seen:
            continue
        if disk.name.startswith(("zram", "ram", "nbd", "md", "dm-", "sr")):
            continue
        seen.add(disk.name)
        targets.append(SmartTarget(disk.name, disk.path, None))
    return targets
