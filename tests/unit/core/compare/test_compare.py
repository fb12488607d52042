"""core/compare/comparison: deltas, the noise rule, job matching, differences and refusals.

Runs come from real recordings: the lab captures of tests/fixtures/bench_screens (seed
002's four-job suite, a stonewalled pair, a cached pool write) and the recorded fio
stream behind tests.unit.history.test_history.recorded_result. Where a test needs a figure or a
series of its own, it replaces that field of a recorded run.
"""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from tierdeck.core.bench_models import (
    DirectionSummary,
    EnvFingerprint,
    FileLayout,
    JobSummary,
    RunResult,
    RunStatus,
    WarningKind,
)
from tierdeck.core.compare.comparison import (
    CompareRefused,
    DifferenceKind,
    Match,
    Metric,
    RefusalKind,
    Verdict,
    baseline_index,
    compare_runs,
)
from tierdeck.core.compare.noise import noise_pct, spread_pct
from tierdeck.core.fio_models import EMPTY_SAMPLE_DIRECTION, DirectionSample, Sample

from tests.snapshots.apps.bench_data import load_events, result_of
from tests.unit.history.test_history import recorded_result

MIB = 1 << 20


def recording(name: str, run_id: int, **changes: object) -> RunResult:
    return replace(result_of(load_events(name)), id=run_id, **changes)  # type: ignore[arg-type]


def plain(run_id: int, **changes: object) -> RunResult:
    """recorded_result without its buffered warning: a run with nothing to flag."""
    return replace(recorded_result(), id=run_id, warnings=(), **changes)  # type: ignore[arg-type]


def write_series(mib_per_s: list[float], job: str = "seqwrite") -> tuple[Sample, ...]:
    return tuple(
        Sample(
            t=float(i + 1),
            interval_s=1.0,
            read=EMPTY_SAMPLE_DIRECTION,
            write=DirectionSample(v * MIB, v * 256, 4e6, 8_000_000),
            active_jobs=(job,),
        )
        for i, v in enumerate(mib_per_s)
    )


def one_write_job(run_id: int, mib: float, series: tuple[Sample, ...] = ()) -> RunResult:
    d = DirectionSummary(int(mib * MIB), mib * 256, 4_000_000.0, 8_000_000)
    base = plain(run_id)
    return replace(
        base,
        job_summaries=(JobSummary("seqwrite", "write", "1M", {"write": d}),),
        summary={"write": d},
        series=series,
    )


def cell(comparison, run: int, metric: Metric = Metric.BW, row: int = 0, direction="write"):  # type: ignore[no-untyped-def]
    found = comparison.rows[row].direction(direction)
    assert found is not None
    return found.metric(metric).cells[run]


# ------------------------------------------------------------------ deltas
def test_delta_is_against_the_baseline_and_higher_bandwidth_is_better() -> None:
    steady = write_series([100, 100, 100, 100])
    base = one_write_job(1, 100.0, steady)
    faster = one_write_job(2, 110.0, write_series([110, 110, 110, 110]))
    comparison = compare_runs([base, faster])
    assert cell(comparison, 0).verdict is Verdict.BASELINE
    assert cell(comparison, 0).delta_pct is None
    assert cell(comparison, 1).delta_pct == pytest.approx(10.0)
    assert cell(comparison, 1).verdict is Verdict.BETTER
    # the other way round, the same figures are a loss
    assert cell(comparison.rebased(1), 0).delta_pct == pytest.approx(-100 / 11)
    assert cell(comparison.rebased(1), 0).verdict is Verdict.WORSE


def test_lower_latency_is_better() -> None:
    base = one_write_job(1, 100.0, write_series([100] * 4))
    other = one_write_job(2, 100.0, write_series([100] * 4))
    slow = DirectionSummary(100 * MIB, 25600.0, 6_000_000.0, 4_000_000)
    other = replace(
        other,
        job_summaries=(JobSummary("seqwrite", "write", "1M", {"write": slow}),),
    )
    comparison = compare_runs([base, other])
    mean = cell(comparison, 1, Metric.LAT_MEAN)
    assert mean.delta_pct == pytest.approx(50.0)
    assert mean.verdict is Verdict.WORSE
    p99 = cell(comparison, 1, Metric.LAT_P99)
    assert p99.delta_pct == pytest.approx(-50.0)
    assert p99.verdict is Verdict.BETTER
    assert cell(comparison, 1, Metric.BW).verdict is Verdict.SAME


