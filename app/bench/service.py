"""The one place that turns what a user asks for into a stored benchmark result.

plan (presets, job files, overrides: ``bench_preflight.plan_run``) -> run (fio, the disk
sampler and the cache check: ``bench_runner.run_benchmark``) -> save (the history
store), with events to the caller all along (``bench_events``). The CLI, the TUI and
every later feature (sweeps, ladders, compare's re-run) call this, never the steps:

    service = BenchService(host, store=HistoryStore)
    request = service.plan(inventory, BenchAsk(target="/mnt/cache", jobs=preset.jobs))
    result = await service.run(inventory, request, on_event, cancel)

``run_all`` runs a list of asks in turn with one event stream (``StepStarted`` before
each). ``run`` is ``measure`` then ``save``: a sweep calls the two itself, to save a
cell while its next cell starts, with each target's fingerprint read once. The
inventory is always the caller's: a service never collects another one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from ...backends.host import Host
from ...core.bench_models import BenchRefused, EnvFingerprint, RunRequest, RunResult
from ...core.errors import one_line
from ...core.jobspec import JobSpec
from ...core.models import Inventory
from ..history.store import RunStore
from .events import BenchEvent, RunStored, StepStarted, StoreFailed
from .preflight import plan_run
from .runner import run_benchmark

EventSink = Callable[[BenchEvent], None]
StoreFactory = Callable[[], RunStore]


@dataclass(frozen=True)
class BenchAsk:
    """What a user asks for, before any check: a target, jobs (a preset's or a job
    file's), and overrides that apply to every job."""

    target: str
    jobs: tuple[JobSpec, ...]
    preset: str | None = None  # a preset's name: its lay-out and drop-caches flags apply
    size: str | None = None
    runtime: int | None = None  # seconds; makes the jobs time_based
    direct: bool | None = None  # False: the answer to an O_DIRECT refusal
    drop_caches: bool = False
    raw_confirm: str | None = None  # the device name, typed, for raw mode
    name: str | None = None  # shown in the history
    tags: tuple[str, ...] = ()  # stored with the run ("sweep:12", "ladder:3")
    keep_files: bool = False  # leave the test files for the next run (sweeps)


class BenchRunner(Protocol):
    """What a screen that runs a planned request needs: BenchService.run (tests pass
    a replay of recorded events)."""

    async def run(
        self,
        inventory: Inventory,
        request: RunRequest,
        on_event: EventSink,
        cancel: asyncio.Event | None = None,
    ) -> RunResult: ...


@dataclass(frozen=True)
class StepOutcome:
    """One ask of a sequence: its result, or why it was refused before starting."""

    ask: BenchAsk
    result: RunResult | None = None
    refusal: BenchRefused | None = None


class BenchService:
    """Plans, runs and stores benchmarks on one host. ``store`` opens the history
    (``HistoryStore``); None keeps nothing (``--no-save``)."""

    def __init__(self, host: Host, *, store: StoreFactory | None = None) -> None:
        self.host = host
        self._store_factory = store
        self._store: RunStore | None = None

    def open_store(self) -> None:
        """Open the history now, so that a run that could not be kept is refused before
        it starts instead of after ten minutes of fio. Raises HistoryError."""
        if self._store_factory is not None and self._store is None:
            self._store = self._store_factory()

    def plan(self, inventory: Inventory, ask: BenchAsk) -> RunRequest:
        """Every check that can be made before fio starts; raises BenchRefused."""
        return plan_run(
            self.host,
            inventory,
            ask.target,
            ask.jobs,
            preset=ask.preset,
            size=ask.size,
            runtime=ask.runtime,
            direct=ask.direct,
            drop_caches=ask.drop_caches,
            raw_confirm=ask.raw_confirm,
            name=ask.name,
            tags=ask.tags,
            keep_files=ask.keep_files,
        )

    async def run(
        self,
        inventory: Inventory,
        request: RunRequest,
        on_event: EventSink,
        cancel: asyncio.Event | None = None,
    ) -> RunResult:
        """Run to the end (or until ``cancel``), then store the result: its ``id`` is
        the history's, announced with RunStored (StoreFailed if it could not be kept:
        the result is returned all the same). Raises BenchRefused when the target is
        busy."""
        result = await self.measure(inventory, request, on_event, cancel)
        return await self.save(result, on_event)

    async def measure(
        self,
        inventory: Inventory,
        request: RunRequest,
        on_event: EventSink,
        cancel: asyncio.Event | None = None,
        *,
        env: EnvFingerprint | None = None,
    ) -> RunResult:
        """``run`` without storing: a sweep saves a cell while its next cell starts
        (``save``). ``env``: the target's fingerprint, read already."""
        if env is None:
            return await run_benchmark(self.host, inventory, request, on_event, cancel)
        return await run_benchmark(self.host, inventory, request, on_event, cancel, env=env)

    async def run_all(
        self,
        inventory: Inventory,
        asks: Sequence[BenchAsk],
        on_event: EventSink,
        cancel: asyncio.Event | None = None,
    ) -> list[StepOutcome]:
        """Each ask in turn, planned just before it runs (the previous run's files are
        gone by then); a refused ask is recorded and the next one goes on. Stops after
        the run that was cancelled."""
        outcomes: list[StepOutcome] = []
        cancel = cancel or asyncio.Event()
        for index, ask in enumerate(asks):
            if cancel.is_set():
                break
            on_event(StepStarted(index, len(asks), ask.name or ask.target))
            try:
                request = await asyncio.to_thread(self.plan, inventory, ask)
                result = await self.run(inventory, request, on_event, cancel)
            except BenchRefused as refusal:
                outcomes.append(StepOutcome(ask, refusal=refusal))
                continue
            outcomes.append(StepOutcome(ask, result=result))
        return outcomes

    async def save(self, result: RunResult, on_event: EventSink) -> RunResult:
        """Store a measured result (see ``run``); the result with its history id."""
        if self._store_factory is None:
            return result
        try:
            # SQLite must not stall the event loop (the TUI draws on it).
            run_id = await asyncio.to_thread(self._save_blocking, result)
        except Exception as exc:  # noqa: BLE001 - a full disk must not lose the result
            on_event(StoreFailed(one_line(exc)))
            return result
        on_event(RunStored(run_id))
        return replace(result, id=run_id)

    def _save_blocking(self, result: RunResult) -> int:
        self.open_store()
        assert self._store is not None
        return self._store.save(result)
