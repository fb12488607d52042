"""A ``--clients`` run from the names to the result, for the command line and the TUI
alike: every host connected and checked before any server starts (``prepare``), the
run, then the run set stored.

Blocking calls (SSH, the inventories): the TUI calls ``prepare`` in a thread.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ...backends.host.seam import Host
from ...backends.host.ssh import SshHost
from ...core.bench_models import RunHost
from ...core.jobspec import JobSpec
from ..fleet.config import FleetHost
from .live import Watched
from .plan import (
    THIS_MACHINE,
    ClientSpot,
    check_place,
    check_spot,
    check_versions,
    fio_version,
    ssh_target,
)
from .run import ClientHost, existing_test_files

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
        """The hosts whose disks the live view reads (those on a share have none)."""
        return {
            c.spot.name: Watched(c.host, c.host.identity, c.place.disks if c.place else ())
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
    for c in prepared.clients:
        c.jobs = check_spot(c.host, c.spot, jobs)
        c.place = check_place(c.host, c.spot)
        say(f"{c.spot.name}: {c.spot.path} is {c.place.describe()}")
        if c.place.shared or not c.place.disks:
            say(f"{c.spot.name}: no disk of its own to watch live; fio's figures come at the end")
        c.before = existing_test_files(c.host, c.spot.path)
    return prepared
