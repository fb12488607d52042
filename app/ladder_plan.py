"""Planning the layer-penalty ladder: which rungs, with which job (app/ladder_run.py
runs them; its docstring describes both). Raises LadderRefused before anything runs."""

from __future__ import annotations

import errno
import posixpath
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ..backends.host import Host
from ..backends.mounts import mount_for_path
from ..core.errors import TierdeckError
from ..core.jobspec import JobSpec, JobSpecError, with_overrides
from ..core.ladder import LADDER_SCHEMA, RungKind
from ..core.ladder_options import (
    MountOptions,
    OptionSweep,
    pool_mount_options,
    tmpfs_size_bytes,
)
from ..core.mergerfs_policy import DEFAULT_MINFREESPACE, CreatePolicy, PolicyBranch, simulate
from ..core.models import BranchMode, Inventory, MergerfsBranch, MergerfsPool
from ..core.placement import PlacementRefused, place_jobs, planned_files
from ..core.units import format_bytes
from .bench_preflight import PROBE_NAME
from .run_sets import RunSetStore
from .throwaway_mounts import MEMORY_RESERVE, mem_available

MIB = 1024 * 1024
DEFAULT_MIN_BYTES = 8 * MIB
DEFAULT_MAX_BYTES = 1024 * MIB
DEFAULT_SHARE = 8  # the default job takes at most 1/8 of the smallest free space
DEFAULT_JOB_NAME = "ladder-seqwrite"
TMPFS_MOUNT = "tmpfs"


class LadderRefusalKind(StrEnum):
    NOT_LIVE = "not-live"  # a recording: nothing can run
    NOT_MERGERFS = "not-mergerfs"
    POOL_UNREADABLE = "pool-unreadable"  # its .mergerfs control file did not answer
    BAD_JOB = "bad-job"


