"""Where mergerfs 2.33 creates the next file: its create policies, simulated.

A transcription of mergerfs 2.33.5's ``src/policy_*.cpp`` create functions (and
``fuse_create.cpp``, which calls them with the new file's parent directory), so the
compose screen can say which branch a new file lands on before any pool is mounted.
The rules that matter, all from those sources:

- every branch is checked in pool order, and the first failing check rules it out:
  mode RO/NC (EROFS); for the ``ep*``/``msp*``/``newest`` policies, the parent directory
  missing on that branch (ENOENT); a read-only filesystem (EROFS); free space
  (``f_bavail * f_frsize``) below the branch's minfreespace, else the pool's (ENOSPC);
- when no branch qualifies, the errno is the most serious reason seen:
  EROFS over ENOSPC over ENOENT (``policy::calc_error``); with no branch at all, ENOENT;
- ties: ``mfs``/``lfs``/``newest`` replace the best on equal values (the last tied
  branch wins); ``lus`` keeps the first (it compares used space with ``>=``);
- the file's size is never looked at: a file larger than the chosen branch's free space
  fails mid-write with ENOSPC (unless ``moveonenospc``), so :class:`Placement` says so;
- ``all``/``epall`` answer every eligible branch, but ``create`` opens the file on the
  first of them only (directories are made on all);
- ``msp*`` retry one directory further up while no branch qualifies;
- ``pfrd`` draws ``t`` in ``[0, sum)`` and takes the first branch whose running sum of
  free space reaches ``t``: each branch's chance is its share of free space (give or
  take one byte), and a branch no ``t`` can reach is never picked.

Pure: branch facts in, a typed answer out; no I/O.
"""

from __future__ import annotations

import errno
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from .models import BranchMode

# mergerfs 2.33's MINFREESPACE_DEFAULT (config.cpp): 4 GiB less one byte.
DEFAULT_MINFREESPACE = 4 * 1024**3 - 1


class CreatePolicy(StrEnum):
    """mergerfs 2.33's create policies (``category.create=``), as it spells them."""

    ALL = "all"
    EPALL = "epall"
    EPFF = "epff"
    EPLFS = "eplfs"
    EPLUS = "eplus"
    EPMFS = "epmfs"
    EPPFRD = "eppfrd"
    EPRAND = "eprand"
    EROFS = "erofs"
    FF = "ff"
    LFS = "lfs"
    LUS = "lus"
    MFS = "mfs"
    MSPLFS = "msplfs"
    MSPLUS = "msplus"
    MSPMFS = "mspmfs"
    MSPPFRD = "msppfrd"
    NEWEST = "newest"
    PFRD = "pfrd"
    RAND = "rand"


class CreateErrno(StrEnum):
    """What a create through the pool fails with when no branch qualifies."""

    ENOENT = "ENOENT"
    ENOSPC = "ENOSPC"
    EROFS = "EROFS"

    @property
    def number(self) -> int:
        return int(getattr(errno, self.value))


class Refusal(StrEnum):
    """Why a branch cannot take a new file (the first of mergerfs's checks it fails)."""

    MODE = "mode"  # RO or NC
    NO_PARENT = "no-parent"  # ep*/msp*/newest: the parent directory is not on it
    READONLY_FS = "readonly-fs"
    BELOW_MINFREESPACE = "below-minfreespace"

    @property
    def errno(self) -> CreateErrno:
        return _REFUSAL_ERRNO[self]


_REFUSAL_ERRNO = {
    Refusal.MODE: CreateErrno.EROFS,
    Refusal.NO_PARENT: CreateErrno.ENOENT,
    Refusal.READONLY_FS: CreateErrno.EROFS,
    Refusal.BELOW_MINFREESPACE: CreateErrno.ENOSPC,
}
_SEVERITY = {CreateErrno.ENOENT: 0, CreateErrno.ENOSPC: 1, CreateErrno.EROFS: 2}


