"""Two inventories of one machine (here and over SSH) compared whole, but for what
changes between two looks on a busy machine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

USAGE_FIELDS = ("avail_bytes", "used_bytes", "free_bytes", "size_bytes")
# btrfs's cleaner frees empty block groups on its own schedule, which moves the lab's
# own free space a few MiB between two looks with nothing written in between
USAGE_SLACK_BYTES = 32 * 2**20


def steady_inventory(doc: dict[str, Any], lab: Path) -> dict[str, Any]:
    # other programs write to the filesystems outside the lab; the lab's own fill stays
    mounts = []
    for mount in doc["mounts"]:
        if not str(mount["mountpoint"]).startswith(str(lab)):
            mount = {k: v for k, v in mount.items() if k not in USAGE_FIELDS}
        mounts.append(mount)
    # the cleaner also changes a chunk's size
    btrfs = [
        {**fs, "allocations": [(a["kind"], a["profile"]) for a in fs["allocations"]]}
        for fs in doc["btrfs"]
    ]
    return {**doc, "mounts": mounts, "btrfs": btrfs}


def differences(a: Any, b: Any, where: str = "") -> list[str]:
    """Where two documents differ: exactly, but usage figures within the slack."""
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return [f"{where}: keys {sorted(a)} != {sorted(b)}"]
        found: list[str] = []
        for key in a:
            if key in USAGE_FIELDS and isinstance(a[key], int) and isinstance(b[key], int):
                if abs(a[key] - b[key]) > USAGE_SLACK_BYTES:
                    found.append(f"{where}.{key}: {a[key]} != {b[key]}")
            else:
                found += differences(a[key], b[key], f"{where}.{key}")
        return found
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        if len(a) != len(b):
            return [f"{where}: {len(a)} items != {len(b)}: {a} != {b}"]
        return [
            d
            for i, (x, y) in enumerate(zip(a, b, strict=True))
            for d in differences(x, y, f"{where}[{i}]")
        ]
    return [] if a == b else [f"{where}: {a!r} != {b!r}"]


def assert_same_inventory(remote: dict[str, Any], local: dict[str, Any], lab: Path) -> None:
    assert differences(steady_inventory(remote, lab), steady_inventory(local, lab)) == []
