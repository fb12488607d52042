"""The HTML report's charts: each run's per-second series, one chart per metric.

Drawn by pygal (a maintained SVG plotting library, pure Python, ~200 KB installed):
an SVG string per chart, inlined in the report with its CSS and without any script
(``js=[]`` leaves out pygal's tooltip script from the network, an XML filter its
inline config), so the file opens with no network and runs no code. One line per run
and direction (a randrw run draws its reads and its writes); time in seconds since
I/O started on the x axis, the metric with its unit on the y axis, a legend below.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...core.bench_models import RunResult
from ...core.compare.comparison import Metric
from ...core.compare.series import direction_series, directions_with_io
from ..compare.render import format_figure, run_label

MIB = 2**20
MAX_POINTS = 600  # per line: a long run is averaged down to this many points
WIDTH, HEIGHT = 900, 320
LEGEND_ROW = 21  # px per legend entry below the plot (1.5 x its 14 px font)

CHART_TITLES = {
    Metric.BW: "Bandwidth",
    Metric.IOPS: "IOPS",
    Metric.LAT_MEAN: "Mean latency",
    Metric.LAT_P99: "p99 latency",
}


@dataclass(frozen=True)
class Chart:
    metric: Metric
    title: str
    svg: str  # one <svg> element


@dataclass(frozen=True)
class Line:
    label: str
    points: list[tuple[float, float]]


def _thin(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """At most MAX_POINTS points: consecutive seconds averaged in equal buckets."""
    if len(points) <= MAX_POINTS:
        return points
    size = -(-len(points) // MAX_POINTS)
    out = []
    for start in range(0, len(points), size):
        bucket = points[start : start + size]
        out.append(
            (sum(p[0] for p in bucket) / len(bucket), sum(p[1] for p in bucket) / len(bucket))
        )
    return out


def lines(runs: Sequence[RunResult], metric: Metric) -> list[Line]:
    """One line per run and direction with a value in at least one full second (the
    rule of every chart, ``core.compare.series``), its legend saying the run's own figure."""
    out = []
    for run in runs:
        directions = directions_with_io(run.series)
        for name in directions:
            drawn = direction_series(run.series, name, metric, run.summary.get(name))
            points = [(t, v) for t, v in drawn.points if v is not None]
            if points:
                label = run_label(run) + (
                    f" {name}" if len(runs) == 1 or len(directions) > 1 else ""
                )
                if drawn.average is not None:
                    label += f" · avg {format_figure(metric, drawn.average)}"
                out.append(Line(label, _thin(points)))
    return out


def _unit(metric: Metric, lines_: Sequence[Line]) -> tuple[str, float]:
    """The y axis's unit and divisor: MiB/s, IOPS, or µs/ms by the largest latency."""
    if metric is Metric.BW:
        return "MiB/s", MIB
    if metric is Metric.IOPS:
        return "IOPS", 1.0
    top = max((v for line in lines_ for _, v in line.points), default=0.0)
    return ("ms", 1e6) if top >= 1e6 else ("µs", 1e3)


def _without_scripts(root: Any) -> Any:
    """pygal's SVG minus its inline ``<script>`` (the config its tooltip script would
    read, with the legends in it): the report carries no script at all."""
    for parent in list(root.iter()):
        for child in list(parent):
            if str(child.tag).rsplit("}", 1)[-1] == "script":
                parent.remove(child)
    return root


def charts(runs: Sequence[RunResult]) -> list[Chart]:
    """A chart per metric that any run has per-second values for."""
    import pygal
    from pygal.style import CleanStyle

    out = []
    for metric in Metric:
        found = lines(runs, metric)
        if not found:
            continue
        unit, divisor = _unit(metric, found)
        chart = pygal.XY(
            js=[],  # pygal's tooltips load a script from the network: none
            style=CleanStyle,
            width=WIDTH,
            height=HEIGHT + LEGEND_ROW * len(found),
            show_dots=False,
            include_x_axis=True,
            x_title="time (s)",
            y_title=unit,
            title=f"{CHART_TITLES[metric]} ({unit})",
            legend_at_bottom=True,
            # one column: pygal 3.1 sizes a multi-column legend one row short
            legend_at_bottom_columns=1,
            truncate_legend=-1,
            disable_xml_declaration=True,
        )
        chart.add_xml_filter(_without_scripts)
        chart.uuid = f"tierdeck-{metric.value}"  # stable ids: the same runs, the same file
        for line in found:
            chart.add(line.label, [(t, v / divisor) for t, v in line.points])
        out.append(Chart(metric, CHART_TITLES[metric], chart.render(is_unicode=True)))
    return out
