"""A fleet comparison fed recordings, for the fleet run screen's snapshot and Pilot tests:
"nas1" and "nas2" replay real runs of the lab NAS (tests/fixtures/bench_screens/), "attic"
cannot be reached (the error a closed port gives). ``RecordedFleet`` stands in for the
real runner (app/fleet/bench.bench_hosts over SSH): each host's events in the order of
the hosts, then it waits for ``release`` (or a cancel) before the last host ends."""

from __future__ import annotations

import asyncio
import dataclasses

from textual.app import App
from tierdeck.app.bench import events as ev
from tierdeck.app.bench.service import BenchAsk
from tierdeck.app.clients.plan import ClientSpot
from tierdeck.app.fleet.bench import HostBench, HostDone, HostEvents, HostStarted
from tierdeck.app.tui.navigation import Navigator
from tierdeck.core.bench_models import RunStatus
from tierdeck.core.presets import find_preset

from tests.snapshots.apps.bench_data import load_events, result_of

SPOTS = [ClientSpot("nas1", "/mnt/storage"), ClientSpot("attic", "/srv/bench"),
         ClientSpot("nas2", "/mnt/storage")]  # fmt: skip
RECORDED = {"nas1": ("pool_write", 21), "nas2": ("branch_randrw", 22)}
UNREACHABLE = "attic: cannot connect to admin@127.0.0.1:1: Connection refused"
STARTED_AT = 1_795_700_000.0


def asks() -> dict[str, BenchAsk]:
    preset = find_preset("nas-seqwrite-1m-qd8x8")
    assert preset is not None
    return {
        s.name: BenchAsk(s.path, preset.jobs, preset.name, name=f"{preset.name} on {s.name}")
        for s in SPOTS
    }


class RecordedFleet:
    """The hosts one after the other (``parallel`` ignored: the order stays fixed); the
    last recorded host pauses before its end until ``release`` or a cancel."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.paused = False

    async def __call__(
        self,
        spots: list[ClientSpot],
        asks: dict[str, BenchAsk],
        parallel: bool,
        on_event: HostEvents,
        cancel: asyncio.Event,
    ) -> list[HostBench]:
        outcomes = []
        for index, spot in enumerate(spots):
            on_event(spot, HostStarted(index, len(spots)))
            if spot.name not in RECORDED:
                outcome = HostBench(spot, None, UNREACHABLE, STARTED_AT)
            else:
                outcome = await self._replay(spot, on_event, cancel, last=spot.name == "nas2")
            on_event(spot, HostDone(outcome))
            outcomes.append(outcome)
        return outcomes

    async def _replay(
        self, spot: ClientSpot, on_event: HostEvents, cancel: asyncio.Event, *, last: bool
    ) -> HostBench:
        name, run_id = RECORDED[spot.name]
        events = load_events(name)
        for event in events:
            if last and isinstance(event, ev.RunEnded):
                self.paused = True
                await _first(self.release, cancel)
            on_event(spot, event)
            await asyncio.sleep(0)
        result = result_of(events)
        if cancel.is_set():
            result = dataclasses.replace(result, status=RunStatus.CANCELLED)
        on_event(spot, ev.RunStored(run_id))
        return HostBench(spot, dataclasses.replace(result, id=run_id), None, STARTED_AT)


async def _first(*events: asyncio.Event) -> None:
    waits = {asyncio.ensure_future(e.wait()) for e in events}
    _, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    for wait in pending:
        wait.cancel()


class FleetRunApp(Navigator, App[None]):
    """Just the fleet run screen, fed a recording; ``compared`` keeps what it asked to
    compare (the compare screen itself is tested on its own)."""

    CSS_PATH = "../../../app/tui/tierdeck.tcss"
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, runner: RecordedFleet | None = None) -> None:
        super().__init__()
        self.runner = runner or RecordedFleet()
        self.compared: list[list[int]] = []
        self.title = "tierdeck — nas"

    def on_mount(self) -> None:
        from tierdeck.screens.bench.fleet_run import FleetRunScreen

        self.push_screen(FleetRunScreen(SPOTS, asks(), parallel=False, runner=self.runner))

    def open_compare(self, run_ids: list[int], **_: object) -> None:
        self.compared.append(run_ids)
