"""Run a sweep: every cell one ordinary benchmark, through the BenchService.

Entry points (the CLI, ``tierdeck bench sweep``, and the sweep view call these):

    plan = plan_sweep(host, inventory, spec, target=None, runtime=None, size=None,
                      resume=None, store=None)       # raises SweepRefused(kind, reason)
    result = await run_sweep(service, inventory, plan, on_event, cancel)  # SweepResult

``plan_sweep`` checks everything before anything runs: each cell's jobs (a bad value
names its cell), each cell's preflight (target, space, O_DIRECT ...), and every cell's
options with the real ``fio --parse-only`` in one call. It then creates the run set in
the history (kind sweep; the definition is the spec plus the command line's settings),
or with ``resume=ID`` loads that set, refuses it when the definition differs, and
plans only the missing cells (no run, a run that is not ok, or a deleted run).
``SweepPlan.cells`` is every cell, ``to_run`` the missing ones, ``set_id`` the set.

``run_sweep`` runs the missing cells in order. Each is a BenchAsk named
``"<sweep name> [numjobs=2 bs=4k]"``, tagged ``sweep:<id>``, planned again just before
it runs (its whole preflight: free space, O_DIRECT probe, files, busy target), and
recorded as the cell's run (``RunSetStore.add_cell``). Events
(``app/sweep/events.py``): ``SweepCellStarted`` (k of n, the whole sweep's ETA: the
median cell so far times the cells left, or the jobs' own runtimes before that), every
BenchEvent of the live run unchanged, ``SweepCellDone``. Cancelling stops the running
cell (the runner stops fio) and runs no more: the set stays resumable. A failed cell
does not stop the sweep.

Between two cells only the next cell's preflight runs (bench/sweep.py measures the
gap): a cell is saved to the history (``RunStored``, then ``add_cell``, then
``SweepCellDone``) while the next cell starts, one save at a time, in order, all of
them done before ``run_sweep`` returns (also on cancel or error). So a cell's
``RunStored``/``SweepCellDone`` may come after the next cell's ``SweepCellStarted``.
The environment fingerprint (fio's version, mount and mergerfs options, ZFS
properties) is read once per target by ``plan_sweep``, beside ``fio --parse-only``
(``SweepPlan.envs``); a cell whose target resolves differently reads its own.

Test files: the job names stay the same from cell to cell, so consecutive cells that
plan the same files (same names and sizes: same numjobs, nrfiles, size) find them in
place, as plain fio run twice in one directory does: fio then skips laying them out
(a read cell reads what the previous one wrote). Files the next cell does not plan are
removed before it starts; at the end, also after a failure or a cancel, every file any
cell plans is removed.
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from ...backends.host import Host
from ...core.bench_models import (
    BenchRefused,
    BenchTarget,
    EnvFingerprint,
    RunRequest,
    RunResult,
    RunStatus,
)
from ...core.errors import TierdeckError
from ...core.jobspec import expected_seconds
from ...core.models import Inventory
from ...core.sweep.model import TARGETS_AXIS, Axis, CellResult, SweepCell, SweepResult, SweepSpec
from ..bench.events import BenchEvent, Notice
from ..bench.fingerprint import fingerprint
from ..bench.fio_commands import test_files
from ..bench.service import BenchAsk, BenchService
from ..history.run_sets import RunSetKind, RunSetStore, set_tag
from ..history.store import HistoryError
from .cells import SweepRefusalKind, SweepRefused, cell_jobs, cell_target, check_with_fio
from .events import SweepCellDone, SweepCellStarted, SweepEvent
from .store import SweepNotFound, SweepSettings, definition_of, differences, result_of, sweep_set

__all__ = ["SweepPlan", "SweepRefusalKind", "SweepRefused", "plan_sweep", "run_sweep"]

SweepSink = Callable[[SweepEvent], object]  # what it returns is ignored
# tierdeck's own time around each fio run (preflight, fingerprint, cleanup, saving):
# added to the jobs' runtimes for the ETA before any cell has finished.
_CELL_OVERHEAD_S = 1.0


@dataclass(frozen=True)
class PlannedCell:
    cell: SweepCell
    ask: BenchAsk  # without the set's tag (the set may not exist yet)
    files: tuple[tuple[str, int | None], ...]  # what its fio creates: path, bytes
    expected_s: float | None  # the jobs' runtimes; None when size-bound


@dataclass(frozen=True)
class SweepPlan:
    set_id: int | None  # None only for a dry run (no set created)
    spec: SweepSpec
    cells: tuple[SweepCell, ...]  # every cell, in order
    to_run: tuple[SweepCell, ...]  # the missing ones, in order
    name: str
    settings: SweepSettings
    planned: tuple[PlannedCell, ...] = field(default=(), hash=False)  # to_run's, in order
    store: RunSetStore | None = field(default=None, compare=False, hash=False)
    resumed: bool = False
    # each target's environment fingerprint, read while planning (not for a dry run)
    envs: Mapping[BenchTarget, EnvFingerprint] = field(
        default_factory=dict, compare=False, hash=False
    )

    @property
    def target(self) -> str | None:
        """The one target of every cell; None when a targets axis gives several."""
        if any(a.name == TARGETS_AXIS for a in self.spec.axes):
            return None
        return self.settings.target or self.spec.target


def with_targets(spec: SweepSpec, targets: Sequence[str]) -> SweepSpec:
    """``--target`` given more than once: the targets axis, replacing the file's
    (first, so that each target's cells run one after another), or added."""
    axes = [a for a in spec.axes if a.name != TARGETS_AXIS]
    where = next((i for i, a in enumerate(spec.axes) if a.name == TARGETS_AXIS), 0)
    axes.insert(where, Axis(TARGETS_AXIS, tuple(dict.fromkeys(targets))))
    return replace(spec, axes=tuple(axes), target=None)


def sweep_name(spec: SweepSpec) -> str:
    return spec.name or "sweep of " + " x ".join(a.name for a in spec.axes)


def plan_sweep(
    host: Host,
    inventory: Inventory,
    spec: SweepSpec,
    *,
    target: str | None = None,
    runtime: int | None = None,
    size: str | None = None,
    resume: int | None = None,
    store: RunSetStore | None = None,
    dry_run: bool = False,
) -> SweepPlan:
    """Check every cell and create (or reopen) the run set; raises SweepRefused."""
    _check_settings(spec, target, runtime, size)
    settings = SweepSettings(target, runtime, size)
    definition = definition_of(spec, settings)
    name = sweep_name(spec)
    store = _open(store)
    done: SweepResult | None = None
    if resume is not None:
        done = _resumed(store, resume, definition, spec)
    to_run = done.missing if done is not None else spec.cells()
    planned, envs = _plan_cells(
        host, inventory, spec, settings, name, to_run, fingerprints=not dry_run
    )
    set_id = resume
    if set_id is None and not dry_run:
        try:
            set_id = store.create(RunSetKind.SWEEP, name, definition)
        except HistoryError as exc:
            raise SweepRefused(SweepRefusalKind.STORE, str(exc)) from exc
    return SweepPlan(
        set_id=set_id,
        spec=spec,
        cells=spec.cells(),
        to_run=to_run,
        name=name,
        settings=settings,
        planned=planned,
        store=store,
        resumed=resume is not None,
        envs=envs,
    )


def _check_settings(
    spec: SweepSpec, target: str | None, runtime: int | None, size: str | None
) -> None:
    names = {a.name for a in spec.axes}
    if target is not None and TARGETS_AXIS in names:
        raise SweepRefused(
            SweepRefusalKind.TARGET,
            "the sweep has a targets axis: give --target once per target to replace it",
        )
    for option, value in (("runtime", runtime), ("size", size)):
        if value is not None and option in names:
            raise SweepRefused(
                SweepRefusalKind.FILE,
                f"--{option} would override the sweep's {option} axis in every cell",
            )


def _open(store: RunSetStore | None) -> RunSetStore:
    try:
        return store if store is not None else RunSetStore()
    except HistoryError as exc:
        raise SweepRefused(SweepRefusalKind.STORE, str(exc)) from exc


def _resumed(
    store: RunSetStore, set_id: int, definition: dict[str, object], spec: SweepSpec
) -> SweepResult:
    try:
        run_set = sweep_set(store, set_id)
        differ = differences(run_set.definition, definition)
        if differ:
            raise SweepRefused(
                SweepRefusalKind.RESUME,
                f"sweep #{set_id} was started from a different definition "
                f"({', '.join(differ)} differ): resume it with the same file and options",
            )
        return result_of(store, set_id, spec)
    except (SweepNotFound, HistoryError) as exc:
        raise SweepRefused(SweepRefusalKind.RESUME, str(exc)) from exc


def _plan_cells(
    host: Host,
    inventory: Inventory,
    spec: SweepSpec,
    settings: SweepSettings,
    name: str,
    cells: Sequence[SweepCell],
    *,
    fingerprints: bool,
) -> tuple[tuple[PlannedCell, ...], dict[BenchTarget, EnvFingerprint]]:
    service = BenchService(host)  # planning only: nothing is stored
    planned: list[PlannedCell] = []
    requests = []
    for cell in cells:
        ask = BenchAsk(
            target=cell_target(spec, cell, settings.target),
            jobs=cell_jobs(spec, cell),
            preset=spec.preset,
            size=settings.size,
            runtime=settings.runtime,
            name=f"{name} [{cell.label}]",
            keep_files=True,
        )
        try:
            request = service.plan(inventory, ask)
        except BenchRefused as exc:
            raise SweepRefused(
                SweepRefusalKind.PLAN, f"sweep cell {cell.label}: {exc.reason}"
            ) from exc
        except TierdeckError as exc:
            raise SweepRefused(SweepRefusalKind.CELL, f"sweep cell {cell.label}: {exc}") from exc
        sizes = tuple(f.size_bytes for f in request.files)
        files = tuple(zip(test_files(request), sizes, strict=True))
        seconds = expected_seconds(request.jobs)
        expected = None if seconds is None else seconds + _CELL_OVERHEAD_S
        planned.append(PlannedCell(cell, ask, files, expected))
        requests.append((cell, request))
    targets = list(dict.fromkeys(r.target for _, r in requests)) if fingerprints else []
    # Both only read the machine (fio --version, zfs get, fio --parse-only): side by
    # side, before any cell runs, rather than before every cell.
    with ThreadPoolExecutor(max_workers=max(1, len(targets))) as pool:
        reading = {t: pool.submit(_fingerprint, host, inventory, t) for t in targets}
        check_with_fio(host, requests)
        envs = {t: f.result() for t, f in reading.items()}
    return tuple(planned), {t: e for t, e in envs.items() if e is not None}


def _fingerprint(host: Host, inventory: Inventory, target: BenchTarget) -> EnvFingerprint | None:
    try:
        return fingerprint(host, inventory, target)
    except (TierdeckError, OSError):
        return None  # the runner reads it again and says what is missing


# --------------------------------------------------------------------------- running


def _eta(durations: Sequence[float], left: Sequence[PlannedCell]) -> float | None:
    if durations:
        return statistics.median(durations) * len(left)
    expected = [p.expected_s for p in left]
    if any(e is None for e in expected):
        return None
    return float(sum(e for e in expected if e is not None))


async def run_sweep(
    service: BenchService,
    inventory: Inventory,
    plan: SweepPlan,
    on_event: SweepSink,
    cancel: asyncio.Event | None = None,
) -> SweepResult:
    """Run the plan's missing cells (see the module's docstring); the whole sweep back,
    cells run before a resume included."""
    if plan.set_id is None or plan.store is None:
        raise ValueError("a dry run's plan cannot run")
    cancel = cancel or asyncio.Event()
    store, set_id = plan.store, plan.set_id
    tag = set_tag(RunSetKind.SWEEP, set_id)
    kept: dict[str, int | None] = {}
    durations: list[float] = []
    total = len(plan.planned)
    saving: asyncio.Task[None] | None = None

    def passed_through(event: BenchEvent) -> None:
        on_event(event)

    async def record(cell: SweepCell, result: RunResult, before: asyncio.Task[None] | None) -> None:
        if before is not None:
            await before  # one save at a time, in the cells' order
        stored = await service.save(result, passed_through)
        if stored.id is not None:
            await asyncio.to_thread(store.add_cell, set_id, cell.key, stored.id, cell.index)
        status = RunStatus(stored.status).value
        on_event(SweepCellDone(CellResult(cell, stored.id, status, dict(stored.summary))))

    try:
        for position, item in enumerate(plan.planned, start=1):
            if cancel.is_set():
                break
            cell = item.cell
            eta = _eta(durations, plan.planned[position - 1 :])
            on_event(SweepCellStarted(cell.index, position, total, cell, eta))
            wanted = dict(item.files)
            stale = [p for p, size in kept.items() if p not in wanted or wanted[p] != size]
            try:
                request = await asyncio.to_thread(
                    _prepare, service, inventory, replace(item.ask, tags=(tag,)), stale
                )
                env = plan.envs.get(request.target)
                result = await service.measure(inventory, request, passed_through, cancel, env=env)
            except BenchRefused as exc:
                on_event(Notice(f"sweep cell {cell.label} refused: {exc.reason}"))
                on_event(SweepCellDone(CellResult(cell), refusal=exc.reason))
                continue
            kept = wanted if result.status is RunStatus.OK else {}
            if result.finished_at is not None:
                durations.append(result.finished_at - result.started_at)
            if saving is not None and saving.done():
                saving.result()  # the history failed (add_cell): stop here, as it would inline
            saving = asyncio.create_task(record(cell, result, saving))
    finally:
        try:
            if saving is not None:
                await saving
        finally:
            every = list(dict.fromkeys(p for item in plan.planned for p, _ in item.files))
            await asyncio.to_thread(_remove, service.host, every)
    return await asyncio.to_thread(result_of, store, set_id, plan.spec)


def _prepare(
    service: BenchService, inventory: Inventory, ask: BenchAsk, stale: Sequence[str]
) -> RunRequest:
    """The previous cell's files this one does not reuse removed, then its preflight
    (one worker-thread hop: this is the gap between two cells)."""
    _remove(service.host, stale)
    return service.plan(inventory, ask)


def _remove(host: Host, paths: Sequence[str]) -> None:
    for path in paths:
        # gone already, or its filesystem with it: nothing more to do
        with contextlib.suppress(OSError, TierdeckError):
            host.remove(path)
