"""core/compare/series.py: the one rule of every chart (drawn seconds, what "avg" means), and
the HTML export's charts following it. Runs are the recorded lab runs of
tests/fixtures/bench_screens."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st
from tierdeck.app.compare.render import format_value
from tierdeck.app.export.charts import lines
from tierdeck.core.compare.comparison import Metric, compare_runs
from tierdeck.core.compare.series import direction_series, weighted_mean

from tests.unit.core.compare.test_compare import recording


def test_a_stored_runs_average_is_fios_figure_and_the_partial_tail_is_not_drawn() -> None:
    run = recording("stonewall_step", 3)
    tail = run.series[-1]
    assert tail.interval_s < 0.75
    series = direction_series(run.series, "write", Metric.BW, run.summary["write"])
    assert series.average == run.summary["write"].bw_bytes
    assert [t for t, _ in series.points] == [s.t for s in run.series[:-1]]


def test_a_live_average_weighs_seconds_for_rates_and_ios_for_latency() -> None:
    run = recording("stonewall_step", 3)
    seconds = sum(s.interval_s for s in run.series)
    bw = direction_series(run.series, "write", Metric.BW).average
    assert bw is not None
    assert math.isclose(
        bw, sum(s.write.bw_bytes_per_s * s.interval_s for s in run.series) / seconds
    )
    ios = [(s.write.lat_mean_ns, s.write.iops * s.interval_s) for s in run.series]
    lat = direction_series(run.series, "write", Metric.LAT_MEAN).average
    assert lat == weighted_mean(ios)
    assert direction_series(run.series, "write", Metric.LAT_P99).average is None


VALUES = st.one_of(st.none(), st.just(0.0), st.floats(1e-3, 1e12))
WEIGHTS = st.one_of(st.just(0.0), st.floats(1e-3, 1e6))


@given(st.lists(st.tuples(VALUES, WEIGHTS)))
def test_weighted_mean_stays_within_its_values(pairs: list[tuple[float | None, float]]) -> None:
    mean = weighted_mean(pairs)
    real = [v for v, w in pairs if v is not None and w > 0]
    if not real:
        assert mean is None
    else:
        assert mean is not None and min(real) * (1 - 1e-9) <= mean <= max(real) * (1 + 1e-9)


def test_html_chart_legends_say_the_tables_figure_without_the_tail() -> None:
    runs = [recording("pool_write", 1), recording("stonewall_step", 3)]
    comparison = compare_runs(runs)
    table = {
        m.metric: [format_value(m.metric, c.value) for c in m.cells if c is not None]
        for row in comparison.rows
        for d in row.directions
        for m in d.metrics
        if row.name == comparison.rows[0].name
    }
    found = lines(runs, Metric.BW)
    assert [line.label for line in found] == [
        f"#1 {runs[0].name} · avg {table[Metric.BW][0]} MiB/s",
        f"#3 {runs[1].name} · avg {format_value(Metric.BW, runs[1].summary['write'].bw_bytes)} MiB/s",
    ]
    tail = runs[1].series[-1]
    assert tail.t not in [t for t, _ in found[1].points]
