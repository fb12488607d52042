"""The mover's types: what is planned, what happened to each file, why a run
stopped and what crash recovery did. Shared by the engine (backends/mover/engine.py),
the run (app/mover/run.py), the CLI and the mover view.

Pure data: no I/O, no Textual.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import posixpath
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from .layout.destination import Destination
from .layout.model import AgeBasis, BranchMode, CreatePolicy, MoverPolicy
from .mergerfs_policy import CreateErrno, Placement, PolicyBranch, simulate

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


class MovePhase(StrEnum):
    """What a group of files is going through (the engine tells each as it starts)."""

    COPYING = "copying"  # bytes flow into temp files on the slow branch
    SYNCING = "syncing"  # the copies made durable: none lands before the disk says so
    VERIFYING = "verifying"  # the same, then the copies read back (--verify)


@dataclass(frozen=True)
class MoveStep:
    """A phase started for a group of ``files`` files of ``size`` bytes."""

    phase: MovePhase
    files: int
    size: int


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
    # st_blocks * 512: what it takes on disk (None: unknown, its size is used).
    allocated: int | None = None

    def on_disk(self, block: int) -> int:
        """The bytes this file takes on a filesystem of ``block``-byte blocks: its
        allocation here (holes stay holes) rounded up to whole blocks there, since 600
        one-byte files take 600 blocks, not 600 bytes."""
        base = self.size if self.allocated is None else self.allocated
        if base == 0 and self.size and not self.is_symlink:
            base = self.size  # data inline in the inode here (btrfs): it may need a block there
        return -(-base // block) * block


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


# -- selection ---------------------------------------------------------------------

DAY = 86400.0


@dataclass(frozen=True)
class CacheUsage:
    """How full one cache branch's filesystem is (statvfs)."""

    branch: str
    used_bytes: int  # size - free
    avail_bytes: int  # free to ordinary users

    @property
    def fill_pct(self) -> float:
        """As ``df`` counts Use%: used over what users can have (used + avail)."""
        total = self.used_bytes + self.avail_bytes
        return 100.0 * self.used_bytes / total if total > 0 else 0.0

    def bytes_above(self, pct: int) -> int:
        """How many bytes must go for the fill to be at or below ``pct``."""
        total = self.used_bytes + self.avail_bytes
        return max(0, self.used_bytes - (total * pct) // 100)


@dataclass(frozen=True)
class Selected:
    file: CachedFile
    reason: MoveReason


def excluded(rel: str, globs: Sequence[str]) -> bool:
    """Whether an exclusion glob matches ``rel`` (a path relative to its cache branch).

    fnmatch semantics, case-sensitive, on the whole relative path: ``*`` and ``?`` also
    match ``/`` ("*.partial" excludes "tv/a.partial"). A glob that matches a directory
    ("incoming", "incoming/*/tmp") excludes everything under it.
    """
    if not globs:  # the usual layout: no list of prefixes for every file scanned
        return False
    parts = rel.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    return any(fnmatch.fnmatchcase(p, g) for g in globs for p in prefixes)


def _stamp(f: CachedFile, basis: AgeBasis) -> float:
    return f.atime if basis is AgeBasis.ATIME else f.mtime


def select_files(
    files: Iterable[CachedFile],
    policy: MoverPolicy,
    usage: Mapping[str, CacheUsage],
    now: float,
    *,
    min_age_days: int | None = None,
) -> tuple[Selected, ...]:
    """The files to move, oldest first (by the policy's age basis).

    AGE: older than ``min_age_days`` (the policy's unless given). FILL: on a branch
    above ``fill_high_pct``, the oldest further files until the bytes moved bring it to
    ``fill_low_pct`` (age-selected files count). A file both would move is AGE.
    Hard-linked files are selected (the engine skips them with a note) but free nothing:
    their blocks stay with the other link. Branches without usage are not filled.
    """
    days = policy.min_age_days if min_age_days is None else min_age_days
    cutoff = now - days * DAY
    basis = policy.age_basis
    eligible = sorted(
        (f for f in files if not excluded(f.rel, policy.exclude)),
        key=lambda f: (_stamp(f, basis), f.branch, f.rel),
    )
    chosen: dict[tuple[str, str], MoveReason] = {}
    frees: dict[str, int] = {}
    for f in eligible:
        if _stamp(f, basis) <= cutoff:
            chosen[(f.branch, f.rel)] = MoveReason.AGE
            frees[f.branch] = frees.get(f.branch, 0) + _freed(f)
    for branch, use in usage.items():
        if use.fill_pct <= policy.fill_high_pct:
            continue
        need = use.bytes_above(policy.fill_low_pct) - frees.get(branch, 0)
        for f in eligible:
            if need <= 0:
                break
            if f.branch != branch or (f.branch, f.rel) in chosen:
                continue
            chosen[(f.branch, f.rel)] = MoveReason.FILL
            need -= _freed(f)
    return tuple(
        Selected(f, chosen[(f.branch, f.rel)]) for f in eligible if (f.branch, f.rel) in chosen
    )


def _freed(f: CachedFile) -> int:
    return 0 if f.nlink > 1 else f.size


# -- destination -------------------------------------------------------------------


@dataclass(frozen=True)
class SlowSpace:
    """One destination branch's space, as statvfs says before the run."""

    path: str
    avail_bytes: int
    used_bytes: int
    readonly_fs: bool = False
    block_size: int = 1  # statvfs f_frsize: each file's allocation rounds up to it


@dataclass(frozen=True)
class Unplaced:
    """A selected file no slow branch can take (the create would fail with ``error``)."""

    file: CachedFile
    reason: MoveReason
    error: CreateErrno | None  # None: a branch qualified, but none has room for the file


@dataclass(frozen=True)
class Plan:
    moves: tuple[PlannedMove, ...]
    unplaced: tuple[Unplaced, ...]

    @property
    def bytes_total(self) -> int:
        return sum(m.file.size for m in self.moves)


MissingDirs = Callable[
    [str, str], int
]  # (branch, parent rel dir) -> dirs missing, from the parent up


def _no_missing(branch: str, parent: str) -> int:
    return 0


# Policies that never look at the new file's parent path (mergerfs's ep*/msp*/newest
# do): for these the plan skips counting missing directories per file.
_PATH_FREE = frozenset({CreatePolicy.FF, CreatePolicy.LFS, CreatePolicy.LUS, CreatePolicy.MFS,
                        CreatePolicy.RAND, CreatePolicy.PFRD, CreatePolicy.ALL})  # fmt: skip
_PFRD = frozenset({CreatePolicy.PFRD, CreatePolicy.EPPFRD, CreatePolicy.MSPPFRD})


def place(
    selected: Sequence[Selected],
    dest: Destination,
    space: Mapping[str, SlowSpace],
    *,
    missing_dirs: MissingDirs = _no_missing,
    rng: random.Random | None = None,
    fast: bool = True,
) -> Plan:
    """A slow branch for each selected file, in order, as the slow pool's create policy
    (core/mergerfs_policy.simulate) would pick it, each assignment using up the free
    space it takes and creating its parent directories on that branch.

    Path-preserving policies (ep*, msp*, newest) whose parent exists on no branch climb
    as a copy through the pool would (mkdir of each missing level, each placed where
    its own parent is): the first level some branch qualifies at decides. A branch the
    policy picks without room for the file (mergerfs never looks at sizes) is left out
    and the policy asked again, as ``moveonenospc`` would. Room means the file's
    blocks (:meth:`CachedFile.on_disk`) still leave minfreespace free: mergerfs only
    checks minfreespace before a create, the mover never goes below it. Random policies draw from
    ``rng`` (seed it for a repeatable forecast).

    ``fast`` (the default) takes shortcuts with the same answer (tests compare both):
    one slow branch is decided without the simulator, and path-free policies do not
    count missing directories.
    """
    draw = rng or random.Random(0)
    paths = [p for p in dest.branches if p in space]
    if fast and len(paths) == 1:
        return _place_single(selected, dest, space[paths[0]])
    avail = {p: space[p].avail_bytes for p in paths}
    used = {p: space[p].used_bytes for p in paths}
    block = {p: max(1, space[p].block_size) for p in paths}
    # One PolicyBranch per branch, replaced only when its space or missing levels change.
    base = {p: PolicyBranch(path=p, mode=BranchMode.RW, avail_bytes=avail[p],
                            used_bytes=used[p], readonly_fs=space[p].readonly_fs,
                            minfreespace_bytes=dest.minfreespace_bytes) for p in paths}  # fmt: skip
    path_free = fast and dest.policy in _PATH_FREE
    made: set[tuple[str, str]] = set()  # (branch, dir) the plan creates
    moves: list[PlannedMove] = []
    unplaced: list[Unplaced] = []
    for s in selected:
        parent = posixpath.dirname(s.file.rel)
        excluded_branches: set[str] = set()
        chosen: str | None = None
        error: CreateErrno | None = None
        if path_free:
            current = list(base.values())
        else:
            current = []
            for p, b in base.items():
                missing = _missing(p, parent, missing_dirs, made)
                current.append(b if missing == 0 else dataclasses.replace(b, missing_dirs=missing))
        while True:
            branches = [b for b in current if b.path not in excluded_branches]
            placement = _simulate_climbing(dest.policy, branches, s.file.size)
            if placement.error is not None or not placement.branches:
                error = placement.error if not excluded_branches else None
                break
            pick = _pick(placement, draw)
            if _room(avail[pick], s.file.on_disk(block[pick]), dest.minfreespace_bytes):
                chosen = pick
                break
            excluded_branches.add(pick)
        if chosen is None:
            unplaced.append(Unplaced(s.file, s.reason, error))
            continue
        taken = s.file.on_disk(block[chosen])
        avail[chosen] -= taken
        used[chosen] += taken
        base[chosen] = dataclasses.replace(
            base[chosen], avail_bytes=avail[chosen], used_bytes=used[chosen]
        )
        if not path_free:
            d = parent
            while d:
                made.add((chosen, d))
                d = posixpath.dirname(d)
        moves.append(PlannedMove(s.file, chosen, s.reason))
    return Plan(tuple(moves), tuple(unplaced))


def _place_single(selected: Sequence[Selected], dest: Destination, space: SlowSpace) -> Plan:
    """:func:`place` for one slow branch: whatever the policy, climbing reaches a level
    where the branch has the path, so only its own checks decide (read-only, then
    minfreespace; pfrd draws nothing from a branch with no free space at all)."""
    avail, path, block = space.avail_bytes, space.path, max(1, space.block_size)
    moves: list[PlannedMove] = []
    unplaced: list[Unplaced] = []
    for s in selected:
        size = s.file.on_disk(block)
        error: CreateErrno | None = None
        if dest.policy is CreatePolicy.EROFS or space.readonly_fs:
            error = CreateErrno.EROFS
        elif avail < dest.minfreespace_bytes:
            error = CreateErrno.ENOSPC
        elif dest.policy in _PFRD and avail == 0:
            error = CreateErrno.ENOENT
        elif _room(avail, size, dest.minfreespace_bytes):
            avail -= size
            moves.append(PlannedMove(s.file, path, s.reason))
            continue
        unplaced.append(Unplaced(s.file, s.reason, error))
    return Plan(tuple(moves), tuple(unplaced))


def _room(avail: int, taken: int, minfreespace: int) -> bool:
    return avail - taken >= minfreespace


def _missing(
    branch: str, parent: str, missing_dirs: MissingDirs, made: set[tuple[str, str]]
) -> int:
    if not parent:
        return 0
    count = 0
    d = parent
    while d and (branch, d) not in made:
        count += 1
        d = posixpath.dirname(d)
    # The plan made `d` (or reached the branch's root): only the levels below it can
    # be missing, and the branch itself may have more of them already.
    return min(count, missing_dirs(branch, parent)) if d else missing_dirs(branch, parent)


def _simulate_climbing(policy: CreatePolicy, branches: list[PolicyBranch], size: int) -> Placement:
    placement = simulate(policy, branches, size, 0)
    top = max((b.missing_dirs for b in branches), default=0)
    for up in range(1, top + 1):
        if placement.error is not CreateErrno.ENOENT:
            break
        lifted = [
            dataclasses.replace(b, missing_dirs=max(0, b.missing_dirs - up)) for b in branches
        ]
        placement = simulate(policy, lifted, size, 0)
    return placement


def _pick(placement: Placement, draw: random.Random) -> str:
    if placement.lands_on is not None:
        return placement.lands_on
    return draw.choices(placement.branches, weights=placement.shares or None)[0]


def forecast_seconds(bytes_total: int, bandwidth_bps: float | None) -> float | None:
    """How long moving ``bytes_total`` should take at a measured write bandwidth."""
    if bandwidth_bps is None or bandwidth_bps <= 0:
        return None
    return bytes_total / bandwidth_bps
