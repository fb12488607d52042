"""The udev properties a recorded host gives its disks and partitions.

Backends read udev's database (``udevadm info --query=property``) for model, serial,
WWN and filesystem labels, so a recorded host needs the keys udevd would have set:
those of ``60-persistent-storage.rules`` (ID_BUS, ID_SERIAL, ID_PATH, DEVLINKS ...) and
blkid's (ID_FS_*, ID_PART_ENTRY_*), spelled as ``udevadm`` lists them on the dev VM
(tests/fixtures/disks/*/udevadm/). :class:`~tests.support.recording.HostRecording`
calls these for every disk it adds; they are kept apart because they follow udev's rules,
not sysfs's layout.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from tierdeck.backends.disks import SECTOR

if TYPE_CHECKING:  # recording.py imports this module: the spec is needed for types only
    from .recording import PartitionSpec


def _udev_bus(style: str, vendor: str | None) -> str | None:
    if style == "ata" or (style == "sas" and vendor == "ATA"):
        return "ata"
    return {"scsi": "scsi", "sas": "scsi", "usb": "usb", "nvme": "nvme"}.get(style)


def _id_path(style: str, hctl: str | None, block_dir: str) -> str | None:
    pci = re.search(r"/(0000:[0-9a-f]{2}:[0-9a-f]{2}\.\d)/", block_dir)
    if pci is None:
        return None
    base = f"pci-{pci.group(1)}"
    if hctl is None:
        return base + ("-nvme-1" if style == "nvme" else "")
    host, _channel, target, lun = hctl.split(":")
    if style == "ata":
        return f"{base}-ata-{int(host) + 1}"
    if style == "sas":
        return f"{base}-sas-phy{target}-lun-{lun}"
    return f"{base}-scsi-0:0:{target}:{lun}"


def _event_props(sys_dir: str, name: str, devtype: str, dev: str) -> dict[str, str]:
    """The keys of the kernel's uevent itself, before any rule runs."""
    major, minor = dev.split(":")
    return {
        "DEVPATH": sys_dir.removeprefix("/sys"),
        "DEVNAME": f"/dev/{name}",
        "DEVTYPE": devtype,
        "MAJOR": major,
        "MINOR": minor,
        "SUBSYSTEM": "block",
    }


def _with_links(props: dict[str, str], links: Sequence[str]) -> dict[str, str]:
    """The symlinks the rules made, and systemd's tag that every block device gets."""
    if links:
        props["DEVLINKS"] = " ".join(links)
    props["TAGS"] = ":systemd:"
    return props


def disk_udev(
    name: str,
    block_dir: str,
    dev: str,
    style: str,
    hctl: str | None,
    model: str | None,
    vendor: str | None,
    serial: str | None,
    firmware: str | None,
    wwn: str | None,
    by_id: Sequence[str],
    partitioned: bool,
    fs_type: str | None,
    fs_label: str | None,
    fs_uuid: str | None,
) -> dict[str, str]:
    """The keys udevd (60-persistent-storage.rules) sets for a disk, as `udevadm info
    --query=property` lists them on the dev VM (tests/fixtures/disks/*/udevadm/)."""
    props = _event_props(block_dir, name, "disk", dev)
    bus = _udev_bus(style, vendor)
    if bus:
        props["ID_BUS"] = bus
    if model:
        props["ID_MODEL"] = model.replace(" ", "_")
    if vendor and bus == "scsi":
        props["ID_VENDOR"] = vendor.replace(" ", "_")
    if firmware:
        props["ID_REVISION"] = firmware
    if serial:
        props["ID_SERIAL_SHORT"] = serial
        props["ID_SERIAL"] = f"{(model or '').replace(' ', '_')}_{serial}".lstrip("_")
    if wwn:
        props["ID_WWN"] = wwn
    id_path = _id_path(style, hctl, block_dir)
    if id_path:
        props["ID_PATH"] = id_path
    if partitioned:
        props["ID_PART_TABLE_TYPE"] = "gpt"
    _fs_props(props, fs_type, fs_label, fs_uuid)
    links = [f"/dev/disk/by-id/{link}" for link in by_id]
    if id_path:
        links.append(f"/dev/disk/by-path/{id_path}")
    if fs_uuid:
        links.append(f"/dev/disk/by-uuid/{fs_uuid}")
    return _with_links(props, links)


def partition_udev(
    pname: str,
    part_dir: str,
    dev: str,
    spec: PartitionSpec,
    by_id: Sequence[str],
    disk_props: Mapping[str, str],
) -> dict[str, str]:
    """A partition's keys: the disk's identity, blkid's partition entry and its links."""
    props = _event_props(part_dir, pname, "partition", dev)
    props["PARTN"] = str(spec.number)
    for key in (
        "ID_BUS",
        "ID_MODEL",
        "ID_VENDOR",
        "ID_REVISION",
        "ID_SERIAL",
        "ID_SERIAL_SHORT",
        "ID_WWN",
        "ID_PATH",
    ):
        if key in disk_props:
            props[key] = disk_props[key]
    props["ID_PART_TABLE_TYPE"] = "gpt"
    _fs_props(props, spec.fs_type, spec.fs_label, spec.fs_uuid)
    props["ID_PART_ENTRY_SCHEME"] = "gpt"
    if spec.part_label:
        props["ID_PART_ENTRY_NAME"] = spec.part_label
    props["ID_PART_ENTRY_NUMBER"] = str(spec.number)
    props["ID_PART_ENTRY_OFFSET"] = str(spec.start_sector)
    props["ID_PART_ENTRY_SIZE"] = str(spec.size_bytes // SECTOR)
    links = [f"/dev/disk/by-id/{link}-part{spec.number}" for link in by_id]
    if "ID_PATH" in props:
        links.append(f"/dev/disk/by-path/{props['ID_PATH']}-part{spec.number}")
    if spec.fs_uuid:
        links.append(f"/dev/disk/by-uuid/{spec.fs_uuid}")
    if spec.fs_label:
        links.append(f"/dev/disk/by-label/{spec.fs_label}")
    return _with_links(props, links)


def _fs_props(
    props: dict[str, str], fs_type: str | None, label: str | None, uuid: str | None
) -> None:
    if label:
        props["ID_FS_LABEL"] = label
        props["ID_FS_LABEL_ENC"] = label
    if uuid:
        props["ID_FS_UUID"] = uuid
        props["ID_FS_UUID_ENC"] = uuid
    if fs_type:
        props["ID_FS_TYPE"] = fs_type
        props["ID_FS_USAGE"] = "raid" if fs_type.endswith("_member") else "filesystem"
