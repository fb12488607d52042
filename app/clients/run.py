"""A ``--clients`` run: fio's servers started on every host over SSH, one local fio
client driving them all, the result split by host, every server stopped and every
test file removed afterwards.

No fio port is ever open on a network: each server listens on its host's loopback
(``--server=ip:127.0.0.1,PORT``) and the client reaches it through an SSH port forward
of that host's kept connection. The server runs under the SSH watcher of
``Host.spawn``, so a dropped connection stops it on the host as well.

A host lost mid-run (its connection, its server) fails alone: fio's client drops that
server and goes on with the others, whose results are kept; the set is then partial.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...backends.fio.client_stats import ClientReports, read_client_report
from ...backends.fio.histograms import merge_bins, percentile_from_bins
from ...backends.host.seam import Host, HostProcess
from ...backends.host.ssh import SshHost
from ...core.bench_models import DirectionSummary, RunStatus
from ...core.errors import ParseError, TierdeckError
from ...core.fio_models import Direction, FioReport
from ...core.jobspec import BENCH_FILE_PREFIX, JobSpec, jobfile_text
from ...core.placement import planned_files
from ..bench.fio_outcome import run_summary
from ..bench.runner import remove_files, stop_process
from .live import FolderPlace, LiveTick, Watched, watch
from .plan import ClientSpot

# Where the client reaches every server from (the forward's far end), which fio's
# server also puts in front of every file name it makes for that client.
CLIENT_ADDRESS = "127.0.0.1"
SERVER_START_S = 10.0  # a server that does not listen by then is reported as failed
_PORTS = (20000, 60999)


@dataclass
class ClientHost:
    """One host of the run: its connection, its jobs (placed in its folder) and, once
    started, its fio server and the local end of the forward to it."""

    spot: ClientSpot
    host: SshHost
    jobs: tuple[JobSpec, ...]
    before: frozenset[str] = frozenset()  # tierdeck's names already in the folder
    server: HostProcess | None = None
    listener: Any = None  # asyncssh's SSHListener of the forward
    local_port: int = 0
    lost: str | None = None  # why this host failed, once it did
    place: FolderPlace | None = None  # where its folder is (preflight)


@dataclass(frozen=True)
class HostResult:
    name: str
    path: str
    status: RunStatus
    summary: dict[str, DirectionSummary]
    error: str | None
    fio_json: dict[str, Any] | None
    started_at: float
    finished_at: float


@dataclass(frozen=True)
class ClientsResult:
    hosts: tuple[HostResult, ...]
    aggregate: dict[str, DirectionSummary]
    status: RunStatus  # cancelled, or ok once fio's client finished (hosts say the rest)
    setup_s: float  # from the first server's start until fio's client was started
    fio_messages: tuple[str, ...] = field(default=())

    @property
    def partial(self) -> bool:
        return any(h.status is not RunStatus.OK for h in self.hosts)


Say = Callable[[str], None]


# --------------------------------------------------------------------------- servers


def server_file_name(name: str) -> str | None:
    """A file a server wrote, without the client address fio puts in front of every
    file name in client mode ("127.0.0.1..tierdeck-bench.job.0.0"); None when it is not
    one of tierdeck's."""
    if name.startswith(BENCH_FILE_PREFIX):
        return name
    _, sep, rest = name.partition(f".{BENCH_FILE_PREFIX}")
    return BENCH_FILE_PREFIX + rest if sep else None


def _listening(host: Host, port: int) -> bool:
    found = host.run(["ss", "-Hltn", f"sport = :{port}"], timeout=10)
    return bool(found.stdout.strip())


async def _start_server(client: ClientHost) -> None:
    """fio --server on the host's loopback, on a free port (another is tried when the
    one drawn is taken), then the forward to it."""
    host = client.host
    failure = "fio --server did not start"
    for _ in range(5):
        port = random.randint(*_PORTS)
        proc = await host.spawn(["fio", f"--server=ip:{CLIENT_ADDRESS},{port}"])
        client.server = proc
        deadline = time.monotonic() + SERVER_START_S
        while proc.returncode is None and time.monotonic() < deadline:
            if await asyncio.to_thread(_listening, host, port):
                client.listener = await _forward(host, port)
                client.local_port = int(client.listener.get_port())
                return
            await asyncio.sleep(0.05)  # polling the server's socket: nothing to wait on
        if proc.returncode is None:
            await stop_process(host, proc)
            break
        assert proc.stderr is not None
        failure = (await proc.stderr.read()).decode("utf-8", "replace").strip() or failure
    client.server = None
    raise TierdeckError(f"{client.spot.name}: {failure}")


async def _forward(host: SshHost, port: int) -> Any:
    link = host.link

    async def open_forward() -> Any:
        conn = await link.connection()
        return await conn.forward_local_port("127.0.0.1", 0, CLIENT_ADDRESS, port)

    return await asyncio.wrap_future(link.submit(open_forward()))


