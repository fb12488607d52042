"""The one chart component (widgets/charts/series_chart.py), live and overlaid, on fixed data.

Asserted on the data, the legend and what was handed to the plot, not on pixels (the
SVG of the overlay is in tests/snapshots/test_chart_snapshots.py).
"""

from __future__ import annotations

import math
import time

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual_hires_canvas import Canvas
from tierdeck.core.bench_models import DirectionSummary
from tierdeck.core.compare.series import drawn
from tierdeck.core.fio_models import DirectionSample, Sample
from tierdeck.widgets.charts.chart_plot import ChartPlot
from tierdeck.widgets.charts.run_charts import (
    feed_charts,
    make_charts,
    overlay_charts,
    show_figures,
)
from tierdeck.widgets.charts.series_axes import COUNT, LATENCY, RATE, DecadeTicks, short_number
from tierdeck.widgets.charts.series_chart import EARLY_S, MIN_REDRAW_S, POINTS_PER_CELL, SeriesChart
from tierdeck.widgets.charts.series_data import LegendValue, NamedSeries, downsample

from tests.snapshots.apps.bench_data import load_events, result_of
from tests.snapshots.apps.charts import COLLAPSING, STEADY, OverlayApp
from tests.waiting import wait_until

MiB = 1024 * 1024
RW = (("read", "read", "green"), ("write", "write", "magenta"))


# -- data -------------------------------------------------------------------------------------


def test_ring_buffer_keeps_the_newest() -> None:
    chart = SeriesChart("Bandwidth", RW, capacity=5)
    for t in range(8):
        chart.push({"read": float(t)}, t=float(t))
    assert chart.values("read") == [3.0, 4.0, 5.0, 6.0, 7.0]
    assert chart.values("write") == [None] * 5
    assert chart.times == [3.0, 4.0, 5.0, 6.0, 7.0]
    assert chart.latest("read") == 7.0
    assert chart.mean("read") == 3.5  # the whole run's, not only the seconds kept
    assert chart.top() == 7.0
    assert chart.visible_keys == ["read"]  # write never had data: not drawn


def test_scale_and_means_follow_every_change() -> None:
    """They are computed once per change of the data (a long run's redraw walked every
    point several times), never kept past one."""
    chart = SeriesChart("Bandwidth", RW, capacity=3)
    chart.push({"read": 10.0}, t=1.0)
    assert (chart.top(), chart.low(), chart.mean("read")) == (10.0, 10.0, 10.0)
    for t in (2.0, 3.0, 4.0):
        chart.push({"read": 2.0}, t=t)
    assert (chart.top(), chart.low()) == (2.0, 2.0)  # 10 dropped from the drawing
    assert chart.mean("read") == 4.0  # not from the run's average
    chart.set_series([NamedSeries("a", [(5.0, 1.0), (9.0, 4.0)])])
    assert (chart.top(), chart.mean("a"), chart._time_extent()) == (4.0, 2.5, (5.0, 9.0))  # noqa: SLF001
    chart.clear()
    assert (chart.top(), chart.low(), chart.mean("a")) == (0.0, None, None)


def test_downsample_keeps_a_step_a_step() -> None:
    points: list[tuple[float, float | None]] = [(float(t), 20.0) for t in range(300)]
    points += [(float(t), 110.0) for t in range(300, 600)]
    out = downsample(points, 60)
    assert len(out) == 60
    assert [v for _, v in out[:30]] == [20.0] * 30 and [v for _, v in out[30:]] == [110.0] * 30
    assert out[0][0] == 4.5  # the bucket's mean time
    assert downsample([(0, 1.0), (1, None), (2, None), (3, 3.0)], 2) == [(0.5, 1.0), (2.5, 3.0)]
    assert downsample([(0, None), (1, None)], 1) == [(0.5, None)]
    assert downsample([(0, 1.0)], 5) == [(0, 1.0)]


def test_a_long_run_reaches_the_plot_as_two_points_a_cell() -> None:
    chart = SeriesChart("IOPS", RW, unit=COUNT)
    chart.extend([(float(t), {"write": 100.0 if t < 500 else 200.0}) for t in range(1000)])
    points = chart.points("write", 50)
    assert len(points) == 50 * POINTS_PER_CELL  # 1000 points never reach the plot
    assert points[0][1] == 100.0 and points[-1][1] == 200.0


