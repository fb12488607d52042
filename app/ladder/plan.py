"""Planning the layer-penalty ladder: which rungs, with which job (app/ladder/run.py
runs them; its docstring describes both). Raises LadderRefused before anything runs."""

from __future__ import annotations

import errno
import posixpath
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ...backends.host import Host
from ...backends.mounts import mount_for_path
from ...core.bench_models import BenchRefused
from ...core.errors import TierdeckError
from ...core.jobspec import JobSpec, JobSpecError, with_overrides
from ...core.ladder.model import LADDER_SCHEMA, BranchRole, RungKind, rung_label
from ...core.ladder.options import MountOptions, OptionSweep, pool_mount_options, tmpfs_size_bytes
from ...core.mergerfs_policy import DEFAULT_MINFREESPACE, CreatePolicy, PolicyBranch, simulate
from ...core.models import BranchMode, Inventory, MergerfsBranch, MergerfsPool
from ...core.placement import PlacementRefused, place_jobs, planned_files
from ...core.units import format_bytes
from ..bench.preflight import PROBE_NAME
from ..history.run_sets import RunSetStore
from .network import (
    SKIPPING_REFUSALS,
    ClientRefused,
    NetworkClient,
    check_client,
    client_direct_refused,
    place_client_jobs,
)
from .throwaway_mounts import MEMORY_RESERVE, mem_available

MIB = 1024 * 1024
DEFAULT_MIN_BYTES = 8 * MIB
DEFAULT_MAX_BYTES = 1024 * MIB
DEFAULT_SHARE = 8  # the default job takes at most 1/8 of the smallest free space
DEFAULT_JOB_NAME = "ladder-seqwrite"
# Each rung of the default job lasts this long (time_based): a job bound by its size
# alone ends in well under a second on a cache and measures little but its start.
DEFAULT_RUNTIME = 10
# Buffered (the pool refuses O_DIRECT): an fdatasync every this many 1 MiB writes, so
# the disk sets the pace, not the page cache.
BUFFERED_SYNC_EVERY = 16
# The create policies under which the branches' order is the tiering: the first branch
# (the cache) takes new files while it has minfreespace, then the next (the slow tier).
TIERED_POLICIES = (CreatePolicy.FF, CreatePolicy.EPFF)
TMPFS_MOUNT = "tmpfs"


