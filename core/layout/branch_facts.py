"""What the machine says about a branch path, as the layout rules read it.

Apart from the rules: app/layout/facts.py fills these from the inventory and the mover
reads them too; they describe the machine, not whether a layout is right.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum


class Redundancy(StrEnum):
    NONE = "none"  # one device: its failure loses what only it holds
    MIRROR = "mirror"
    PARITY = "parity"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class BranchFacts:
    """What the machine says about one branch path. None: could not be told."""

    path: str
    exists: bool | None
    mount_point: str | None  # the mount the path is on
    fs_type: str | None
    size_bytes: int | None
    free_bytes: int | None  # available to non-root, as mergerfs counts it
    fs_id: str | None  # major:minor of the filesystem: equal ids, same filesystem
    devices: tuple[str, ...]  # disks under it
    redundancy: Redundancy
    read_only: bool | None = None  # mounted ro: every write fails with EROFS


Facts = Mapping[str, BranchFacts]