def test_a_disk_that_appears_mid_run_has_no_data_before() -> None:
    chart = SeriesChart("Disks", (("sdb", "sdb", "cyan"),), hide_empty=False)
    chart.push({"sdb": 1.0}, t=1.0)
    chart.add_series("sdc", "sdc", "yellow")
    chart.push({"sdb": 2.0, "sdc": 3.0}, t=2.0)
    assert chart.values("sdc") == [None, 3.0] and chart.times_of("sdc") == [1.0, 2.0]
    assert chart.visible_keys == ["sdb", "sdc"]


# -- axes and legend ----------------------------------------------------------------------------


def test_axis_units_pick_the_step_the_top_reaches() -> None:
    assert RATE.step_for(150 * MiB) == (MiB, "MiB/s")
    assert RATE.step_for(800 * 1024) == (1024, "KiB/s")
    assert RATE.step_for(0) == (1.0, "B/s")
    assert COUNT.step_for(12_000) == (1e3, "k IOPS")
    assert LATENCY.step_for(180_000) == (1e3, "µs")
    assert [short_number(v) for v in (0, 2.5, 150, 1000, 0.125)] == [
        "0",
        "2.5",
        "150",
        "1000",
        "0.125",
    ]
    assert DecadeTicks(rows=8).get_ticks(-1, 3) == [-1, 0, 1, 2, 3]
    assert DecadeTicks(rows=3).get_ticks(-1, 3) == [-1, 1, 3]  # fewer rows than decades
    assert DecadeTicks().get_labels_for_ticks([-1, 0, 2]) == ["0.1", "1", "100"]


def test_legend_names_each_series_with_its_value_in_the_axis_unit() -> None:
    chart = SeriesChart("Bandwidth", RW)
    assert chart.legend_text().plain == "B/s   Bandwidth  waiting for data"
    chart.extend(
        [(1.0, {"read": 0.0, "write": 100 * MiB}), (2.0, {"read": 0.0, "write": 50 * MiB})]
    )
    assert chart.legend_text().plain == "MiB/s Bandwidth  ━ write 50.0 MiB/s"
    idle = SeriesChart("Bandwidth", RW)
    idle.push({"read": 0.0, "write": 0.0}, t=1.0)
    assert idle.legend_text().plain.endswith("no I/O yet")


def test_latency_goes_logarithmic_only_over_a_decade() -> None:
    lines = (("mean", "mean", ""), ("p99", "p99", ""))
    chart = SeriesChart("Latency", lines, unit=LATENCY, log_scale=True)
    chart.push({"mean": 200_000.0, "p99": 100_000_000.0}, t=1.0)
    assert chart.logarithmic() and "(log)" in chart.legend_text().plain
    close = SeriesChart("Latency", lines, unit=LATENCY, log_scale=True)
    close.push({"mean": 200_000.0, "p99": 900_000.0}, t=1.0)
    assert not close.logarithmic()


# -- on screen ----------------------------------------------------------------------------------


class ChartApp(App[None]):
    def compose(self) -> ComposeResult:
        yield SeriesChart("Bandwidth", RW, span=60, id="chart")


async def test_data_arriving_fast_is_drawn_once_a_second() -> None:
    app = ChartApp()
    async with app.run_test(size=(80, 10)) as pilot:
        chart = app.query_one(SeriesChart)
        plot = chart.query_one(ChartPlot)
        await wait_until(pilot, lambda: chart.draws >= 1, "the empty frame")
        before = chart.draws
        started = time.monotonic()
        for t in range(1, 6):  # five intervals within the same second
            chart.push({"write": t * MiB}, t=float(t))
        # The first data is drawn at once, the next four wait for the second to pass.
        assert chart.draws == before + 1
        assert [list(d.y) for d in plot._datasets] == [[1.0]]  # noqa: SLF001
        await wait_until(pilot, lambda: chart.draws == before + 2, "the redraw")
        assert time.monotonic() - started >= MIN_REDRAW_S
        await pilot.pause()
        assert chart.draws == before + 2  # five pushes, two redraws
        [line] = plot._datasets  # noqa: SLF001 - what the library was handed
        assert list(line.y) == [1.0, 2.0, 3.0, 4.0, 5.0]  # in MiB/s, the axis' unit
        assert (plot._x_min, plot._x_max) == (0.0, 60.0)  # noqa: SLF001 - the run's span
        assert "━ write 5.0 MiB/s" in chart.legend_text().plain


async def test_hidden_chart_waits_to_draw() -> None:
    app = ChartApp()
    async with app.run_test(size=(80, 10)) as pilot:
        chart = app.query_one(SeriesChart)
        await wait_until(pilot, lambda: chart.draws >= 1, "the first draw")
        chart.display = False
        before = chart.draws
        chart.push({"write": 5.0}, t=1.0)
        assert chart._stale and chart.draws == before  # noqa: SLF001 - the pause under test
        chart.display = True
        chart.resume()
        await wait_until(pilot, lambda: chart.draws > before, "the catch-up draw")
        assert not chart._stale  # noqa: SLF001


