"""SVG snapshot of the one chart component overlaying two runs (the compare view's
charts): fixed series, fixed size, plain sync function (see test_run_snapshots.py)."""

from __future__ import annotations

from textual.pilot import Pilot
from tierdeck.widgets.charts.series_chart import SeriesChart

from tests.snapshots.apps.charts import OverlayApp
from tests.waiting import wait_until


async def drawn(pilot: Pilot[None]) -> None:
    chart = pilot.app.query_one(SeriesChart)
    await wait_until(pilot, lambda: chart.draws >= 2, "the overlay drawn")
    await pilot.pause()


def test_overlay_steady_and_collapsing_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """One run steady at 400 MiB/s, the other down to 40 MiB/s after 20 s."""
    assert snap_compare(OverlayApp(rows=12), terminal_size=(80, 24), run_before=drawn)
