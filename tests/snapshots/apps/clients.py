"""The ``--clients`` run screen fed recordings: the live seconds from /proc/diskstats
captured during a real two-host run in network namespaces (fixtures/diskstats/
clients-ns-t*.diskstats: both hosts are this machine, on its vda), the result from
fio 3.33's client report of two servers (fixtures/fio/fio333_client_stats.json).
No SSH, no fio, nothing from the clock."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from textual.app import App
from tierdeck.app.bench.fio_outcome import run_summary
from tierdeck.app.clients.live import LiveTick, tick
from tierdeck.app.clients.plan import ClientSpot
from tierdeck.app.clients.run import (
    ClientsResult,
    HostResult,
    aggregate_summary,
    merged_p99,
)
from tierdeck.app.clients.session import Outcome
from tierdeck.app.clients.store import StoredClients
from tierdeck.app.tui.navigation import Navigator
from tierdeck.backends.diskstats import parse_diskstats
from tierdeck.backends.fio.client_stats import read_client_report
from tierdeck.core.bench_models import RunStatus
from tierdeck.core.presets import find_preset

FIXTURES = Path(__file__).parents[2] / "fixtures"
SPOTS = [ClientSpot("tdc1", "/srv/bench"), ClientSpot("tdc2", "/srv/bench")]
PORTS = {"tdc1": 18765, "tdc2": 18766}
STARTED_AT = 1_795_700_000.0


def recorded_ticks() -> list[LiveTick]:
    """One tick a second, as the run screen heard them on the recorded run."""
    readings = [
        parse_diskstats((FIXTURES / "diskstats" / f"clients-ns-t{i}.diskstats").read_text())
        for i in range(5)
    ]
    watched = {s.name: ("this-vm", ("vda",)) for s in SPOTS}
    ticks = []
    for i, (before, after) in enumerate(zip(readings, readings[1:], strict=False), start=1):
        per_host_before = {s.name: {"vda": before["vda"]} for s in SPOTS}
        per_host_after = {s.name: {"vda": after["vda"]} for s in SPOTS}
        ticks.append(tick(float(i), 1.0, watched, per_host_before, per_host_after))
    return ticks


def recorded_result(status: RunStatus = RunStatus.OK) -> ClientsResult:
    reports = read_client_report((FIXTURES / "fio" / "fio333_client_stats.json").read_text())
    hosts = [
        HostResult(
            name=s.name,
            path=s.path,
            status=status,
            summary=run_summary(reports.by_port[PORTS[s.name]]),
            error=None if status is RunStatus.OK else "cancelled",
            fio_json=reports.documents[PORTS[s.name]],
            started_at=STARTED_AT,
            finished_at=STARTED_AT + 3,
        )
        for s in SPOTS
    ]
    total = None if reports.all_clients is None else run_summary(reports.all_clients)
    aggregate = aggregate_summary(hosts, total, merged_p99(list(reports.by_port.values())))
    return ClientsResult(tuple(hosts), aggregate, status, setup_s=0.46)


class RecordedClients:
    """A run session replaying the recordings: says what the real one says, hands over
    ``ticks`` seconds, then waits for ``release`` (or a cancel) and ends."""

    def __init__(self, ticks: int = 4, *, refuse: str | None = None) -> None:
        self.ticks = ticks
        self.refuse = refuse
        self.release = asyncio.Event()
        self.paused = False

    async def __call__(
        self, say: Callable[[str], None], on_tick: Callable[[LiveTick], None], cancel: asyncio.Event
    ) -> Outcome:
        from tierdeck.core.bench_models import BenchRefused

        for s in SPOTS:
            say(f"{s.name}: {s.path} is a local path (ext4 on /; disks: vda)")
        if self.refuse is not None:
            raise BenchRefused(self.refuse)
        for s in SPOTS:
            say(f"{s.name}: fio server on its loopback, reached through SSH")
        say("running on 2 hosts (set-up 0.46 s)")
        for seen in recorded_ticks()[: self.ticks]:
            on_tick(seen)
        self.paused = True
        done = asyncio.ensure_future(self.release.wait())
        stopped = asyncio.ensure_future(cancel.wait())
        await asyncio.wait({done, stopped}, return_when=asyncio.FIRST_COMPLETED)
        done.cancel()
        stopped.cancel()
        if cancel.is_set():
            return Outcome(recorded_result(RunStatus.CANCELLED), None)
        return Outcome(recorded_result(), StoredClients(4, {"tdc1": 11, "tdc2": 12}, 13))


class ClientsRunApp(Navigator, App[None]):
    """Just the clients run screen, fed a recording."""

    CSS_PATH = "../../../app/tui/tierdeck.tcss"
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, runner: RecordedClients | None = None) -> None:
        super().__init__()
        self.runner = runner or RecordedClients()
        self.title = "tierdeck — nas"

    def on_mount(self) -> None:
        from tierdeck.screens.bench.clients_run import ClientsRunScreen

        preset = find_preset("nas-seqwrite-1m-qd8x8")
        assert preset is not None
        self.push_screen(
            ClientsRunScreen(list(SPOTS), preset.jobs, preset.name, runner=self.runner)
        )
