"""An inventory document without what changes between two looks on a busy machine, so
two collections of the same machine (here and over SSH) can be compared whole."""

from __future__ import annotations

from pathlib import Path
from typing import Any

USAGE_FIELDS = ("avail_bytes", "used_bytes", "free_bytes", "size_bytes")


def steady_inventory(doc: dict[str, Any], lab: Path) -> dict[str, Any]:
    # other programs write to the filesystems outside the lab; the lab's own fill stays
    mounts = []
    for mount in doc["mounts"]:
        if not str(mount["mountpoint"]).startswith(str(lab)):
            mount = {k: v for k, v in mount.items() if k not in USAGE_FIELDS}
        mounts.append(mount)
    # btrfs's cleaner frees empty block groups on its own schedule, so a chunk's size
    # may change between two collections with nothing written in between
    btrfs = [
        {**fs, "allocations": [(a["kind"], a["profile"]) for a in fs["allocations"]]}
        for fs in doc["btrfs"]
    ]
    return {**doc, "mounts": mounts, "btrfs": btrfs}
