"""SVG snapshots of the sweep matrix and the ladder table with fixed data
(tests/snapshots/apps/sweep and ladder), at 80x24 and 160x50: seed 003's 3x3 sweep with
one cell not run (coloured cells, the chart against the compressibility), and seed
000's ladder (penalties, a skipped branch with its reason, the diagnosis). Plain sync
functions, nothing from the clock. Update after a deliberate UI change with
``pytest tests/snapshots --snapshot-update`` and look at the SVGs.
"""

from __future__ import annotations

from textual.pilot import Pilot
from tierdeck.screens.sequence.ladder import LadderScreen
from tierdeck.screens.sequence.sweep import SweepScreen
from tierdeck.widgets.charts.series_chart import SeriesChart
from tierdeck.widgets.sequence.ladder_table import LadderTable
from tierdeck.widgets.sequence.sweep_matrix import SweepMatrix

from tests.snapshots.apps.ladder import LadderApp
from tests.snapshots.apps.sweep import SweepApp
from tests.waiting import wait_until

SMALL = (80, 24)
LARGE = (160, 50)


async def _matrix(pilot: Pilot[None]) -> None:
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, SweepScreen), "the sweep view")
    chart = pilot.app.screen.query_one(SweepMatrix).query_one(SeriesChart)
    await wait_until(pilot, lambda: chart.draws > 0 and not chart.pending, "the chart drawn")
    await pilot.pause()


async def _ladder(pilot: Pilot[None]) -> None:
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, LadderScreen), "the ladder")
    table = pilot.app.screen.query_one(LadderTable)
    await wait_until(pilot, lambda: bool(getattr(table, "rungs", ())), "the rungs")
    await pilot.pause()


def test_sweep_matrix_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(SweepApp(), terminal_size=SMALL, run_before=_matrix)


def test_sweep_matrix_160x50(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(SweepApp(), terminal_size=LARGE, run_before=_matrix)


def test_ladder_table_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(LadderApp(), terminal_size=SMALL, run_before=_ladder)


def test_ladder_table_160x50(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(LadderApp(), terminal_size=LARGE, run_before=_ladder)