# ------------------------------------------------------------------ noise
def test_spread_is_the_coefficient_of_variation_of_full_seconds() -> None:
    series = write_series([90, 110, 100])
    assert spread_pct(series, "write", Metric.BW) == pytest.approx(100 * math.sqrt(200 / 3) / 100)
    # a partial first interval (fio's timer) does not count
    partial = (
        replace(series[0], interval_s=0.5, write=replace(series[0].write, bw_bytes_per_s=1.0)),
    )
    from tierdeck.core.compare.noise import job_seconds

    assert job_seconds(partial + series, "seqwrite") == series
    assert spread_pct(series[:2], "write", Metric.BW) is None  # too few seconds
    assert noise_pct(3.0, 4.0) == pytest.approx(5.0)
    assert noise_pct(3.0, None) is None


def test_a_delta_inside_the_runs_own_spread_is_noise_not_a_win() -> None:
    base = one_write_job(1, 100.0, write_series([80, 120, 100, 100]))  # CV 14 %
    other = one_write_job(2, 108.0, write_series([108] * 4))  # steady
    c = cell(compare_runs([base, other]), 1)
    assert c.delta_pct == pytest.approx(8.0)
    assert c.noise_pct == pytest.approx(math.sqrt(200))
    assert c.verdict is Verdict.NOISE
    far = one_write_job(3, 130.0, write_series([130] * 4))
    assert cell(compare_runs([base, far]), 1).verdict is Verdict.BETTER


def test_a_run_without_series_makes_the_noise_unknown() -> None:
    base = one_write_job(1, 100.0, write_series([100] * 4))
    imported = one_write_job(2, 150.0, ())
    c = cell(compare_runs([base, imported]), 1)
    assert c.delta_pct == pytest.approx(50.0)
    assert c.spread_pct is None and c.noise_pct is None
    assert c.verdict is Verdict.UNKNOWN


def test_each_job_of_a_stonewalled_run_is_judged_by_its_own_seconds() -> None:
    step = recording("stonewall_step", 1)
    comparison = compare_runs([step, recording("stonewall_step", 2)])
    capped, uncapped = (cell(comparison, 0, row=i).spread_pct for i in (0, 1))
    # 20 MiB/s then 114 MiB/s: one series, but each job is steady on its own
    assert capped is not None and capped < 2
    assert uncapped is not None and uncapped < 2
    assert spread_pct(step.series, "write", Metric.BW) is not None
    assert spread_pct(step.series, "write", Metric.BW) > 50  # type: ignore[operator]


# ------------------------------------------------------------------ job matching
def test_seed002_suites_match_by_name_in_any_order() -> None:
    suite = recording("suite_mixed", 1)
    reordered = replace(suite, id=2, job_summaries=tuple(reversed(suite.job_summaries)))
    comparison = compare_runs([suite, reordered])
    names = [j.name for j in suite.job_summaries]
    assert [row.name for row in comparison.rows] == names
    for row in comparison.rows:
        assert row.names == (row.name, row.name)
        assert row.matched_by == (Match.FIRST, Match.NAME)
        assert [c.delta_pct for c in row.directions[0].metric(Metric.BW).cells] == [None, 0.0]


def test_jobs_with_other_names_match_by_position_and_extras_get_rows() -> None:
    suite = recording("suite_mixed", 1)
    renamed = replace(
        suite,
        id=2,
        job_summaries=tuple(replace(j, name=f"test{i}") for i, j in enumerate(suite.job_summaries))
        + (replace(suite.job_summaries[0], name="extra"),),
    )
    # a third run names one job like the first and the rest by position
    mixed = replace(
        suite,
        id=3,
        job_summaries=(replace(suite.job_summaries[2], name="read_throughput"),)
        + tuple(replace(j, name=f"other{i}") for i, j in enumerate(suite.job_summaries[:2])),
    )
    comparison = compare_runs([suite, renamed, mixed])
    assert [r.names for r in comparison.rows] == [
        ("write_throughput", "test0", "other0"),
        ("write_iops", "test1", "other1"),
        ("read_throughput", "test2", "read_throughput"),
        ("read_iops", "test3", None),
        (None, "extra", None),
    ]
    assert comparison.rows[0].matched_by == (Match.FIRST, Match.POSITION, Match.POSITION)
    assert comparison.rows[2].matched_by == (Match.FIRST, Match.POSITION, Match.NAME)
    assert comparison.rows[4].name == "extra"
    assert comparison.rows[4].matched_by == (None, Match.FIRST, None)
    # the baseline has no "extra" job: no delta, no verdict
    bw = comparison.rows[4].directions[0].metric(Metric.BW).cells
    assert [c.verdict for c in bw] == [Verdict.MISSING, Verdict.MISSING, Verdict.MISSING]
    keys = {d.key for d in comparison.differences}
    assert "job[write_throughput].name" in keys