class LadderRefusalKind(StrEnum):
    NOT_LIVE = "not-live"  # a recording: nothing can run
    NOT_MERGERFS = "not-mergerfs"
    POOL_UNREADABLE = "pool-unreadable"  # its .mergerfs control file did not answer
    BAD_JOB = "bad-job"
    CLIENT = "client"  # the network rung's client: unreachable path, not a mount, fio


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
    role: BranchRole | None = None  # a branch rung's

    @property
    def label(self) -> str:
        return rung_label(self.kind, self.option, self.role)

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
    direct_refused: str | None = None  # the pool's answer to O_DIRECT, when it refused
    drop_caches: bool = False  # before every rung (the buffered default job, as root)
    # the network rung's client (app/ladder/network.py), checked, and its jobs placed
    client: NetworkClient | None = field(default=None, compare=False, repr=False)
    client_jobs: tuple[JobSpec, ...] = ()
    client_note: str | None = None  # about its mount, said before the first rung
    direct_refused_at: str = "the pool"  # who refused O_DIRECT: the pool, or the client

    @property
    def job_line(self) -> str:
        """What every rung runs, in one line (said before the ladder starts)."""
        if self.default_job:
            return default_job_text(
                self.direct_refused,
                self.drop_caches,
                self.runtime,
                self.size or self.jobs[0].size,
                refused_at=self.direct_refused_at,
            )
        job = f"the preset {self.preset}" if self.preset else "the job file's jobs"
        if self.direct_refused is not None and any(j.direct for j in self.jobs):
            job += (
                f"; the pool refuses O_DIRECT ({self.direct_refused}), so its direct=1 "
                "jobs will fail there"
            )
        return job

    def definition(self) -> dict[str, Any]:
        """The run set's definition: what was asked, as JSON values."""
        from ...core.spec_dict import spec_to_dict

        return {
            "schema": LADDER_SCHEMA,
            "pool": self.pool.mountpoint,
            "jobs": [spec_to_dict(job) for job in self.jobs],
            "preset": self.preset,
            "runtime": self.runtime,
            "size": self.size,
            "all_branches": self.all_branches,
            "job": self.job_line,
            "direct_refused": self.direct_refused,
            "branch_roles": {
                r.path: r.role.value for r in self.rungs if r.role is not None and not r.skipped
            },
            "option": None
            if self.option is None
            else {"name": self.option.name, "values": list(self.option.values)},
            "client": None
            if self.client is None
            else {"host": self.client.name, "path": self.client.path},
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


def _placement_of(
    inventory: Inventory, pool: MergerfsPool, size_bytes: int, skip: Sequence[str] = ()
) -> tuple[tuple[str, ...], str | None]:
    """Where the pool's create policy puts a new file (``skip``: branches taken as full),
    or why nowhere."""
    try:
        policy = CreatePolicy(pool.create_policy or "")
    except ValueError:
        return (), f"create policy {pool.create_policy!r} unknown to tierdeck: use --all-branches"
    branches = [_policy_branch(inventory, pool, b) for b in pool.branches if b.path not in skip]
    minfree = DEFAULT_MINFREESPACE if pool.minfreespace_bytes is None else pool.minfreespace_bytes
    placement = simulate(policy, branches, size_bytes, minfree)
    if not placement.candidates:
        why = placement.error.value if placement.error else "no branch"
        return (), f"{policy.value} gives a new file no branch ({why})"
    return placement.candidates, None


def is_tiered(pool: MergerfsPool) -> bool:
    """A cache in front of slow branches: an order-based create policy (the first
    branch takes new files while it has room) over several RW branches."""
    rw = [b for b in pool.branches if b.mode is BranchMode.RW]
    return pool.create_policy in TIERED_POLICIES and len(rw) > 1


def branch_rungs(
    inventory: Inventory, pool: MergerfsPool, size_bytes: int, *, all_branches: bool
) -> tuple[tuple[PlannedRung, ...], str | None]:
    """The branch rungs: the branch the create policy writes a new file to (role
    ``create``), on a tiered pool also the slow branch new files go to once that one is
    full (role ``slow``: the policy asked again with the create branch left out); every
    RW branch with ``all_branches``. Or no rung, and why."""
    created, why_none = _placement_of(inventory, pool, size_bytes)
    tiered = is_tiered(pool)
    if all_branches:
        other = BranchRole.SLOW if tiered else BranchRole.OTHER
        every = tuple(
            PlannedRung(
                RungKind.BRANCH, b.path, role=BranchRole.CREATE if b.path in created else other
            )
            for b in pool.branches
            if b.mode is BranchMode.RW
        )
        return every, None if every else "the pool has no RW branch"
    if not created:
        return (), why_none
    rungs = [PlannedRung(RungKind.BRANCH, path, role=BranchRole.CREATE) for path in created]
    if tiered:
        spill, why_not = _placement_of(inventory, pool, size_bytes, skip=created)
        if spill:
            rungs.append(PlannedRung(RungKind.BRANCH, spill[0], role=BranchRole.SLOW))
        else:
            why = f"no slow branch would take a new file ({why_not})"
            rungs.append(PlannedRung(RungKind.BRANCH, "-", skipped=why, role=BranchRole.SLOW))
    return tuple(rungs), None


def branch_targets(
    inventory: Inventory, pool: MergerfsPool, size_bytes: int, *, all_branches: bool
) -> tuple[tuple[str, ...], str | None]:
    """The branches the branch rungs run on, or why there is none."""
    rungs, why_none = branch_rungs(inventory, pool, size_bytes, all_branches=all_branches)
    return tuple(r.path for r in rungs if r.skipped is None), why_none


def _default_job(size_bytes: int, *, direct: bool) -> JobSpec:
    return JobSpec(
        name=DEFAULT_JOB_NAME,
        rw="write",
        bs="1M",
        ioengine="psync",
        direct=direct,
        size=f"{size_bytes // MIB}M",
        fdatasync=0 if direct else BUFFERED_SYNC_EVERY,
        end_fsync=True,
    )


# Before the plan knows the branches' free space (the menu), how the file is sized.
_DEFAULT_SIZE_TEXT = (
    f"a file of 1/{DEFAULT_SHARE} of the smallest free space "
    f"({DEFAULT_MIN_BYTES // MIB}M to {DEFAULT_MAX_BYTES // MIB // 1024}G)"
)


def default_job_text(
    direct_refused: str | None,
    drop_caches: bool,
    runtime: int | None = DEFAULT_RUNTIME,
    size: str | None = None,
    *,
    refused_at: str = "the pool",
) -> str:
    """The default job in words, as it will run: O_DIRECT, or buffered and why
    (``refused_at``: the pool, or the network rung's client, refused O_DIRECT)."""
    where = f"a file of {size}" if size else _DEFAULT_SIZE_TEXT
    seconds = f"{runtime or DEFAULT_RUNTIME} s per rung on {where}"
    if direct_refused is None:
        return f"sequential 1 MiB writes, O_DIRECT, {seconds}"
    caches = (
        "caches dropped before each rung" if drop_caches else "caches not dropped (that needs root)"
    )
    return (
        f"sequential 1 MiB writes, buffered on every rung because {refused_at} refuses "
        f"O_DIRECT ({direct_refused}): fdatasync every {BUFFERED_SYNC_EVERY} MiB, "
        f"{caches}, {seconds}"
    )


def _default_size(pool: MergerfsPool, targets: Sequence[str]) -> int:
    avails = [b.avail_bytes for b in pool.branches if b.path in targets and b.avail_bytes]
    if pool.avail_bytes:
        avails.append(pool.avail_bytes)
    smallest = min(avails, default=DEFAULT_MIN_BYTES * DEFAULT_SHARE)
    wanted = min(max(smallest // DEFAULT_SHARE, DEFAULT_MIN_BYTES), DEFAULT_MAX_BYTES)
    return wanted // MIB * MIB


def direct_refused(host: Host, pool: MergerfsPool) -> str | None:
    """How the pool answers an O_DIRECT write (a probe file, removed): None when it
    takes it, else its error ("EINVAL: Invalid argument", FUSE on many setups). Any
    other failure is not about O_DIRECT: fio will say it on the rung."""
    failure = host.probe_write(pool.mountpoint, PROBE_NAME, direct=True)
    if failure is None or failure.errno != errno.EINVAL:
        return None
    return f"{errno.errorcode[errno.EINVAL]}: {failure.strerror or 'Invalid argument'}"


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
    client: NetworkClient | None = None,
) -> LadderPlan:
    """The rungs to run on ``pool_mountpoint``; raises LadderRefused. ``jobs`` None (or
    empty): the default job (module docstring). ``client``: a network rung last, from
    that client over its mount of the pool (app/ladder/network.py), checked here."""
    pool = _find_pool(inventory, pool_mountpoint)
    if not (host.capabilities.live and host.capabilities.run_benchmarks):
        raise LadderRefused(LadderRefusalKind.NOT_LIVE, "benchmarks run on a live machine only")
    client_note = None
    if client is not None:
        if option is not None:
            raise LadderRefused(
                LadderRefusalKind.CLIENT,
                "the network rung follows the layer rungs: an option sweep has none",
            )
        try:
            client_note = check_client(client, host, pool.mountpoint)
        except ClientRefused as exc:
            raise LadderRefused(LadderRefusalKind.CLIENT, str(exc)) from exc
    default_job = not jobs
    refused = direct_refused(host, pool)
    refused_at = "the pool"
    if default_job and refused is None and client is not None:
        # like for like: every rung buffered when the client's mount refuses O_DIRECT
        refused = client_direct_refused(client)
        refused_at = f"the client's mount {client.label}"
    drop_caches = False
    if default_job:
        probe_targets, _ = branch_targets(
            inventory, pool, DEFAULT_MIN_BYTES, all_branches=all_branches
        )
        chosen = _default_size(pool, probe_targets)
        jobs = (_default_job(chosen, direct=refused is None),)
        runtime = DEFAULT_RUNTIME if runtime is None else runtime
        # Buffered, a rung would otherwise read what the one before it left in memory.
        drop_caches = refused is not None and host.is_root
    assert jobs is not None
    jobs = tuple(jobs)
    planned = _planned_bytes(jobs, pool, size, runtime)
    rungs: list[PlannedRung] = []
    tmpfs_bytes: int | None = None
    client_jobs: tuple[JobSpec, ...] = ()
    if option is None:
        found, why_none = branch_rungs(inventory, pool, planned or 0, all_branches=all_branches)
        rungs += found or (PlannedRung(RungKind.BRANCH, "-", skipped=why_none),)
        rungs.append(PlannedRung(RungKind.POOL, pool.mountpoint))
        tmpfs_bytes, skip = _tmpfs_skip(host, planned)
        rungs.append(PlannedRung(RungKind.TMPFS, "pool-tmpfs", skipped=skip))
        rungs.append(PlannedRung(RungKind.NULLRW, "pool-nullrw", skipped=skip))
        if client is not None:
            client_jobs, skip = _client_jobs(client, jobs, size, runtime)
            rungs.append(PlannedRung(RungKind.NETWORK, client.label, skipped=skip))
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
        direct_refused=refused,
        drop_caches=drop_caches,
        client=client,
        client_jobs=client_jobs,
        client_note=client_note,
        direct_refused_at=refused_at,
    )


def _client_jobs(
    client: NetworkClient, jobs: Sequence[JobSpec], size: str | None, runtime: int | None
) -> tuple[tuple[JobSpec, ...], str | None]:
    """The jobs placed on the client's mount, or why the rung is skipped (its mount
    refuses O_DIRECT); any other failed check refuses the ladder."""
    try:
        return place_client_jobs(client, with_overrides(jobs, size, runtime)), None
    except BenchRefused as exc:
        if exc.kind in SKIPPING_REFUSALS:
            return (), exc.reason
        raise LadderRefused(LadderRefusalKind.CLIENT, exc.reason) from exc
    except (JobSpecError, PlacementRefused) as exc:
        raise LadderRefused(LadderRefusalKind.BAD_JOB, str(exc)) from exc