class LadderRefused(TierdeckError):
    """The ladder cannot start at all; ``kind`` says why without the words."""

    def __init__(self, kind: LadderRefusalKind, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


@dataclass(frozen=True)
class PlannedRung:
    kind: RungKind
    path: str  # a real path; a throwaway rung's mount name until it is mounted
    option: tuple[str, str] | None = None
    skipped: str | None = None  # known before anything runs (no RAM for the tmpfs)

    @property
    def label(self) -> str:
        if self.option is not None:
            return f"{self.option[0]}={self.option[1]}"
        return self.kind.value

    @property
    def key(self) -> str:
        """The rung's cell in the run set."""
        return f"branch:{self.path}" if self.kind is RungKind.BRANCH else self.label


@dataclass(frozen=True)
class LadderPlan:
    pool: MergerfsPool
    jobs: tuple[JobSpec, ...]
    rungs: tuple[PlannedRung, ...]
    mount_options: MountOptions  # the pool's, for its throwaway copies
    tmpfs_bytes: int | None  # None: no tmpfs rung
    preset: str | None = None
    runtime: int | None = None
    size: str | None = None
    default_job: bool = False
    all_branches: bool = False
    option: OptionSweep | None = None
    store: RunSetStore | None = field(default=None, compare=False, repr=False)

    def definition(self) -> dict[str, Any]:
        """The run set's definition: what was asked, as JSON values."""
        from .history import _spec_to_dict

        return {
            "schema": LADDER_SCHEMA,
            "pool": self.pool.mountpoint,
            "jobs": [_spec_to_dict(job) for job in self.jobs],
            "preset": self.preset,
            "runtime": self.runtime,
            "size": self.size,
            "all_branches": self.all_branches,
            "option": None
            if self.option is None
            else {"name": self.option.name, "values": list(self.option.values)},
        }


# --------------------------------------------------------------------------- planning


def _find_pool(inventory: Inventory, mountpoint: str) -> MergerfsPool:
    wanted = posixpath.normpath(mountpoint)
    for pool in inventory.mergerfs:
        if posixpath.normpath(pool.mountpoint) == wanted:
            if pool.error is not None:
                raise LadderRefused(LadderRefusalKind.POOL_UNREADABLE, pool.error)
            if not pool.branches:
                raise LadderRefused(LadderRefusalKind.POOL_UNREADABLE, f"{wanted} has no branches")
            return pool
    pools = ", ".join(p.mountpoint for p in inventory.mergerfs) or "none on this machine"
    raise LadderRefused(
        LadderRefusalKind.NOT_MERGERFS,
        f"{wanted} is not a mergerfs pool's mountpoint (mergerfs pools: {pools})",
    )


def _policy_branch(
    inventory: Inventory, pool: MergerfsPool, branch: MergerfsBranch
) -> PolicyBranch:
    mount = mount_for_path(inventory.mounts, branch.path)
    avail = branch.avail_bytes or 0
    used = (branch.size_bytes or 0) - avail
    readonly = mount is not None and "ro" in mount.options
    return PolicyBranch(
        branch.path, branch.mode, avail, max(used, 0), readonly, branch.minfreespace_bytes
    )


def branch_targets(
    inventory: Inventory, pool: MergerfsPool, size_bytes: int, *, all_branches: bool
) -> tuple[tuple[str, ...], str | None]:
    """The branches the branch rungs run on, or why there is none."""
    if all_branches:
        found = tuple(b.path for b in pool.branches if b.mode is BranchMode.RW)
        return found, None if found else "the pool has no RW branch"
    try:
        policy = CreatePolicy(pool.create_policy or "")
    except ValueError:
        return (), f"create policy {pool.create_policy!r} unknown to tierdeck: use --all-branches"
    branches = [_policy_branch(inventory, pool, b) for b in pool.branches]
    minfree = DEFAULT_MINFREESPACE if pool.minfreespace_bytes is None else pool.minfreespace_bytes
    placement = simulate(policy, branches, size_bytes, minfree)
    if not placement.candidates:
        why = placement.error.value if placement.error else "no branch"
        return (), f"{policy.value} gives a new file no branch ({why})"
    return placement.candidates, None


def _default_job(size_bytes: int, *, direct: bool) -> JobSpec:
    return JobSpec(
        name=DEFAULT_JOB_NAME,
        rw="write",
        bs="1M",
        ioengine="psync",
        direct=direct,
        size=f"{size_bytes // MIB}M",
        end_fsync=True,
    )


def _default_size(pool: MergerfsPool, targets: Sequence[str]) -> int:
    avails = [b.avail_bytes for b in pool.branches if b.path in targets and b.avail_bytes]
    if pool.avail_bytes:
        avails.append(pool.avail_bytes)
    smallest = min(avails, default=DEFAULT_MIN_BYTES * DEFAULT_SHARE)
    wanted = min(max(smallest // DEFAULT_SHARE, DEFAULT_MIN_BYTES), DEFAULT_MAX_BYTES)
    return wanted // MIB * MIB


def _pool_takes_direct(host: Host, pool: MergerfsPool) -> bool:
    failure = host.probe_write(pool.mountpoint, PROBE_NAME, direct=True)
    return failure is None or failure.errno != errno.EINVAL


def _planned_bytes(
    jobs: Sequence[JobSpec], pool: MergerfsPool, size: str | None, runtime: int | None
) -> int | None:
    """What the job's files hold, or None when fio sizes them itself."""
    try:
        placed = place_jobs(with_overrides(jobs, size, runtime), pool.mountpoint).jobs
    except (JobSpecError, PlacementRefused) as exc:
        raise LadderRefused(LadderRefusalKind.BAD_JOB, str(exc)) from exc
    sizes = [f.size_bytes for f in planned_files(placed)]
    if any(s is None for s in sizes):
        return None
    return sum(s for s in sizes if s is not None)


def _tmpfs_skip(host: Host, planned: int | None) -> tuple[int | None, str | None]:
    if planned is None:
        return None, "fio sizes the job's files itself (no size=): give --size for a tmpfs"
    wanted = tmpfs_size_bytes(planned)
    available = mem_available(host)
    if available is not None and available - MEMORY_RESERVE < wanted:
        return wanted, (
            f"no room in RAM for a {format_bytes(wanted)} tmpfs "
            f"({format_bytes(available)} available)"
        )
    if not host.has_tool("mergerfs"):
        return wanted, "mergerfs is not installed here (a throwaway pool needs it)"
    return wanted, None


def plan_ladder(
    host: Host,
    inventory: Inventory,
    pool_mountpoint: str,
    jobs: Sequence[JobSpec] | None,
    *,
    preset: str | None = None,
    all_branches: bool = False,
    option: OptionSweep | None = None,
    runtime: int | None = None,
    size: str | None = None,
    store: RunSetStore | None = None,
) -> LadderPlan:
    """The rungs to run on ``pool_mountpoint``; raises LadderRefused. ``jobs`` None (or
    empty): the default job (module docstring)."""
    pool = _find_pool(inventory, pool_mountpoint)
    if not (host.capabilities.live and host.capabilities.run_benchmarks):
        raise LadderRefused(LadderRefusalKind.NOT_LIVE, "benchmarks run on a live machine only")
    default_job = not jobs
    if default_job:
        direct = _pool_takes_direct(host, pool)
        probe_targets, _ = branch_targets(
            inventory, pool, DEFAULT_MIN_BYTES, all_branches=all_branches
        )
        chosen = _default_size(pool, probe_targets)
        jobs = (_default_job(chosen, direct=direct),)
    assert jobs is not None
    jobs = tuple(jobs)
    planned = _planned_bytes(jobs, pool, size, runtime)
    rungs: list[PlannedRung] = []
    tmpfs_bytes: int | None = None
    if option is None:
        targets, why_none = branch_targets(inventory, pool, planned or 0, all_branches=all_branches)
        if targets:
            rungs += [PlannedRung(RungKind.BRANCH, path) for path in targets]
        else:
            rungs.append(PlannedRung(RungKind.BRANCH, "-", skipped=why_none))
        rungs.append(PlannedRung(RungKind.POOL, pool.mountpoint))
        tmpfs_bytes, skip = _tmpfs_skip(host, planned)
        rungs.append(PlannedRung(RungKind.TMPFS, "pool-tmpfs", skipped=skip))
        rungs.append(PlannedRung(RungKind.NULLRW, "pool-nullrw", skipped=skip))
    else:
        rungs.append(PlannedRung(RungKind.POOL, pool.mountpoint))
        for index, value in enumerate(option.values):
            rungs.append(
                PlannedRung(RungKind.OPTION, f"option-{index}", option=(option.name, value))
            )
    return LadderPlan(
        pool=pool,
        jobs=jobs,
        rungs=tuple(rungs),
        mount_options=pool_mount_options(pool.options),
        tmpfs_bytes=tmpfs_bytes,
        preset=preset,
        runtime=runtime,
        size=size,
        default_job=default_job,
        all_branches=all_branches,
        option=option,
        store=store,
    )
