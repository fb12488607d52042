"""The layer-penalty ladder: one job on each layer of a mergerfs pool, and the option sweep.

Entry points (the CLI, ``bench ladder``, and the TUI's ladder view call these, nothing
below them)::

    plan = plan_ladder(host, inventory, "/mnt/pool", jobs, preset=None,
                       all_branches=False, option=None, runtime=None, size=None,
                       store=RunSetStore())          # raises LadderRefused
    result = await run_ladder(service, inventory, plan, on_event, cancel)

``run_ladder`` sends ``RungStarted``/``RungDone`` (app/ladder/events.py) around every
BenchEvent of each rung's run, passed through unchanged. It returns a
``core.ladder.LadderResult`` with the penalties filled (``with_penalties``);
``core.ladder.diagnose`` gives its line. With a ``store`` the ladder is a run set
(kind LADDER) and every rung's run is tagged ``ladder:<id>``; without one (``--no-save``)
nothing is kept.

The rungs, in order: ``branch`` (the branch the pool's create policy gives a new file,
from ``core/mergerfs_policy.simulate`` on the inventory's branch facts; a random policy
gives each branch it may pick; on a tiered pool, ff or epff over several RW branches,
also ``slow``: the branch the policy picks once the first is full; every RW branch with
``all_branches``), ``pool`` (measured against the branch the policy writes to), then
``tmpfs`` and ``nullrw``: throwaway pools (app/ladder/throwaway_mounts.py) with the pool's own
options over one tmpfs sized to the job, the second with ``nullrw=true``. Their
``minfreespace`` is 0: with one branch it decides nothing, and the pool's (4G by
default) would not fit a tmpfs sized to the job. With ``option`` the rungs are the pool
as mounted, then one throwaway pool of the same branches (modes kept) per value. With a
client (``bench ladder --client HOST --client-path PATH``) the last rung is
``network``: the same job from that machine over its mount of the pool, on fio's
client/server mode (app/ladder/network.py), measured against the pool.

A rung that cannot run is a ``Rung`` with ``skipped`` (O_DIRECT refused through FUSE or
tmpfs, no room in RAM for the tmpfs, no room on a branch, a mount that failed, a fio
failure); the others still run. A cancel stops the rung in progress (fio stopped, its
files removed) and skips the rest; throwaway mounts are gone on return, whatever
happened.

The default job (neither preset nor job file): sequential 1 MiB writes, O_DIRECT, one
job, iodepth 1, ``end_fsync``, time_based for ``DEFAULT_RUNTIME`` seconds per rung
(``runtime`` changes it) over a file of an eighth of the smallest free space among the
real rungs' targets, between 8 MiB and 1 GiB. When the pool refuses O_DIRECT (FUSE on
many setups) every rung runs it buffered instead, so the rungs stay comparable, with an
fdatasync every 16 MiB and, as root, caches dropped before each rung; the plan's
``job_line`` says so, the ladder sends it as its first Notice, and the result keeps it.
"""

from __future__ import annotations

import asyncio
from contextlib import ExitStack
from dataclasses import replace

from ...backends.mounts import read_mounts
from ...core.bench_models import BenchRefused, RefusalKind, RunStatus
from ...core.errors import one_line
from ...core.ladder.model import LadderResult, Rung, RungKind, bandwidth_spread, with_penalties
from ...core.ladder.options import branches_arg
from ...core.models import BranchMode, Inventory, MergerfsBranch, MergerfsPool
from ..bench.events import Notice
from ..bench.service import BenchAsk, BenchService
from ..history.run_sets import RunSetKind, set_tag
from .events import LadderEventSink, RungDone, RungStarted
from .network import run_network_rung
from .plan import (
    TMPFS_MOUNT,
    LadderPlan,
    LadderRefusalKind,
    LadderRefused,
    PlannedRung,
    plan_ladder,
)
from .throwaway_mounts import Throwaway, ThrowawayError

__all__ = [
    "LadderPlan",
    "LadderRefusalKind",
    "LadderRefused",
    "PlannedRung",
    "plan_ladder",
    "run_ladder",
]

# --------------------------------------------------------------------------- running


def _pool_branches_text(pool: MergerfsPool) -> str:
    given = pool.options.get("branches")
    if given:
        return given
    return ":".join(f"{b.path}={b.mode.value}" for b in pool.branches)