class PageApp(App[None]):
    """Four charts on a scrolling page, as the run screen has them: at 80x18 the
    third is cut by the bottom edge and the fourth is below it."""

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="page"):
            for name in ("bw", "iops", "lat", "disks"):
                yield SeriesChart(name, RW, span=60, id=name)


def braille(chart: SeriesChart) -> bool:
    """The plot's canvas holds a drawn line (braille dots), painted or not."""
    canvas = chart.query_one(ChartPlot).query_one("#plot", Canvas)
    return any("\u2800" < char <= "\u28ff" for row in canvas._buffer for char in row)  # noqa: SLF001


async def test_chart_scrolled_out_of_view_waits_to_draw() -> None:
    app = PageApp()
    async with app.run_test(size=(80, 18)) as pilot:
        charts = list(app.query(SeriesChart))
        await wait_until(pilot, lambda: all(c.draws >= 1 for c in charts), "the empty frames")
        top, cut, below = charts[0], charts[2], charts[3]
        assert top.in_view() and cut.in_view() and not below.in_view()
        before = {chart.id: chart.draws for chart in charts}
        for chart in charts:
            chart.extend([(1.0, {"write": 5 * MiB}), (2.0, {"write": 6 * MiB})])
        # In view, even partly: drawn at once. Below the fold: nothing, and not late.
        assert top.draws == before["bw"] + 1 and cut.draws == before["lat"] + 1
        assert below.draws == before["disks"] and not below.pending
        await pilot.pause()
        assert below.draws == before["disks"]
        app.query_one("#page", VerticalScroll).scroll_end(animate=False)
        await wait_until(pilot, lambda: below.draws > before["disks"], "the catch-up draw")
        assert braille(below) and not below.pending
        assert not top.in_view()
        drawn = top.draws
        top.push({"write": 7 * MiB}, t=3.0)  # scrolled away now
        await pilot.pause()
        assert top.draws == drawn and top.values("write") == [5 * MiB, 6 * MiB, 7 * MiB]


async def test_a_redraw_paints_the_canvas_at_once() -> None:
    """The canvas is drawn with the data, not when the screen is next painted: one
    screen update a second, not two."""
    app = ChartApp()
    async with app.run_test(size=(80, 10)) as pilot:
        chart = app.query_one(SeriesChart)
        await wait_until(pilot, lambda: chart.draws >= 1, "the empty frame")
        await pilot.pause()
        assert not braille(chart)
        drawn = chart.draws
        chart.extend([(1.0, {"write": 5 * MiB}), (2.0, {"write": 6 * MiB})])
        assert chart.draws == drawn + 1 and braille(chart)  # before any screen update


async def test_a_second_that_comes_a_little_early_is_drawn_at_once() -> None:
    """fio's seconds jitter: charts fed in the same message draw together, none on a
    timer of its own (that would split one screen update into several)."""
    app = ChartApp()
    async with app.run_test(size=(80, 10)) as pilot:
        chart = app.query_one(SeriesChart)
        await wait_until(pilot, lambda: chart.draws >= 1, "the empty frame")
        chart.push({"write": 1.0}, t=1.0)
        drawn = chart.draws
        chart._last_draw = time.monotonic() - (MIN_REDRAW_S - EARLY_S / 2)  # noqa: SLF001
        chart.push({"write": 2.0}, t=2.0)
        assert chart.draws == drawn + 1 and not chart.pending
        chart.push({"write": 3.0}, t=3.0)  # a real burst still waits for the second
        assert chart.draws == drawn + 1 and chart.pending


async def test_overlay_shows_the_steady_run_and_the_one_that_collapsed() -> None:
    app = OverlayApp()
    async with app.run_test(size=(80, 24)) as pilot:
        chart = app.query_one("#compare-bw", SeriesChart)
        await wait_until(pilot, lambda: chart.draws >= 2, "the overlay")
        legend = chart.legend_text().plain
        assert legend.startswith("MiB/s Bandwidth")
        assert "━ #12 raw pool avg 400.0 MiB/s" in legend
        assert "━ #14 mergerfs avg 160.0 MiB/s" in legend
        steady, collapsed = chart.query_one(ChartPlot)._datasets  # noqa: SLF001
        assert min(steady.y) > 380 and max(collapsed.y[20:]) < 50 < min(collapsed.y[:20])
        assert (
            chart.times_of("#14 mergerfs")[0] == 1.0 and chart.times_of("#12 raw pool")[-1] == 60.0
        )
        assert chart.query_one(ChartPlot).region.bottom <= 24


