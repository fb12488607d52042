"""SVG snapshot of the ``--clients`` run screen at 80x24: two hosts and the total,
four seconds recorded on a real two-host run (tests/snapshots/apps/clients.py).
Update after a deliberate UI change with ``pytest tests/snapshots --snapshot-update``
and look at the SVG."""

from __future__ import annotations

from textual.pilot import Pilot
from tierdeck.screens.bench.clients_run import ClientsRunScreen
from tierdeck.widgets.charts.series_chart import SeriesChart

from tests.snapshots.apps.clients import ClientsRunApp, RecordedClients
from tests.waiting import wait_until


def test_clients_run_two_hosts_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    runner = RecordedClients(ticks=4)

    async def midway(pilot: Pilot[None]) -> None:
        await wait_until(pilot, lambda: runner.paused, "the recorded seconds")
        screen = pilot.app.screen
        assert isinstance(screen, ClientsRunScreen)
        await wait_until(pilot, lambda: screen.ticks == 4, "four seconds")
        charts = screen.query(SeriesChart)
        await wait_until(pilot, lambda: not any(c.pending for c in charts), "the charts drawn")
        await pilot.pause()

    assert snap_compare(ClientsRunApp(runner), terminal_size=(80, 24), run_before=midway)
