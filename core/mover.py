"""The mover's types (issue 10): what is planned, what happened to each file, why a run
stopped and what crash recovery did. Shared by the engine (backends/mover_files.py),
the run (app/mover.py), the CLI and the mover view.

Pure data: no I/O, no Textual.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

# The engine's temporary names on a destination branch start with this; the scan of a
# cache branch skips such names too (a crash's leftover is the engine's to recover).
TEMP_PREFIX = ".tierdeck-moving."


class MoveReason(StrEnum):
    AGE = "age"
    FILL = "fill"


class SkipReason(StrEnum):
    OPEN = "open"  # open by a process when checked
    CHANGED = "changed-during-copy"  # size/mtime/ctime differed after the copy
    HARD_LINK = "hard-link"  # nlink > 1: skipped with a note
    EXISTS = "exists-on-destination"  # same relative path already on the chosen slow branch
    SPECIAL = "special-file"  # fifo, socket, device
    VANISHED = "vanished"  # gone before we got to it


class StopReason(StrEnum):
    NO_SPACE = "no-space"
    READ_ONLY = "read-only"
    CANCELLED = "cancelled"
    ERROR = "error"


class RecoveryAction(StrEnum):
    FINISHED = "finished"  # copy was complete and verified: source unlinked
    UNDONE = "undone"  # partial or unverified copy removed; source kept
    TEMP_REMOVED = "temp-removed"


@dataclass(frozen=True)
class CachedFile:
    branch: str  # the cache branch (absolute)
    rel: str  # path relative to the branch ("tv/show/ep1.mkv")
    size: int
    atime: float
    mtime: float
    nlink: int = 1
    is_symlink: bool = False


@dataclass(frozen=True)
class PlannedMove:
    file: CachedFile
    destination: str  # the slow *branch* (absolute), chosen by the slow pool's create policy
    reason: MoveReason


@dataclass(frozen=True)
class MoveOutcome:
    move: PlannedMove
    moved: bool
    skip: SkipReason | None = None
    detail: str = ""


@dataclass(frozen=True)
class RecoveryOutcome:
    rel: str
    source: str
    destination: str
    action: RecoveryAction
    detail: str = ""
