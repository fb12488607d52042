"""Fixed data for the overlay chart (the compare view's): two runs of 60 seconds, one
steady near 400 MiB/s, one at 400 MiB/s that collapses to 40 MiB/s after 20 s (a cache
filling up). Made up on purpose: series of numbers, not a tool's output format."""

from __future__ import annotations

from textual.app import App, ComposeResult
from tierdeck.widgets.charts.run_charts import DEFAULT_ROWS
from tierdeck.widgets.charts.series_axes import RATE
from tierdeck.widgets.charts.series_chart import SeriesChart
from tierdeck.widgets.charts.series_data import LegendValue, NamedSeries

MiB = 1024 * 1024

STEADY = [(float(t), (400.0 + (5.0 if t % 2 else -5.0)) * MiB) for t in range(1, 61)]
COLLAPSING = [(float(t), (400.0 if t <= 20 else 40.0) * MiB) for t in range(1, 61)]


class OverlayApp(App[None]):
    """One bandwidth chart overlaying both runs, as the compare view shows it."""

    def __init__(self, rows: int = DEFAULT_ROWS) -> None:
        super().__init__()
        self.rows = rows

    def compose(self) -> ComposeResult:
        yield SeriesChart(
            "Bandwidth", unit=RATE, legend=LegendValue.MEAN, rows=self.rows, id="compare-bw"
        )

    def on_mount(self) -> None:
        self.query_one(SeriesChart).set_series(
            [NamedSeries("#12 raw pool", STEADY), NamedSeries("#14 mergerfs", COLLAPSING)]
        )
