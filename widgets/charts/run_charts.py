"""The charts of a run, live, stored or compared: bandwidth, IOPS, latency, per disk.

The run screen feeds them as fio and /proc/diskstats speak (about once a second); the
history detail view feeds a stored run in one go; the compare view overlays runs (one
line per run and direction, :func:`overlay_charts`). All are ``SeriesChart``: one chart
component; which seconds are drawn and what "avg" means is ``core.compare.series``'s rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from ...app.compare.render import format_figure
from ...core.bench_models import DeviceSample, DirectionSummary
from ...core.compare.noise import Metric, sample_value
from ...core.compare.series import (
    direction_series,
    directions_with_io,
    drawn,
    summary_value,
    weight,
)
from ...core.fio_models import Direction, Sample
from .series_axes import COUNT, LATENCY, RATE, AxisUnit
from .series_chart import DEFAULT_ROWS, SeriesChart
from .series_data import Interval, LegendValue, NamedSeries

DISK_STYLES = ("cyan", "yellow", "green", "magenta", "blue", "red")
MAX_ROWS = 12  # a taller plot shows nothing new at 1 Hz

Charts = tuple[SeriesChart, SeriesChart, SeriesChart]


BW_KEYS = {"read": (Direction.READ, Metric.BW), "write": (Direction.WRITE, Metric.BW)}
IOPS_KEYS = {"read": (Direction.READ, Metric.IOPS), "write": (Direction.WRITE, Metric.IOPS)}
LAT_KEYS = {
    "read_mean": (Direction.READ, Metric.LAT_MEAN),
    "read_p99": (Direction.READ, Metric.LAT_P99),
    "write_mean": (Direction.WRITE, Metric.LAT_MEAN),
    "write_p99": (Direction.WRITE, Metric.LAT_P99),
}
ChartKeys = Mapping[str, tuple[Direction, Metric]]


def intervals(samples: Sequence[Sample], keys: ChartKeys) -> list[Interval]:
    """The samples as a chart takes them, by ``core.compare.series``'s rule: each key's value
    and weight, a partial interval counted in the average but not drawn."""
    out = []
    for s in samples:
        values: dict[str, float | None] = {}
        weights: dict[str, float] = {}
        for key, (direction, metric) in keys.items():
            d = s.direction(direction)
            values[key] = sample_value(d, metric)
            weights[key] = weight(s, d, metric)
        out.append(Interval(s.t, values, weights, drawn=drawn(s)))
    return out


def make_charts(rows: int = DEFAULT_ROWS, span: float | None = None) -> Charts:
    rw = (("read", "read", "green"), ("write", "write", "magenta"))
    return (
        SeriesChart("Bandwidth", rw, unit=RATE, rows=rows, span=span, id="chart-bw"),
        SeriesChart("IOPS", rw, unit=COUNT, rows=rows, span=span, id="chart-iops"),
        SeriesChart(
            "Latency",
            (
                ("read_mean", "r mean", "green"),
                ("read_p99", "r p99", "dark_green"),
                ("write_mean", "w mean", "magenta"),
                ("write_p99", "w p99", "dark_magenta"),
            ),
            unit=LATENCY,
            rows=rows,
            span=span,
            log_scale=True,
            id="chart-lat",
        ),
    )


def feed_charts(
    charts: Charts,
    samples: Sequence[Sample],
    summary: Mapping[str, DirectionSummary] | None = None,
) -> None:
    """Live: the seconds as they come. A stored run also gives its ``summary``: the
    legends' averages are then fio's figures, those of the tables."""
    if summary is not None:
        show_figures(charts, summary)
    for chart, keys in zip(charts, (BW_KEYS, IOPS_KEYS, LAT_KEYS), strict=True):
        chart.extend(intervals(samples, keys))


def show_figures(charts: Charts, summary: Mapping[str, DirectionSummary]) -> None:
    """The legends' averages become fio's own figures (the run's summary table's); a
    p99 has none (the run's p99 is no average of its seconds')."""
    for chart, keys in zip(charts, (BW_KEYS, IOPS_KEYS, LAT_KEYS), strict=True):
        for key, (direction, metric) in keys.items():
            if metric is not Metric.LAT_P99:
                chart.set_average(key, summary_value(summary.get(direction), metric))


def plot_rows(height: int, charts: int, reserved: int) -> int:
    """Rows per plot so that ``charts`` charts (a legend line each) fit in ``height``
    rows once ``reserved`` rows (header, the disk table ...) are taken: the 80x24 size
    (DEFAULT_ROWS, the page scrolls) at least, taller on a tall terminal, at most
    MAX_ROWS."""
    if charts <= 0:
        return DEFAULT_ROWS
    return max(DEFAULT_ROWS, min(MAX_ROWS, (height - reserved) // charts - 1))


def live_run_rows(height: int, disks: int) -> int:
    """Rows per plot of the live run screen: its four charts once the header, its head,
    the footer and the disk table (title, a row per disk, border) are taken. At 80x24
    the charts keep their smallest size and the page scrolls."""
    return plot_rows(height, 4, 4 + max(1, disks) + 2)


# -- compare: one line per run ----------------------------------------------------------------


def overlay_charts(
    runs: Sequence[tuple[str, Sequence[Sample], Mapping[str, DirectionSummary]]],
    *,
    rows: int = DEFAULT_ROWS,
) -> Charts:
    """Bandwidth, IOPS and mean latency of each run (label, per-second samples, fio's
    summary), one line per run and direction with I/O on a common time axis, the legend
    naming each with the run's own figure (the table's)."""

    def make(title: str, unit: AxisUnit, metric: Metric, id: str, log: bool = False) -> SeriesChart:
        return SeriesChart(
            title,
            unit=unit,
            legend=LegendValue.MEAN,
            rows=rows,
            log_scale=log,
            avg_format=lambda value: format_figure(metric, value),  # as the table says it
            id=id,
        )

    charts = (
        make("Bandwidth", RATE, Metric.BW, "compare-bw"),
        make("IOPS", COUNT, Metric.IOPS, "compare-iops"),
        make("Mean latency", LATENCY, Metric.LAT_MEAN, "compare-lat", log=True),
    )
    for chart, metric in zip(charts, (Metric.BW, Metric.IOPS, Metric.LAT_MEAN), strict=True):
        lines = []
        for label, samples, summary in runs:
            directions = directions_with_io(samples)
            for direction in directions:
                drawn_ = direction_series(samples, direction, metric, summary.get(direction))
                name = f"{label} {direction}" if len(directions) > 1 else label
                lines.append(NamedSeries(name, drawn_.points, average=drawn_.average))
        chart.set_series(lines)
    return charts


# -- the disks under the target -----------------------------------------------------------------


class DiskRateChart(SeriesChart):
    """What each disk under the target moved per second (read + write), one line per
    disk on a shared scale: which branch mergerfs wrote to, whether a mirror splits
    reads. An idle disk keeps its place in the legend (at 0 B/s): that is the point."""

    def __init__(
        self,
        disks: Sequence[str],
        *,
        rows: int = DEFAULT_ROWS,
        span: float | None = None,
        id: str | None = "chart-disks",
    ) -> None:
        super().__init__(
            "Disks, read + write per second",
            [(d, d, style) for d, style in zip(disks, DISK_STYLES * 8, strict=False)],
            unit=RATE,
            rows=rows,
            span=span,
            hide_empty=False,
            id=id,
        )

    def add_intervals(self, intervals: Iterable[Iterable[DeviceSample]]) -> None:
        """Live: one tuple of samples (one per disk) per second; a batch of coalesced
        seconds costs one redraw."""
        points: list[tuple[float | None, dict[str, float | None]]] = []
        for interval in intervals:
            point: dict[str, float | None] = {}
            t: float | None = None
            for sample in interval:
                self._ensure(sample.device)
                point[sample.device] = sample.read_bytes_per_s + sample.write_bytes_per_s
                t = sample.t
            if point:
                points.append((t, point))
        if points:
            self.extend(points)

    def load_series(self, samples: Iterable[DeviceSample]) -> None:
        """A stored run: every disk's samples, grouped by second."""
        by_t: dict[float, list[DeviceSample]] = {}
        for sample in samples:
            by_t.setdefault(sample.t, []).append(sample)
        self.add_intervals(by_t[t] for t in sorted(by_t))

    def _ensure(self, device: str) -> None:
        # A disk the target did not list still moved data: give it a line too.
        if device not in self.keys:
            style = DISK_STYLES[len(self.keys) % len(DISK_STYLES)]
            self.add_series(device, device, style)