@dataclass(frozen=True)
class PolicyBranch:
    """One branch of the pool, as mergerfs sees it when a file is created."""

    path: str
    mode: BranchMode
    avail_bytes: int  # f_bavail * f_frsize
    used_bytes: int  # f_frsize * (f_blocks - f_bavail)
    readonly_fs: bool = False  # ST_RDONLY in statvfs's f_flag
    minfreespace_bytes: int | None = None  # the branch's own (``path=RW,2G``); None: the pool's
    # Directories of the new file's parent path missing on this branch, counted from the
    # parent up: 0 = the parent exists (what ep* ask); msp* climb until one qualifies.
    missing_dirs: int = 0
    parent_mtime: int = 0  # st_mtime (seconds) of the parent on this branch: ``newest``

    @property
    def parent_exists(self) -> bool:
        return self.missing_dirs == 0


@dataclass(frozen=True)
class BranchVerdict:
    path: str
    refusal: Refusal | None  # None: eligible


@dataclass(frozen=True)
class Placement:
    """A create policy's answer for one new file.

    ``branches`` is what the policy returns: one branch; every eligible branch for
    all/epall; the branches it may pick from for the random policies (with ``shares``,
    their chances, in the same order). Empty, with ``error`` set, when none qualifies.
    """

    policy: CreatePolicy
    branches: tuple[str, ...]
    random: bool
    error: CreateErrno | None
    verdicts: tuple[BranchVerdict, ...]  # at the directory level the policy decided on
    shares: tuple[float, ...] = ()
    levels_up: int = 0  # msp*: directories climbed above the parent
    # Branches the file may land on whose free space is below its size: the write fails
    # there with ENOSPC (mergerfs never looks at the size when it chooses).
    too_small: tuple[str, ...] = ()

    @property
    def lands_on(self) -> str | None:
        """The one branch the new file is created on, if the policy decides it alone."""
        if self.random or not self.branches:
            return None
        return self.branches[0]  # all/epall: create() opens the file on the first

    @property
    def candidates(self) -> tuple[str, ...]:
        """Every branch the file may be created on."""
        if self.random:
            return self.branches
        return () if self.lands_on is None else (self.lands_on,)


_EXISTING_PATH = frozenset(
    {
        CreatePolicy.EPALL,
        CreatePolicy.EPFF,
        CreatePolicy.EPLFS,
        CreatePolicy.EPLUS,
        CreatePolicy.EPMFS,
        CreatePolicy.EPPFRD,
        CreatePolicy.EPRAND,
        CreatePolicy.NEWEST,
        CreatePolicy.MSPLFS,
        CreatePolicy.MSPLUS,
        CreatePolicy.MSPMFS,
        CreatePolicy.MSPPFRD,
    }
)
_MOST_SHARED_PATH = frozenset(
    {CreatePolicy.MSPLFS, CreatePolicy.MSPLUS, CreatePolicy.MSPMFS, CreatePolicy.MSPPFRD}
)
_RANDOM = frozenset(
    {
        CreatePolicy.RAND,
        CreatePolicy.EPRAND,
        CreatePolicy.PFRD,
        CreatePolicy.EPPFRD,
        CreatePolicy.MSPPFRD,
    }
)
_PFRD = frozenset({CreatePolicy.PFRD, CreatePolicy.EPPFRD, CreatePolicy.MSPPFRD})


def refusal(
    branch: PolicyBranch, minfreespace: int, *, existing_path: bool, level: int = 0
) -> Refusal | None:
    """The first of mergerfs's create checks ``branch`` fails, in its order, or None."""
    if branch.mode is not BranchMode.RW:
        return Refusal.MODE
    if existing_path and branch.missing_dirs > level:
        return Refusal.NO_PARENT
    if branch.readonly_fs:
        return Refusal.READONLY_FS
    own = branch.minfreespace_bytes
    if branch.avail_bytes < (minfreespace if own is None else own):
        return Refusal.BELOW_MINFREESPACE
    return None


def _worse(current: CreateErrno, new: CreateErrno) -> CreateErrno:
    return new if _SEVERITY[new] > _SEVERITY[current] else current


def _best(
    eligible: list[PolicyBranch], key: Callable[[PolicyBranch], int], *, last_on_tie: bool
) -> str:
    best = eligible[0]
    for b in eligible[1:]:
        if key(b) > key(best) or (last_on_tie and key(b) == key(best)):
            best = b
    return best.path