async def _stop_server(client: ClientHost) -> None:
    if client.listener is not None:
        with contextlib.suppress(Exception):  # the link may be gone with its loop
            client.host.link.loop.call_soon_threadsafe(client.listener.close)
        client.listener = None
    if client.server is not None:
        with contextlib.suppress(TierdeckError, OSError):
            await stop_process(client.host, client.server)
        client.server = None


def _remove_test_files(client: ClientHost) -> None:
    """The planned files under the names the server gave them, and any new name under
    tierdeck's prefix. On a host out of reach each planned file is written down and
    removed at the next connection to it (``SshHost.remove``); its own watcher has
    stopped the server already."""
    path = client.spot.path
    names = set()
    for planned in planned_files(client.jobs):
        names.update({f"{path}/{planned.name}", f"{path}/{CLIENT_ADDRESS}.{planned.name}"})
    with contextlib.suppress(TierdeckError, OSError):
        for name in client.host.listdir(path):
            if server_file_name(name) is not None and name not in client.before:
                names.add(f"{path}/{name}")
    remove_files(client.host, sorted(names))


def existing_test_files(host: Host, path: str) -> frozenset[str]:
    return frozenset(n for n in host.listdir(path) if server_file_name(n) is not None)


# --------------------------------------------------------------------------- the run


def aggregate_summary(
    hosts: Sequence[HostResult],
    fio_total: dict[str, DirectionSummary] | None,
    p99: Mapping[str, int | None] | None = None,
) -> dict[str, DirectionSummary]:
    """What the hosts did together: the sum of each ok host's bandwidth and IOPS as
    fio reported them (fio's own "All clients" divides the bytes by the longest
    runtime, a little below that sum), its latency mean from fio's "All clients"
    (weighted by I/O). fio reports no percentiles for "All clients": the p99 is
    ``p99`` (``merged_p99``: the hosts' histograms merged, a true percentile of all
    their I/Os), else the one host's own, else None."""
    ok = [h for h in hosts if h.status is RunStatus.OK]
    out: dict[str, DirectionSummary] = {}
    for direction in dict.fromkeys(d for h in ok for d in h.summary):
        parts = [h.summary[direction] for h in ok if direction in h.summary]
        total = (fio_total or {}).get(direction)
        if total is not None and len(ok) == len(hosts):
            mean = total.lat_mean_ns
        else:
            mean = _weighted_mean(parts)
        out[direction] = DirectionSummary(
            bw_bytes=sum(p.bw_bytes for p in parts),
            iops=sum(p.iops or 0.0 for p in parts),
            lat_mean_ns=mean,
            lat_p99_ns=(p99 or {}).get(direction)
            if (p99 or {}).get(direction) is not None
            else (parts[0].lat_p99_ns if len(parts) == 1 else None),
        )
    return out


def merged_p99(reports: Sequence[FioReport]) -> dict[str, int | None]:
    """Per direction, the 99th percentile of every host's I/Os together, from their
    json+ latency histograms merged (fio's own rule); None where a host has none."""
    out: dict[str, int | None] = {}
    for direction in Direction:
        parts = [r.direction(direction) for r in reports if r.direction(direction).has_io]
        if parts and all(p.bins for p in parts):
            out[direction.value] = percentile_from_bins(merge_bins(p.bins for p in parts), 99.0)
    return out


def _weighted_mean(parts: Sequence[DirectionSummary]) -> float | None:
    weights = [(p.lat_mean_ns, p.iops or 0.0) for p in parts if p.lat_mean_ns is not None]
    total = sum(w for _, w in weights)
    return None if not total else sum(m * w for m, w in weights if m is not None) / total


async def run_clients(
    clients: Sequence[ClientHost],
    local: Host,
    cancel: asyncio.Event,
    say: Say,
    on_tick: Callable[[LiveTick], None] | None = None,
    watched: Mapping[str, Watched] | None = None,
) -> ClientsResult:
    """Start every server, run the job from this machine's fio client, and always stop
    the servers and remove the files, also on cancel and on a lost host. ``on_tick``
    hears each second of the ``watched`` hosts' disks or shares while fio's client runs."""
    started = time.monotonic()
    started_at = time.time()
    setup_s = 0.0
    live: asyncio.Task[None] | None = None
    try:
        # every start finishes (or fails) before going on: a server still starting when
        # another host's failure left this block would escape the finally below
        starts = await asyncio.gather(*(_start_server(c) for c in clients), return_exceptions=True)
        for failed in starts:
            if isinstance(failed, BaseException):
                raise failed
        for c in clients:
            say(f"{c.spot.name}: fio server on its loopback, reached through SSH")
        with tempfile.TemporaryDirectory(prefix="tierdeck-clients-") as folder:
            # json+: each host's latency histogram, merged for the total's p99
            argv = ["fio", "--output-format=json+"]
            for c in clients:
                job = Path(folder) / f"{c.spot.name.replace('/', '_')}.fio"
                job.write_text(jobfile_text(c.jobs, c.spot.path))
                argv += [f"--client=127.0.0.1,{c.local_port}", str(job)]  # this machine's end
            proc = await local.spawn(argv)
            setup_s = time.monotonic() - started
            hosts = f"{len(clients)} host" + ("s" if len(clients) > 1 else "")
            say(f"running on {hosts} (set-up {setup_s:.2f} s)")
            if on_tick is not None and watched and any(w.sources for w in watched.values()):
                live = asyncio.create_task(watch(watched, on_tick))
            out, messages, cancelled = await _watch(proc, clients, local, cancel, say)
    finally:
        if live is not None:
            live.cancel()
            # whatever the live view ended with, the servers are stopped below
            await asyncio.gather(live, return_exceptions=True)
        await asyncio.gather(*(_stop_server(c) for c in clients), return_exceptions=True)
        await asyncio.gather(*(asyncio.to_thread(_remove_test_files, c) for c in clients))
    finished_at = time.time()
    return _result(clients, out, messages, cancelled, setup_s, started_at, finished_at)


