"""The charts of a run, live or stored: bandwidth, IOPS, latency and the per-disk strip.

The run screen feeds them as fio and /proc/diskstats speak (about once a second); the
history detail view feeds a stored run in one go. Both build them here, so the live
screen and the stored run look the same.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..core.bench_models import DeviceSample
from ..core.fio_models import Sample
from ..core.units import fmt_count, fmt_ns, fmt_rate
from .live_chart import LiveChart

DISK_STYLES = ("cyan", "yellow", "green", "magenta", "blue", "red")
MAX_ROWS = 4  # rows per series strip: beyond this a taller chart shows nothing new

Charts = tuple[LiveChart, LiveChart, LiveChart]


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


def make_charts(rows: int = 1, span: int | None = None) -> Charts:
    rw = (("read", "read", "green"), ("write", "write", "magenta"))
    return (
        LiveChart("Bandwidth", rw, fmt=fmt_rate, rows=rows, span=span, id="chart-bw"),
        LiveChart("IOPS", rw, fmt=fmt_count, rows=rows, span=span, id="chart-iops"),
        LiveChart(
            "Latency",
            (
                ("read_mean", "r mean", "green"),
                ("read_p99", "r p99", "dark_green"),
                ("write_mean", "w mean", "magenta"),
                ("write_p99", "w p99", "dark_magenta"),
            ),
            fmt=fmt_ns,
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


def chart_rows(height: int, strips: int, reserved: int) -> int:
    """Rows per series strip so that ``strips`` strips fit in ``height`` rows once
    ``reserved`` rows (header, titles, the disk table ...) are taken: one at 80x24,
    more on a tall terminal, at most MAX_ROWS."""
    if strips <= 0:
        return 1
    return max(1, min(MAX_ROWS, (height - reserved) // strips))


class DiskRateChart(LiveChart):
    """What each disk under the target moved per second (read + write), one strip per
    disk on a shared scale: which branch mergerfs wrote to, whether a mirror splits
    reads. An idle disk keeps its (empty) strip: that is the point."""

    def __init__(
        self,
        disks: Sequence[str],
        *,
        rows: int = 1,
        span: int | None = None,
        id: str | None = "chart-disks",
    ) -> None:
        super().__init__(
            "Disks, read + write per second",
            [(d, d, style) for d, style in zip(disks, DISK_STYLES * 8, strict=False)],
            fmt=fmt_rate,
            rows=rows,
            span=span,
            hide_empty=False,
            id=id,
        )

    def add_intervals(self, intervals: Iterable[Iterable[DeviceSample]]) -> None:
        """Live: one tuple of samples (one per disk) per second; a batch of coalesced
        seconds costs one refresh."""
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
        # A disk the target did not list still moved data: give it a strip too.
        if device not in self._series:
            style = DISK_STYLES[len(self._series) % len(DISK_STYLES)]
            self.add_series(device, device, style)
