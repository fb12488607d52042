"""Block devices that stack on others (device-mapper, md, bcache), from ``/sys/block``.

For every ``/sys/block/{dm-*,md*,bcache*}`` the kernel gives its number (``dev``,
"253:0") and what it sits on (``slaves/``, "sda3"). With the names of the disks and
partitions added, these let ``core/relations`` walk from a mount's device number down to
physical disks through any stacking (LVM on md on partitions, bcache, LUKS ...).

Read errors are never fatal: a device that cannot be read is left out, and a missing
``/sys/block`` gives empty maps (the disks source says why in its own note).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core.errors import TierdeckError
from ..core.models import Disk
from .host import Host

SYS_BLOCK = "/sys/block"
# Kernel devices that stack on others: their "slaves" lead down to disks.
STACKED_PREFIXES = ("dm-", "md", "bcache")


@dataclass(frozen=True)
class Stacking:
    """What ``Inventory.dev_names`` and ``Inventory.slaves`` hold (same names)."""

    # "major:minor" -> kernel name, for stacked devices, disks and partitions.
    dev_names: dict[str, str] = field(default_factory=dict)
    # stacked device -> the kernel names it sits on ("dm-0" -> ("sda3",)).
    slaves: dict[str, tuple[str, ...]] = field(default_factory=dict)


def read_stacking(host: Host, disks: tuple[Disk, ...] = ()) -> Stacking:
    """Stacked devices of ``/sys/block`` and what each sits on, plus the device numbers of
    ``disks`` and their partitions (a disk's name wins over a stacked one's)."""
    dev_names: dict[str, str] = {}
    slaves: dict[str, tuple[str, ...]] = {}
    try:
        names = host.listdir(SYS_BLOCK)
    except (OSError, TierdeckError):
        names = []
    for name in names:
        if not name.startswith(STACKED_PREFIXES):
            continue
        try:
            dev_names[host.read_text(f"{SYS_BLOCK}/{name}/dev").strip()] = name
            slaves[name] = tuple(host.listdir(f"{SYS_BLOCK}/{name}/slaves"))
        except (OSError, TierdeckError):
            continue
    for disk in disks:
        dev_names[disk.major_minor] = disk.name
        for part in disk.partitions:
            dev_names[part.major_minor] = part.name
    return Stacking(dev_names=dev_names, slaves=slaves)