def test_a_run_without_job_summaries_is_one_job_of_its_whole_run() -> None:
    base = plain(1)
    whole = plain(2, job_summaries=())
    comparison = compare_runs([base, whole])
    assert len(comparison.rows) == len(base.job_summaries) == 1
    row = comparison.rows[0]
    # named after its one spec ("fiotest"), while fio reported the job as "stream"
    assert row.names == ("stream", "fiotest")
    assert row.matched_by == (Match.FIRST, Match.POSITION)
    both = compare_runs([plain(3, job_summaries=()), whole])
    assert both.rows[0].matched_by == (Match.FIRST, Match.NAME)
    assert [d.direction for d in row.directions] == sorted(base.summary)


# ------------------------------------------------------------------ differences
def test_identical_runs_are_comparable_even_on_other_targets() -> None:
    a = plain(1)
    b = plain(2, target=replace(a.target, path="/srv/lab/mnt/hdd0", label="hdd0"))
    comparison = compare_runs([a, b])
    assert [(d.key, d.kind) for d in comparison.differences] == [
        ("target.path", DifferenceKind.TARGET)
    ]
    assert comparison.comparable


def test_a_different_bs_is_listed_with_one_value_per_run() -> None:
    a = plain(1)
    b = plain(2, jobs=tuple(replace(j, bs="128k") for j in a.jobs))
    c = plain(3, jobs=tuple(replace(j, bs="1m") for j in a.jobs))  # fio reads 1m as 1M
    comparison = compare_runs([a, b, c])
    assert [(d.key, d.values) for d in comparison.differences] == [
        ("job[stream].bs", ("1M", "128k", "1m"))
    ]
    assert not comparison.comparable
    same = compare_runs([a, c])
    assert same.comparable and same.differences == ()


def test_environment_differences_and_unknown_environments() -> None:
    a = plain(1)
    env = replace(
        a.env,
        kernel="6.1.0",
        mergerfs_options={**a.env.mergerfs_options, "category.create": "epmfs"},
        disk_models={"loop3": "WDC WD80EFAX", "loop4": "WDC WD80EFAX"},
    )
    b = plain(2, env=env)
    imported = plain(3, env=EnvFingerprint(), jobs=())
    comparison = compare_runs([a, b, imported])
    found = {d.key: d for d in comparison.differences}
    assert found["kernel"].values == ("6.18.0", "6.1.0", None)
    assert found["mergerfs.category.create"].values == ("mfs", "epmfs", None)
    assert found["mergerfs.category.create"].kind is DifferenceKind.MERGERFS
    assert found["disk_models"].values == ("2x Loopback device", "2x WDC WD80EFAX", None)
    # the imported run says nothing: unknown is not a difference of its own
    assert "fio_version" not in found and "fs_type" not in found
    assert not any(k.startswith("job[") for k in found)


def test_cache_warnings_and_old_placement_are_noted_per_run() -> None:
    cached = recording("pool_write", 1)
    clean = recording("pool_write", 2, warnings=())
    old = recording("clones_write", 3, file_layout=FileLayout.ONE_PER_JOB)
    comparison = compare_runs([cached, clean, old])
    assert [w.kind for w in comparison.notes[0].inflating] == [WarningKind.CACHE]
    assert not comparison.notes[1].any
    assert comparison.notes[2].clones_shared_file
    assert not compare_runs([clean, recording("pool_write", 4, warnings=())]).notes[0].any
    assert not comparison.comparable


# ------------------------------------------------------------------ refusals
@pytest.mark.parametrize(
    ("runs", "kind"),
    [
        ([plain(1)], RefusalKind.TOO_FEW),
        ([plain(i) for i in range(1, 10)], RefusalKind.TOO_MANY),
        ([plain(1), plain(2, status=RunStatus.FAILED, error="boom")], RefusalKind.NOT_OK),
        ([plain(1), plain(2, status=RunStatus.CANCELLED)], RefusalKind.NOT_OK),
        ([plain(1), plain(1)], RefusalKind.DUPLICATE),
    ],
)
def test_refusals_are_typed(runs: list[RunResult], kind: RefusalKind) -> None:
    with pytest.raises(CompareRefused) as caught:
        compare_runs(runs)
    assert caught.value.kind is kind


def test_an_unknown_baseline_is_refused() -> None:
    runs = [plain(4), plain(7)]
    assert baseline_index(runs, 7) == 1
    assert baseline_index(runs, None) == 0
    with pytest.raises(CompareRefused) as caught:
        baseline_index(runs, 5)
    assert caught.value.kind is RefusalKind.UNKNOWN_BASELINE
    with pytest.raises(CompareRefused) as caught:
        compare_runs(runs, baseline=2)
    assert caught.value.kind is RefusalKind.UNKNOWN_BASELINE
