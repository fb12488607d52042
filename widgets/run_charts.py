"""The charts of a run, live, stored or compared: bandwidth, IOPS, latency, per disk.

The run screen feeds them as fio and /proc/diskstats speak (about once a second); the
history detail view feeds a stored run in one go; the compare view overlays runs (one
line per run, :func:`overlay_charts`). All are ``SeriesChart``: one chart component.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from ..core.bench_models import DeviceSample
from ..core.fio_models import DirectionSample, Sample
from .series_axes import COUNT, LATENCY, RATE
from .series_chart import DEFAULT_ROWS, LegendValue, NamedSeries, Point, SeriesChart

DISK_STYLES = ("cyan", "yellow", "green", "magenta", "blue", "red")
MAX_ROWS = 12  # a taller plot shows nothing new at 1 Hz

Charts = tuple[SeriesChart, SeriesChart, SeriesChart]


def bw_point(sample: Sample) -> dict[str, float | None]:
    return {"read": sample.read.bw_bytes_per_s, "write": sample.write.bw_bytes_per_s}


def iops_point(sample: Sample) -> dict[str, float | None]:
    return {"read": sample.read.iops, "write": sample.write.iops}


def lat_point(sample: Sample) -> dict[str, float | None]:
    def ns(value: float | int | None) -> float | None:
        return None if value is None else float(value)

    return {
        "read_mean": ns(sample.read.lat_mean_ns),
        "read_p99": ns(sample.read.lat_p99_ns),
        "write_mean": ns(sample.write.lat_mean_ns),
        "write_p99": ns(sample.write.lat_p99_ns),
    }


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


def feed_charts(charts: Charts, samples: Sequence[Sample]) -> None:
    bw, iops, lat = charts
    bw.extend([(s.t, bw_point(s)) for s in samples])
    iops.extend([(s.t, iops_point(s)) for s in samples])
    lat.extend([(s.t, lat_point(s)) for s in samples])


def plot_rows(height: int, charts: int, reserved: int) -> int:
    """Rows per plot so that ``charts`` charts (a legend line each) fit in ``height``
    rows once ``reserved`` rows (header, the disk table ...) are taken: the 80x24 size
    (DEFAULT_ROWS, the page scrolls) at least, taller on a tall terminal, at most
    MAX_ROWS."""
    if charts <= 0:
        return DEFAULT_ROWS
    return max(DEFAULT_ROWS, min(MAX_ROWS, (height - reserved) // charts - 1))


# -- compare: one line per run ----------------------------------------------------------------


def _direction_value(
    sample: Sample, direction: str | None, pick: Callable[[DirectionSample], float | None]
) -> float | None:
    """One direction's value, or read + write (``direction`` None) when either has one."""
    if direction is not None:
        return pick(sample.read if direction == "read" else sample.write)
    values = [v for v in (pick(sample.read), pick(sample.write)) if v is not None]
    return sum(values) if values else None


def run_points(samples: Sequence[Sample], metric: str, direction: str | None = None) -> list[Point]:
    """A run's per-second ``metric`` ("bw" bytes/s, "iops", "lat" mean ns, "p99" ns) as
    (seconds since start, value). ``direction`` "read" or "write"; None sums both for
    bw and iops, and for latencies takes read where the run read, else write."""
    picks: dict[str, Callable[[DirectionSample], float | None]] = {
        "bw": lambda d: d.bw_bytes_per_s,
        "iops": lambda d: d.iops,
        "lat": lambda d: None if d.lat_mean_ns is None else float(d.lat_mean_ns),
        "p99": lambda d: None if d.lat_p99_ns is None else float(d.lat_p99_ns),
    }
    pick = picks[metric]
    if direction is None and metric in ("lat", "p99"):
        direction = "read" if any(pick(s.read) for s in samples) else "write"
    return [(s.t, _direction_value(s, direction, pick)) for s in samples]


def overlay_charts(
    runs: Sequence[tuple[str, Sequence[Sample]]],
    *,
    direction: str | None = None,
    rows: int = DEFAULT_ROWS,
) -> Charts:
    """Bandwidth, IOPS and mean latency of each run (label, per-second samples), one
    line per run on a common time axis, the legend naming each run with its mean."""
    charts = (
        SeriesChart("Bandwidth", unit=RATE, legend=LegendValue.MEAN, rows=rows, id="compare-bw"),
        SeriesChart("IOPS", unit=COUNT, legend=LegendValue.MEAN, rows=rows, id="compare-iops"),
        SeriesChart(
            "Mean latency",
            unit=LATENCY,
            legend=LegendValue.MEAN,
            rows=rows,
            log_scale=True,
            id="compare-lat",
        ),
    )
    for chart, metric in zip(charts, ("bw", "iops", "lat"), strict=True):
        chart.set_series(
            [NamedSeries(label, run_points(samples, metric, direction)) for label, samples in runs]
        )
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
