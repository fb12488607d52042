"""Mounted btrfs filesystems, from sysfs alone (so it works without root).

Per filesystem the kernel keeps ``/sys/fs/btrfs/<uuid>/`` with:

* ``label`` (an empty line when there is none),
* ``devices/<name>``: one symlink per member block device (``loop0``, ``sdb1``, ``dm-3``),
* ``devinfo/<devid>/missing``: ``1`` for a device the fs knows of but cannot find
  (kernel 5.6+),
* ``allocation/{data,metadata,system}/<profile>/{total_bytes,used_bytes}``, one folder
  per block-group profile in use (``raid1``, ``single``, ``dup``, ``raid10``, ``raid5``,
  ``raid6``, ``raid1c3``, ``raid1c4``, ``raid0``): logical bytes, the figures of
  ``btrfs filesystem df``.

Device sizes come from ``/sys/class/block/<name>/size`` (512-byte sectors).

sysfs does not say which block device carries which devid (only the
BTRFS_IOC_DEV_INFO ioctl does). With one present device the pairing is certain; with
several we pair the present devids in ascending order with the device names in sorted
order and add a note saying the ids may be swapped. Missing devices keep their devid.
"""

from __future__ import annotations

import os
import re

from ..core.errors import HostError
from ..core.models import BtrfsAllocation, BtrfsDevice, BtrfsFilesystem, Mount, SourceNote
from .host import Host

SYSFS_BTRFS = "/sys/fs/btrfs"
KINDS = ("data", "metadata", "system")
# Profile folder names as the kernel spells them (btrfs_bg_type_to_raid_name).
PROFILES = ("single", "dup", "raid0", "raid1", "raid1c3", "raid1c4", "raid10", "raid5", "raid6")
_UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
_DEVID_RE = re.compile(r"^[0-9]+$")

Errors = (OSError, HostError, ValueError)


def profile_name(folder: str) -> str:
    """Spell a profile like ``btrfs filesystem df`` does: "single", "DUP", "RAID1"."""
    return folder if folder == "single" else folder.upper()


def _read_int(host: Host, path: str) -> int:
    text = host.read_text(path).strip()
    if not text.isascii() or not text.isdigit() or len(text) > 30:
        raise ValueError(f"{path}: not a number: {text[:40]!r}")
    return int(text)


def _listdir(host: Host, path: str) -> list[str]:
    try:
        return host.listdir(path)
    except (OSError, HostError):
        return []


def _allocations(host: Host, base: str) -> tuple[BtrfsAllocation, ...]:
    found: list[BtrfsAllocation] = []
    for kind in KINDS:
        kind_dir = f"{base}/allocation/{kind}"
        for entry in _listdir(host, kind_dir):
            if entry not in PROFILES:
                continue
            try:
                total = _read_int(host, f"{kind_dir}/{entry}/total_bytes")
                used = _read_int(host, f"{kind_dir}/{entry}/used_bytes")
            except Errors:
                continue
            found.append(BtrfsAllocation(kind, profile_name(entry), total, used))
    return tuple(found)


def _device_size(host: Host, name: str) -> int | None:
    try:
        return _read_int(host, f"/sys/class/block/{name}/size") * 512
    except Errors:
        return None


def _devices(host: Host, base: str, uuid: str) -> tuple[tuple[BtrfsDevice, ...], list[SourceNote]]:
    names = _listdir(host, f"{base}/devices")
    present_ids: list[int] = []
    missing_ids: list[int] = []
    for entry in _listdir(host, f"{base}/devinfo"):
        if not _DEVID_RE.match(entry):
            continue
        try:
            missing = _read_int(host, f"{base}/devinfo/{entry}/missing") == 1
        except Errors:
            missing = False
        (missing_ids if missing else present_ids).append(int(entry))
    present_ids.sort()
    notes: list[SourceNote] = []
    if not present_ids and not missing_ids:
        # Kernels before 5.6 have no devinfo: number the devices ourselves.
        present_ids = list(range(1, len(names) + 1))
    if len(names) > 1:
        notes.append(
            SourceNote(
                f"btrfs {uuid}",
                "sysfs does not link devids to devices; ids were matched in name order "
                "and may be swapped",
            )
        )
    devices = [
        BtrfsDevice(devid=devid, path=f"/dev/{name}", size_bytes=_device_size(host, name))
        for devid, name in zip(present_ids, names, strict=False)
    ]
    # Present ids without a device link (or the other way round) should not happen; keep
    # what we know rather than invent a pairing.
    for devid in present_ids[len(names) :]:
        devices.append(BtrfsDevice(devid=devid, path=f"<devid {devid}>"))
    unpaired = names[len(present_ids) :]
    next_id = max(present_ids + missing_ids, default=0) + 1
    for offset, name in enumerate(unpaired):
        devices.append(
            BtrfsDevice(
                devid=next_id + offset, path=f"/dev/{name}", size_bytes=_device_size(host, name)
            )
        )
    for devid in sorted(missing_ids):
        devices.append(BtrfsDevice(devid=devid, path=f"<missing disk #{devid}>", missing=True))
    devices.sort(key=lambda d: d.devid)
    return tuple(devices), notes


def _mountpoints(host: Host, mounts: tuple[Mount, ...], names: set[str]) -> tuple[str, ...]:
    found: list[str] = []
    for mount in mounts:
        if mount.fs_type != "btrfs" or not mount.source.startswith("/dev/"):
            continue
        try:
            # /dev/mapper/crypt -> /dev/dm-3, the name sysfs uses.
            dev = os.path.basename(host.realpath(mount.source))
        except (OSError, HostError):
            dev = os.path.basename(mount.source)
        if dev in names and mount.mountpoint not in found:
            found.append(mount.mountpoint)
    return tuple(found)


def read_btrfs(
    host: Host, mounts: tuple[Mount, ...]
) -> tuple[tuple[BtrfsFilesystem, ...], tuple[SourceNote, ...]]:
    """Every btrfs filesystem the kernel has registered (mounted ones, in practice)."""
    try:
        entries = host.listdir(SYSFS_BTRFS)
    except FileNotFoundError:
        return (), ()  # btrfs module not loaded: no btrfs here
    except (OSError, HostError) as exc:
        return (), (SourceNote("btrfs", f"cannot list {SYSFS_BTRFS}: {exc}"),)
    filesystems: list[BtrfsFilesystem] = []
    notes: list[SourceNote] = []
    for uuid in entries:
        if not _UUID_RE.match(uuid):
            continue  # "features" and friends
        base = f"{SYSFS_BTRFS}/{uuid}"
        try:
            label = host.read_text(f"{base}/label").strip() or None
        except (OSError, HostError):
            label = None
        devices, dev_notes = _devices(host, base, uuid)
        notes.extend(dev_notes)
        present = [d for d in devices if not d.missing]
        sizes = [d.size_bytes for d in present]
        total = sum(s for s in sizes if s is not None) if sizes and None not in sizes else None
        names = {d.path.removeprefix("/dev/") for d in present}
        filesystems.append(
            BtrfsFilesystem(
                uuid=uuid,
                label=label,
                devices=devices,
                allocations=_allocations(host, base),
                mountpoints=_mountpoints(host, mounts, names),
                total_bytes=total,
            )
        )
    return tuple(filesystems), tuple(notes)
