"""A ``--clients`` run from the names to the result, for the command line and the TUI
alike: every host connected and checked before any server starts (``prepare``), the
run, then the run set stored.

Blocking calls (SSH, the inventories): the TUI calls ``prepare`` in a thread.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...backends.host.seam import Host
from ...backends.host.ssh import SshHost
from ...core.bench_models import RunHost
from ...core.errors import TierdeckError
from ...core.jobspec import JobSpec
from .live import LiveTick, Watched
from .plan import (
    THIS_MACHINE,
    ClientSpot,
    check_place,
    check_spot,
    check_versions,
    fio_version,
    ssh_target,
)
from .run import ClientHost, ClientsResult, existing_test_files, run_clients
from .store import StoredClients

if TYPE_CHECKING:  # hosts.toml is read by the app's callers; the features stay apart
    from ..fleet.config import FleetHost

Opener = Callable[[str], SshHost]  # connects, or raises (TierdeckError) / exits saying why
Say = Callable[[str], None]


@dataclass
class Prepared:
    clients: list[ClientHost] = field(default_factory=list)
    versions: dict[str, str] = field(default_factory=dict)

    @property
    def machines(self) -> dict[str, RunHost]:
        return {c.spot.name: RunHost(c.host.hostname, c.host.identity) for c in self.clients}

    def watched(self) -> dict[str, Watched]:
        """What the live view reads on each host: its disks, or its share's source."""
        return {
            c.spot.name: Watched(
                c.host,
                c.host.identity,
                c.place.disks if c.place else (),
                c.place.watch if c.place else None,
            )
            for c in self.clients
        }

    def close(self) -> None:
        for c in self.clients:
            with contextlib.suppress(Exception):
                c.host.close()


def prepare(
    spots: Sequence[ClientSpot],
    jobs: tuple[JobSpec, ...],
    fleet: Sequence[FleetHost],
    local: Host,
    opener: Opener,
    say: Say,
    prepared: Prepared,
) -> Prepared:
    """Connect and check every host; ``prepared`` collects the connections as they
    open, so that the caller closes them also when a check refuses (BenchRefused)."""
    prepared.versions[THIS_MACHINE] = fio_version(local)
    for spot in spots:
        host = opener(ssh_target(spot.name, fleet))
        prepared.clients.append(ClientHost(spot, host, ()))
        prepared.versions[spot.name] = fio_version(host)
    check_versions(prepared.versions)

    def check(c: ClientHost) -> None:
        c.jobs = check_spot(c.host, c.spot, jobs)
        c.place = check_place(c.host, c.spot)
        c.before = existing_test_files(c.host, c.spot.path)

    # every host's checks at once (its inventory is a few round trips over its own
    # connection); a refusal is said for the first host in --clients order
    with ThreadPoolExecutor(max_workers=len(prepared.clients) or 1) as pool:
        checks = [pool.submit(check, c) for c in prepared.clients]
    for c, done in zip(prepared.clients, checks, strict=True):
        done.result()
        assert c.place is not None
        say(f"{c.spot.name}: {c.spot.path} is {c.place.describe()}")
        if c.place.watch is not None:
            say(f"{c.spot.name}: its live line is {c.place.watch.describe()}")
        elif c.place.shared or not c.place.disks:
            say(f"{c.spot.name}: nothing of its own to watch live; fio's figures come at the end")
    return prepared


@dataclass(frozen=True)
class Outcome:
    """A finished run, and its run set once stored (None: not stored, ``store_error``)."""

    result: ClientsResult
    stored: StoredClients | None
    store_error: str | None = None


async def run_session(
    spots: Sequence[ClientSpot],
    jobs: tuple[JobSpec, ...],
    preset: str | None,
    opener: Opener,
    say: Say,
    on_tick: Callable[[LiveTick], None],
    cancel: asyncio.Event,
    load_fleet: Callable[[], Sequence[FleetHost]],
) -> Outcome:
    """The whole run for the TUI: connect and check (in a thread), run, store (in a
    thread). Raises BenchRefused or TierdeckError before any server starts.
    ``load_fleet`` reads hosts.toml (the app's, passed in: the features stay apart)."""
    from ...backends.host import LiveHost
    from .store import store_clients

    local = LiveHost()
    prepared = Prepared()
    try:
        fleet = await asyncio.to_thread(load_fleet)
        await asyncio.to_thread(prepare, spots, jobs, fleet, local, opener, say, prepared)
        result = await run_clients(
            prepared.clients, local, cancel, say, on_tick, prepared.watched()
        )
    finally:
        await asyncio.to_thread(prepared.close)
    title = f"{preset or 'job'} from " + ", ".join(s.name for s in spots)

    def store() -> StoredClients:
        from ..history.run_sets import RunSetStore

        return store_clients(
            RunSetStore(), result, jobs, preset=preset, name=title,
            machines=prepared.machines, fio_version=prepared.versions[THIS_MACHINE],
        )  # fmt: skip

    try:
        stored = await asyncio.to_thread(store)
    except (TierdeckError, OSError) as exc:
        return Outcome(result, None, str(exc))
    return Outcome(result, stored)


def connect(target: str) -> SshHost:
    """A host connected and logged in, or TierdeckError saying why (no prompt: the
    TUI has no terminal to ask on; keys and agents are used as ssh would)."""
    from ...backends.host.ssh import BadTarget

    try:
        host = SshHost(target)
    except BadTarget as exc:
        raise TierdeckError(str(exc)) from None
    try:
        host.facts  # noqa: B018 - connect now, so that a refusal comes before any work
    except TierdeckError:
        host.close()
        raise
    return host
