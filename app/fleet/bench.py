"""One benchmark on several machines of the fleet, to set them side by side
(``bench run --hosts all``): on each host in turn, or on all at once (``parallel``).

Each host's run is what ``tierdeck --host NAME bench run`` makes: its inventory read
over SSH, the preflight there, fio spawned there (its watcher stops it when the link
drops), the result stored in this machine's history with that machine as its host. A
host that cannot be reached, whose checks refuse the run, or that drops mid-run fails
alone with its reason; the others go on. A cancel stops the run in progress (in
parallel: every run) and skips the hosts not started yet.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ...backends.host.seam import Host
from ...core.bench_models import BenchRefused, RunResult, RunStatus
from ...core.errors import TierdeckError, one_line
from ..bench.service import BenchAsk, BenchService, StoreFactory
from ..clients.plan import ClientSpot
from ..machine.inventory import collect_inventory


@dataclass(frozen=True)
class HostBench:
    """One host's outcome: its run (ok, failed or cancelled), or none and why."""

    spot: ClientSpot
    result: RunResult | None
    error: str | None  # None: the run went through (its status says how)
    started_at: float

    @property
    def ok(self) -> bool:
        return self.result is not None and RunStatus(self.result.status) is RunStatus.OK


HostEvents = Callable[[ClientSpot, Any], None]  # a BenchEvent, HostStarted or HostDone


@dataclass(frozen=True)
class HostStarted:
    index: int  # 0-based, in the order given
    total: int


@dataclass(frozen=True)
class HostDone:
    outcome: HostBench


def named(name: str, text: str) -> str:
    """``NAME: text``, the host's name said once (a connection's errors name it already)."""
    return text if text.startswith(f"{name}:") else f"{name}: {text}"


def partial(outcomes: Sequence[HostBench]) -> bool:
    return any(not o.ok for o in outcomes)


async def bench_hosts(
    spots: Sequence[ClientSpot],
    connect: Callable[[ClientSpot], Host],
    ask: Callable[[ClientSpot], BenchAsk],
    *,
    parallel: bool,
    store: StoreFactory | None,
    on_event: HostEvents,
    cancel: asyncio.Event,
) -> list[HostBench]:
    """Every host's outcome, in the order given (see the module docstring)."""

    async def one(index: int, spot: ClientSpot) -> HostBench:
        started = time.time()
        if cancel.is_set():
            return HostBench(spot, None, "cancelled before it started", started)
        on_event(spot, HostStarted(index, len(spots)))
        outcome = await _bench_one(spot, connect, ask(spot), store, on_event, cancel, started)
        on_event(spot, HostDone(outcome))
        return outcome

    if parallel:
        return list(await asyncio.gather(*(one(i, s) for i, s in enumerate(spots))))
    return [await one(i, s) for i, s in enumerate(spots)]


async def _bench_one(
    spot: ClientSpot,
    connect: Callable[[ClientSpot], Host],
    ask: BenchAsk,
    store: StoreFactory | None,
    on_event: HostEvents,
    cancel: asyncio.Event,
    started: float,
) -> HostBench:
    host: Host | None = None
    try:
        host = await asyncio.to_thread(connect, spot)
        inventory = await asyncio.to_thread(collect_inventory, host)
        service = BenchService(host, store=store)
        request = await asyncio.to_thread(service.plan, inventory, ask)
        result = await service.run(inventory, request, lambda e: on_event(spot, e), cancel)
    except BenchRefused as exc:
        return HostBench(spot, None, named(spot.name, f"refused: {exc.reason}"), started)
    except (TierdeckError, OSError) as exc:
        return HostBench(spot, None, named(spot.name, one_line(exc)), started)
    finally:
        if host is not None:  # a remote host keeps its connection until closed
            closing = getattr(host, "close", None)
            if closing is not None:
                with contextlib.suppress(Exception):
                    await asyncio.to_thread(closing)
    error = None
    if RunStatus(result.status) is RunStatus.FAILED:
        error = named(spot.name, f"the run failed: {result.error or 'no message from fio'}")
    return HostBench(spot, result, error, started)