def _pfrd_shares(eligible: list[PolicyBranch]) -> list[tuple[str, float]]:
    """Each branch's chance under pfrd: the thresholds ``t`` in [0, sum) that pick it."""
    total = sum(b.avail_bytes for b in eligible)
    out: list[tuple[str, float]] = []
    before = 0
    for i, b in enumerate(eligible):
        reach = min(before + b.avail_bytes, total - 1)
        hits = reach + 1 if i == 0 else reach - before
        if hits > 0:
            out.append((b.path, hits / total))
        before += b.avail_bytes
    return out


def _decide(policy: CreatePolicy, eligible: list[PolicyBranch]) -> list[tuple[str, float]]:
    """The branches the policy returns from the eligible ones, with their chances."""
    if not eligible:
        return []
    if policy in _PFRD:
        return [] if sum(b.avail_bytes for b in eligible) == 0 else _pfrd_shares(eligible)
    if policy in (CreatePolicy.RAND, CreatePolicy.EPRAND):
        return [(b.path, 1 / len(eligible)) for b in eligible]
    if policy in (CreatePolicy.ALL, CreatePolicy.EPALL):
        return [(b.path, 1.0) for b in eligible]
    if policy in (CreatePolicy.FF, CreatePolicy.EPFF):
        chosen = eligible[0].path
    elif policy in (CreatePolicy.MFS, CreatePolicy.EPMFS, CreatePolicy.MSPMFS):
        chosen = _best(eligible, lambda b: b.avail_bytes, last_on_tie=True)
    elif policy in (CreatePolicy.LFS, CreatePolicy.EPLFS, CreatePolicy.MSPLFS):
        chosen = _best(eligible, lambda b: -b.avail_bytes, last_on_tie=True)
    elif policy in (CreatePolicy.LUS, CreatePolicy.EPLUS, CreatePolicy.MSPLUS):
        chosen = _best(eligible, lambda b: -b.used_bytes, last_on_tie=False)
    else:  # newest
        chosen = _best(eligible, lambda b: b.parent_mtime, last_on_tie=True)
    return [(chosen, 1.0)]


def simulate(
    policy: CreatePolicy,
    branches: Sequence[PolicyBranch],
    size_bytes: int = 0,
    minfreespace: int = DEFAULT_MINFREESPACE,
) -> Placement:
    """Where mergerfs puts a new file of ``size_bytes`` under ``policy``."""
    random = policy in _RANDOM
    if policy is CreatePolicy.EROFS:  # refuses every create, whatever the branches
        verdicts = tuple(BranchVerdict(b.path, None) for b in branches)
        return Placement(policy, (), random, CreateErrno.EROFS, verdicts)
    existing = policy in _EXISTING_PATH
    # Climbing stops at the pool's root; past the deepest missing directory every level
    # looks the same, so that is as far as the answer can change.
    top = max((b.missing_dirs for b in branches), default=0)
    levels = range(top + 1) if policy in _MOST_SHARED_PATH else range(1)
    error = CreateErrno.ENOENT
    for level in levels:
        if policy is CreatePolicy.MSPPFRD:
            error = CreateErrno.ENOENT  # its create_1 starts afresh at every level
        verdicts = tuple(
            BranchVerdict(b.path, refusal(b, minfreespace, existing_path=existing, level=level))
            for b in branches
        )
        for v in verdicts:
            if v.refusal is not None:
                error = _worse(error, v.refusal.errno)
        eligible = [b for b, v in zip(branches, verdicts, strict=True) if v.refusal is None]
        chosen = _decide(policy, eligible)
        # msppfrd stops climbing once any branch qualifies, even with no free space.
        if chosen or (policy is CreatePolicy.MSPPFRD and eligible):
            break
    if not chosen:
        return Placement(policy, (), random, error, verdicts, levels_up=level)
    paths = tuple(p for p, _ in chosen)
    avail = {b.path: b.avail_bytes for b in branches}
    landing = paths if random else paths[:1]
    return Placement(
        policy,
        paths,
        random,
        None,
        verdicts,
        shares=tuple(s for _, s in chosen) if random else (),
        levels_up=level,
        too_small=tuple(p for p in landing if avail[p] < size_bytes),
    )


def simulate_all(
    branches: Sequence[PolicyBranch],
    size_bytes: int = 0,
    minfreespace: int = DEFAULT_MINFREESPACE,
) -> dict[CreatePolicy, Placement]:
    """Every create policy's answer for the same pool and file (the compose screen's)."""
    return {p: simulate(p, branches, size_bytes, minfreespace) for p in CreatePolicy}