def test_overlay_of_recorded_runs_one_line_per_run_and_direction() -> None:
    pool = result_of(load_events("pool_write"))
    branch = result_of(load_events("branch_randrw"))
    bw, iops, lat = overlay_charts(
        [("#1 pool", pool.series, pool.summary), ("#2 branch", branch.series, branch.summary)]
    )
    names = ["#1 pool", "#2 branch read", "#2 branch write"]
    assert bw.keys == iops.keys == lat.keys == names
    full = [s for s in pool.series if drawn(s)]
    assert bw.values("#1 pool") == [s.write.bw_bytes_per_s for s in full]
    assert lat.values("#1 pool") == [s.write.lat_mean_ns for s in full]  # write-only
    assert lat.values("#2 branch read") == [s.read.lat_mean_ns for s in branch.series if drawn(s)]
    assert bw.legend is LegendValue.MEAN and lat.log_scale


def test_overlay_average_is_the_tables_figure_and_the_tail_is_not_drawn() -> None:
    """The stonewall step ends on a 0.45 s interval at 111 MiB/s, the run's fio figure
    is 64.7 MiB/s: the legend says fio's figure, the axis does not reach the tail."""
    run = result_of(load_events("stonewall_step"))
    tail = run.series[-1]
    assert tail.interval_s < 0.5 and tail.write.bw_bytes_per_s > 100 * MiB
    bw, _, lat = overlay_charts([("#3 step", run.series, run.summary)])
    assert bw.mean("#3 step") == run.summary["write"].bw_bytes
    assert "avg 64.7 MiB/s" in bw.legend_text().plain  # the table's "64.7", its unit
    assert lat.mean("#3 step") == run.summary["write"].lat_mean_ns
    assert tail.t not in bw.times_of("#3 step")


def test_a_partial_spike_does_not_squash_the_axis() -> None:
    """The newcomer's case: 1.7 GiB/s for four seconds, then 0.14 s at 10.75 GiB/s."""
    steady = [Sample(float(t), 1.0, _rw(0.0), _rw(1702.9 * MiB)) for t in range(1, 5)]
    tail = Sample(4.14, 0.14, _rw(0.0), _rw(10.75 * 1024 * MiB))
    summary = {
        "write": DirectionSummary(
            bw_bytes=round(1702.9 * MiB), iops=1.0, lat_mean_ns=None, lat_p99_ns=None
        )
    }
    bw, _, _ = overlay_charts([("#7 ext4", [*steady, tail], summary)])
    assert bw.top() == 1702.9 * MiB
    assert "avg 1,702.9 MiB/s" in bw.legend_text().plain  # in the table's words


def _rw(bw: float) -> DirectionSample:
    return DirectionSample(bw, bw / MiB, None, None)


def test_live_average_is_bytes_over_seconds_then_fios_figure() -> None:
    """Live, the average weighs each interval by its seconds (bytes / seconds, fio's
    own definition), the partial last one included but not drawn; once the run ends,
    the legend says the summary's figure."""
    run = result_of(load_events("stonewall_step"))
    bw, iops, lat = make_charts()
    feed_charts((bw, iops, lat), run.series)
    seconds = sum(s.interval_s for s in run.series)
    written = sum(s.write.bw_bytes_per_s * s.interval_s for s in run.series)
    assert math.isclose(bw.mean("write") or 0, written / seconds)
    assert len(bw.times) == len(run.series) - 1  # the 0.45 s tail
    assert lat.mean("write_p99") is None  # a mean of percentiles is no percentile
    show_figures((bw, iops, lat), run.summary)
    assert bw.mean("write") == run.summary["write"].bw_bytes
    assert iops.mean("write") == run.summary["write"].iops
    assert lat.mean("write_p99") is None
    bw.clear()  # the next run of a sequence: nothing of this one's average
    assert bw.mean("write") is None


def test_set_series_keeps_labels_apart_and_styles_in_order() -> None:
    chart = SeriesChart("IOPS", unit=COUNT)
    chart.set_series([NamedSeries("a", [(1.0, 1.0)]), NamedSeries("a", [(1.0, 2.0)], style="red")])
    assert chart.keys == ["a", "a (2)"]
    assert [chart._lines[k].style for k in chart.keys] == ["cyan", "red"]  # noqa: SLF001
    assert math.isclose(chart.top(), 2.0)


def test_fixed_series_are_what_the_docstring_says() -> None:
    assert len(STEADY) == len(COLLAPSING) == 60
    assert all(v is not None and v > 380 * MiB for _, v in STEADY)