class _Ladder:
    """One run of a plan: the throwaway root (entered at the first throwaway rung) and
    the run set."""

    def __init__(
        self,
        service: BenchService,
        inventory: Inventory,
        plan: LadderPlan,
        on_event: LadderEventSink,
        cancel: asyncio.Event,
        stack: ExitStack,
    ) -> None:
        self.service = service
        self.host = service.host
        self.inventory = inventory
        self.plan = plan
        self.on_event = on_event
        self.cancel = cancel
        self.stack = stack
        self.throwaway: Throwaway | None = None
        self.tmpfs: str | None = None
        self.set_id: int | None = None

    def _root(self) -> Throwaway:
        if self.throwaway is None:
            self.throwaway = self.stack.enter_context(Throwaway(self.host))
        return self.throwaway

    def _mount(self, planned: PlannedRung) -> tuple[str, Inventory]:
        """Mount a throwaway rung's pool; its path and the inventory that knows it."""
        root = self._root()
        options = self.plan.mount_options
        if planned.kind is RungKind.OPTION:
            assert planned.option is not None
            options = options.with_option(*planned.option)
            branches_text = _pool_branches_text(self.plan.pool)
            pool = replace(self.plan.pool, fsname="tierdeck-throwaway")
        else:
            if self.tmpfs is None:
                assert self.plan.tmpfs_bytes is not None
                self.tmpfs = root.mount_tmpfs(TMPFS_MOUNT, self.plan.tmpfs_bytes)
            nullrw = "true" if planned.kind is RungKind.NULLRW else "false"
            options = options.with_option("minfreespace", "0").with_option("nullrw", nullrw)
            branches_text = branches_arg([self.tmpfs])
            branch = MergerfsBranch(self.tmpfs, BranchMode.RW, 0)
            pool = replace(self.plan.pool, branches=(branch,), minfreespace_bytes=0)
        path = root.mount_mergerfs(planned.path, branches_text, options)
        mounts, _ = read_mounts(self.host)
        pool = replace(pool, mountpoint=path)
        inventory = replace(
            self.inventory, mounts=mounts, mergerfs=(*self.inventory.mergerfs, pool)
        )
        return path, inventory

    async def rung(self, index: int, planned: PlannedRung) -> Rung:
        skipped = Rung(planned.kind, planned.path, option=planned.option, role=planned.role)
        total = len(self.plan.rungs)
        if planned.skipped is not None or self.cancel.is_set():
            self.on_event(RungStarted(index, total, planned.kind, planned.path, planned.label))
            return replace(skipped, skipped=planned.skipped or "cancelled before it started")
        path, inventory = planned.path, self.inventory
        throwaway = planned.kind in (RungKind.TMPFS, RungKind.NULLRW, RungKind.OPTION)
        if throwaway:
            try:
                path, inventory = await asyncio.to_thread(self._mount, planned)
            except ThrowawayError as exc:
                self.on_event(RungStarted(index, total, planned.kind, planned.path, planned.label))
                return replace(skipped, skipped=exc.reason)
        self.on_event(RungStarted(index, total, planned.kind, path, planned.label))
        if planned.kind is RungKind.NETWORK:
            return await self._network(planned)
        try:
            return await self._measure(planned, path, inventory)
        finally:
            if throwaway and self.throwaway is not None:
                await asyncio.to_thread(self.throwaway.unmount, path)

    async def _measure(self, planned: PlannedRung, path: str, inventory: Inventory) -> Rung:
        base = Rung(planned.kind, path, option=planned.option, role=planned.role)
        ask = BenchAsk(
            target=path,
            jobs=self.plan.jobs,
            preset=self.plan.preset,
            size=self.plan.size,
            runtime=self.plan.runtime,
            drop_caches=self.plan.drop_caches,
            name=f"ladder {planned.label} of {self.plan.pool.mountpoint}",
            tags=() if self.set_id is None else (set_tag(RunSetKind.LADDER, self.set_id),),
        )
        try:
            request = await asyncio.to_thread(self.service.plan, inventory, ask)
        except BenchRefused as refusal:
            return replace(base, skipped=_refusal_text(refusal))
        result = await self.service.run(inventory, request, self.on_event, self.cancel)
        status = RunStatus(result.status)
        if status is RunStatus.CANCELLED:
            return replace(base, run_id=result.id, skipped="cancelled")
        if status is RunStatus.FAILED:
            return replace(
                base, run_id=result.id, skipped=f"fio failed: {result.error or 'no message'}"
            )
        spread = bandwidth_spread(result.summary, result.series)
        return replace(base, run_id=result.id, summary=dict(result.summary), spread_pct=spread)

    async def _network(self, planned: PlannedRung) -> Rung:
        assert self.plan.client is not None
        return await run_network_rung(
            self.plan.client,
            self.plan.client_jobs,
            Rung(planned.kind, planned.path),
            name=f"ladder network of {self.plan.pool.mountpoint} from {planned.path}",
            preset=self.plan.preset,
            tags=() if self.set_id is None else (set_tag(RunSetKind.LADDER, self.set_id),),
            store=self.plan.store,
            on_event=self.on_event,
            cancel=self.cancel,
        )

    def record(self, position: int, planned: PlannedRung, rung: Rung) -> None:
        if self.plan.store is not None and self.set_id is not None:
            note = rung.skipped if rung.run_id is None else None
            self.plan.store.add_cell(self.set_id, planned.key, rung.run_id, position, note)


def _refusal_text(refusal: BenchRefused) -> str:
    if refusal.kind is RefusalKind.DIRECT_UNSUPPORTED:
        return "O_DIRECT refused here (FUSE or tmpfs answers EINVAL): run a job with direct=0"
    return one_line(refusal)


async def run_ladder(
    service: BenchService,
    inventory: Inventory,
    plan: LadderPlan,
    on_event: LadderEventSink,
    cancel: asyncio.Event | None = None,
) -> LadderResult:
    """Every rung in turn; see the module docstring. Throwaway mounts are gone when
    this returns or raises."""
    cancel = cancel or asyncio.Event()
    rungs: list[Rung] = []
    with ExitStack() as stack:
        ladder = _Ladder(service, inventory, plan, on_event, cancel, stack)
        if plan.store is not None:
            name = f"ladder of {plan.pool.mountpoint}"
            store = plan.store
            ladder.set_id = await asyncio.to_thread(
                store.create, RunSetKind.LADDER, name, plan.definition()
            )
        on_event(Notice(f"every rung runs {plan.job_line}"))
        if plan.client_note is not None:
            on_event(Notice(plan.client_note))
        for index, planned in enumerate(plan.rungs):
            rung = await ladder.rung(index, planned)
            if rung.skipped is not None and planned.skipped is None and rung.run_id is None:
                on_event(Notice(f"{planned.label}: skipped: {rung.skipped}"))
            await asyncio.to_thread(ladder.record, index, planned, rung)
            on_event(RungDone(rung))
            rungs.append(rung)
    return LadderResult(
        ladder.set_id,
        plan.pool.mountpoint,
        with_penalties(rungs),
        job=plan.job_line,
        direct_refused=plan.direct_refused,
    )