async def _watch(
    proc: HostProcess, clients: Sequence[ClientHost], local: Host, cancel: asyncio.Event, say: Say
) -> tuple[str, tuple[str, ...], bool]:
    """fio's client to its end; a server that ends first marks its host lost."""
    assert proc.stdout is not None and proc.stderr is not None
    output = asyncio.ensure_future(asyncio.gather(proc.stdout.read(), proc.stderr.read()))
    waiting = asyncio.ensure_future(cancel.wait())
    servers: dict[asyncio.Future[Any], ClientHost] = {}
    for c in clients:
        assert c.server is not None
        servers[asyncio.ensure_future(c.server.wait())] = c
    cancelled = False
    try:
        while not output.done():
            watched: set[asyncio.Future[Any]] = {output, *servers}
            if not cancelled:
                watched.add(waiting)
            done, _ = await asyncio.wait(watched, return_when=asyncio.FIRST_COMPLETED)
            if waiting in done and not cancelled:
                cancelled = True
                await stop_process(local, proc)
            for task in done & set(servers):
                c = servers.pop(task)
                c.lost = _why_lost(task, c)
                say(f"{c.spot.name}: lost ({c.lost})")
        stdout, stderr = output.result()
        await proc.wait()
    finally:
        waiting.cancel()
        for task in servers:
            task.cancel()
    text = stderr.decode("utf-8", "replace")
    lines = tuple(line for line in text.splitlines() if line.strip())
    return stdout.decode("utf-8", "replace"), lines, cancelled


def _why_lost(task: asyncio.Future[Any], client: ClientHost) -> str:
    error = task.exception()
    if isinstance(error, TierdeckError):
        return str(error)
    if error is not None:
        return f"{client.spot.name}: {error}"
    return f"{client.spot.name}: its fio server ended (status {task.result()}) before the run did"


def _result(
    clients: Sequence[ClientHost],
    out: str,
    messages: tuple[str, ...],
    cancelled: bool,
    setup_s: float,
    started_at: float,
    finished_at: float,
) -> ClientsResult:
    reports: ClientReports | None
    try:
        reports = read_client_report(out)
    except ParseError:
        reports = None
    hosts = []
    for c in clients:
        report = None if reports is None else reports.by_port.get(c.local_port)
        error = c.lost
        if error is None and report is None:
            said = "; ".join(messages[-3:]) or "fio's client printed nothing"
            error = "cancelled" if cancelled else f"{c.spot.name}: no result from fio ({said})"
        elif error is None and report is not None:
            failed = [j for j in report.jobs if j.error]
            if failed:
                error = f"{c.spot.name}: fio job {failed[0].name} failed (errno {failed[0].error})"
        if cancelled:
            status = RunStatus.CANCELLED
        else:
            status = RunStatus.OK if error is None else RunStatus.FAILED
        hosts.append(
            HostResult(
                name=c.spot.name,
                path=c.spot.path,
                status=status,
                summary={} if report is None or c.lost else run_summary(report),
                error=error,
                fio_json=None if reports is None else reports.documents.get(c.local_port),
                started_at=started_at,
                finished_at=finished_at,
            )
        )
    total = None if reports is None else reports.all_clients
    ok_reports = [
        reports.by_port[c.local_port]
        for c, h in zip(clients, hosts, strict=True)
        if reports is not None and h.status is RunStatus.OK and c.local_port in reports.by_port
    ]
    return ClientsResult(
        hosts=tuple(hosts),
        aggregate=aggregate_summary(
            hosts, None if total is None else run_summary(total), merged_p99(ok_reports)
        ),
        status=RunStatus.CANCELLED if cancelled else RunStatus.OK,
        setup_s=setup_s,
        fio_messages=messages,
    )
