"""Which hosts a ``--clients`` run uses, where each one's test files go, and the checks
made on every host before any server starts.

fio's client and servers must speak the same protocol, which changes between fio
versions: this machine's fio (the client) and every host's are compared, and a
difference is refused naming both versions rather than left to fail mid-run.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...backends.host.seam import Host
from ...core.bench_models import BenchRefused, RefusalKind
from ...core.jobspec import JobSpec
from ...core.placement import place_jobs, planned_files
from .live import FolderPlace, folder_place, share_place

if TYPE_CHECKING:  # the fleet's hosts.toml is read by the CLI; the features stay apart
    from ..fleet.config import FleetHost

THIS_MACHINE = "this machine (the fio client)"


@dataclass(frozen=True)
class ClientSpot:
    """A host by its name (an ssh alias, user@host:port, a fleet name) and the folder
    its test files go in, as that host sees it."""

    name: str
    path: str


def client_spots(
    clients: str | Sequence[str], targets: Sequence[str], *, option: str = "--clients"
) -> list[ClientSpot]:
    """``--clients A,B`` (or the names themselves) with one ``--target PATH`` for all,
    or ``--target HOST:PATH`` for each of them; ``option`` names the hosts' option in
    what is said. Raises ValueError saying what is wrong."""
    names = [n.strip() for n in clients.split(",")] if isinstance(clients, str) else [*clients]
    given = clients if isinstance(clients, str) else ",".join(clients)
    if not all(names):
        raise ValueError(f"{option} {given!r}: an empty host name")
    if len(set(names)) != len(names):
        raise ValueError(f"{option} {given!r}: a host named twice")
    if len(targets) == 1 and targets[0].startswith("/"):
        return [ClientSpot(n, posixpath.normpath(targets[0])) for n in names]
    per_host: dict[str, str] = {}
    for target in targets:
        name, sep, path = target.rpartition(":")
        if not sep or not path.startswith("/"):
            raise ValueError(
                f"--target {target!r}: give one full PATH for every host, or HOST:PATH "
                "for each host"
            )
        if name not in names:
            raise ValueError(f"--target {target!r}: {name} is not one of {option}")
        if name in per_host:
            raise ValueError(f"--target: {name} given twice")
        per_host[name] = posixpath.normpath(path)
    missing = [n for n in names if n not in per_host]
    if missing:
        raise ValueError(f"--target: no path for {', '.join(missing)} (HOST:PATH)")
    return [ClientSpot(n, per_host[n]) for n in names]


def ssh_target(name: str, fleet: Sequence[FleetHost]) -> str:
    """What to connect to for a host of ``--clients``: a fleet host's ssh (hosts.toml)
    under its fleet name, else the name itself (an ssh alias, user@host[:port])."""
    return next((h.ssh for h in fleet if h.name == name), name)


def fio_version(host: Host) -> str:
    """``fio-3.33``, or BenchRefused when fio is missing."""
    from ...core.errors import ToolMissing

    try:
        result = host.run(["fio", "--version"], timeout=20)
    except ToolMissing:
        raise BenchRefused("fio is not installed", kind=RefusalKind.INVALID) from None
    return result.stdout.strip()


def check_versions(versions: dict[str, str]) -> None:
    """Every fio the same version: fio's client/server protocol is versioned with it."""
    distinct = sorted(set(versions.values()))
    if len(distinct) > 1:
        said = ", ".join(f"{name} has {v or 'no version'}" for name, v in versions.items())
        raise BenchRefused(
            f"fio versions differ ({said}): fio's client and servers must be the same "
            "version to talk to each other; install one fio version everywhere",
            kind=RefusalKind.INVALID,
        )


def check_spot(host: Host, spot: ClientSpot, jobs: Sequence[JobSpec]) -> tuple[JobSpec, ...]:
    """The jobs as placed in the host's folder, after checking the folder, its free
    space and O_DIRECT there. Raises BenchRefused naming the host."""
    where = f"{spot.name}:{spot.path}"
    if not host.exists(spot.path):
        raise BenchRefused(f"{where} does not exist on {spot.name}", kind=RefusalKind.INVALID)
    if not host.is_dir(spot.path):
        raise BenchRefused(f"{where} is not a directory", kind=RefusalKind.INVALID)
    placed = place_jobs(jobs, spot.path).jobs
    need = sum(f.size_bytes or 0 for f in planned_files(placed))
    usage = host.statvfs(spot.path)
    if usage.size_bytes and usage.avail_bytes < need:
        raise BenchRefused(
            f"{where}: {usage.avail_bytes} bytes free, the jobs need {need}",
            kind=RefusalKind.NO_SPACE,
        )
    if any(job.direct for job in placed):
        error = host.probe_write(spot.path, ".tierdeck-bench.probe", direct=True)
        if error is not None:
            raise BenchRefused(
                f"{where}: O_DIRECT is not supported there ({error}); add --direct 0",
                kind=RefusalKind.DIRECT_UNSUPPORTED,
            )
    return placed


def check_place(host: Host, spot: ClientSpot) -> FolderPlace:
    """Whether the folder is the host's own mount of a share or a local path (and the
    disks under it, or what shows the share's I/O, for the live view), from that host's
    inventory."""
    from ..machine.inventory import collect_inventory

    place = folder_place(collect_inventory(host), host.realpath(spot.path))
    if place is None:
        raise BenchRefused(
            f"{spot.name}:{spot.path}: no mount holds it on {spot.name}", kind=RefusalKind.INVALID
        )
    return share_place(host, place)
