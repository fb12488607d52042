"""The ladder's arithmetic and its one-line diagnosis (core/ladder/model.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from tierdeck.core.bench_models import DirectionSummary
from tierdeck.core.fio_models import EMPTY_SAMPLE_DIRECTION, DirectionSample, Sample
from tierdeck.core.ladder.model import (
    BranchRole,
    Rung,
    RungKind,
    bandwidth_spread,
    diagnose,
    penalty_pct,
    reference_of,
    with_penalties,
)

MIB = 1024 * 1024


def rung(kind: RungKind, mib_s: float | None, *, option: tuple[str, str] | None = None) -> Rung:
    if mib_s is None:
        return Rung(kind, f"/{kind.value}", skipped="O_DIRECT refused", option=option)
    summary = {"write": DirectionSummary(int(mib_s * MIB), mib_s, 1000.0, 2000)}
    return Rung(kind, f"/{kind.value}", run_id=1, summary=summary, option=option)


def ladder(
    branch: float | None, pool: float | None, tmpfs: float | None, nullrw: float | None
) -> tuple[Rung, ...]:
    return with_penalties(
        [
            rung(RungKind.BRANCH, branch),
            rung(RungKind.POOL, pool),
            rung(RungKind.TMPFS, tmpfs),
            rung(RungKind.NULLRW, nullrw),
        ]
    )


def test_seed_000_penalty() -> None:
    # "raw pool 1240 vs mergerfs 374": mergerfs loses 70 % of what is below it
    rungs = ladder(1240, 374, 900, 1000)
    assert rungs[1].penalty_pct == pytest.approx(69.8, abs=0.1)
    assert rungs[2].penalty_pct == pytest.approx(10.0)
    assert rungs[0].penalty_pct is None and rungs[3].penalty_pct is None


def test_penalty_edges() -> None:
    assert penalty_pct(50, 100) == 50
    assert penalty_pct(150, 100) == -50
    assert penalty_pct(None, 100) is None
    assert penalty_pct(50, 0) is None


def test_pool_is_measured_against_its_best_branch() -> None:
    rungs = with_penalties(
        [rung(RungKind.BRANCH, 100), rung(RungKind.BRANCH, 200), rung(RungKind.POOL, 150)]
    )
    assert rungs[2].penalty_pct == pytest.approx(25)


def test_diagnosis_the_rest_from_the_branch_options() -> None:
    assert diagnose(ladder(1240, 374, 850, 1000)) == (
        "mergerfs itself costs 70 % here; FUSE over tmpfs costs 15 %, so the rest comes from the branch options"
    )


def test_diagnosis_fuse_is_the_bottleneck() -> None:
    assert diagnose(ladder(1000, 400, 400, 1000)) == (
        "mergerfs itself costs 60 % here; FUSE over tmpfs costs 60 % too, so FUSE itself is the bottleneck"
    )


def test_diagnosis_fuse_free() -> None:
    line = diagnose(ladder(1000, 500, 990, 1000))
    assert line.startswith(
        "mergerfs itself costs 50 % here; FUSE over tmpfs costs nothing measurable"
    )


def test_diagnosis_no_penalty_and_pool_faster() -> None:
    assert diagnose(ladder(1000, 980, 500, 900)).startswith("mergerfs costs nothing measurable")
    assert diagnose(ladder(150, 900, 500, 900)).startswith(
        "the pool is 500 % faster than its branch"
    )


def test_diagnosis_with_skipped_rungs() -> None:
    assert diagnose(ladder(None, 400, 500, 900)) == (
        "the branch rung did not run, so mergerfs's own cost is unknown"
    )
    assert diagnose(ladder(1000, None, 500, 900)).startswith("the pool rung did not run")
    assert diagnose(ladder(1000, 400, None, 900)) == (
        "mergerfs itself costs 60 % here; the tmpfs rung did not run, so FUSE's own share is unknown"
    )
    assert "the tmpfs/nullrw rung did not run" in diagnose(ladder(1000, 400, None, None))


def test_diagnosis_of_an_option_sweep() -> None:
    rungs = with_penalties(
        [
            rung(RungKind.POOL, 100),
            rung(RungKind.OPTION, 90, option=("cache.files", "off")),
            rung(RungKind.OPTION, 150, option=("cache.files", "partial")),
        ]
    )
    assert rungs[2].penalty_pct == pytest.approx(-50)
    assert diagnose(rungs) == "cache.files=partial is 50 % faster than the pool as mounted"
    flat = with_penalties(
        [rung(RungKind.POOL, 100), rung(RungKind.OPTION, 102, option=("direct_io", "true"))]
    )
    assert diagnose(flat).startswith("no value tried beats the pool as mounted")
    lost = with_penalties(
        [rung(RungKind.POOL, None), rung(RungKind.OPTION, 102, option=("direct_io", "true"))]
    )
    assert diagnose(lost) == "no option rung could be compared with the pool: no verdict"


def tiered_ladder(cache: float | None, slow: float | None, pool: float) -> tuple[Rung, ...]:
    """A tiered pool's ladder: the cache its create policy writes to, a slow branch."""
    return with_penalties(
        [
            replace(rung(RungKind.BRANCH, cache), path="/mnt/cache", role=BranchRole.CREATE),
            replace(rung(RungKind.BRANCH, slow), path="/mnt/hdd0", role=BranchRole.SLOW),
            rung(RungKind.POOL, pool),
            rung(RungKind.TMPFS, 900),
            rung(RungKind.NULLRW, 1000),
        ]
    )


def test_pool_is_measured_against_the_branch_it_writes_to() -> None:
    # the slow branch is faster here, but a new file goes to the cache: that is the
    # pool's disk, not the best of its branches
    rungs = tiered_ladder(100, 200, 150)
    assert rungs[2].penalty_pct == pytest.approx(-50)
    assert reference_of(rungs[2], rungs) is rungs[0]


def test_diagnosis_names_the_branch_and_the_slow_tier() -> None:
    assert diagnose(tiered_ladder(400, 100, 120)) == (
        "mergerfs itself costs 70 % over /mnt/cache; FUSE over tmpfs costs 10 %, so the rest "
        "comes from the branch options; the slow branch /mnt/hdd0 takes 100 MiB/s, 75 % "
        "slower than /mnt/cache (where new files go once the cache is full)"
    )
    assert diagnose(tiered_ladder(400, 100, 660)).startswith(
        "the pool is 65 % faster than /mnt/cache, the branch it writes to: a cache above"
    )
    assert diagnose(tiered_ladder(400, 100, 400)).startswith(
        "mergerfs costs nothing measurable here (the pool is within 5 % of /mnt/cache, the "
        "branch it writes to)"
    )


def test_diagnosis_when_the_cache_rung_did_not_run() -> None:
    # the slow branch ran, but it is not what the pool writes to: no comparison
    rungs = tiered_ladder(None, 100, 120)
    assert rungs[2].penalty_pct is None
    assert diagnose(rungs) == (
        "the branch the pool writes to rung did not run, so mergerfs's own cost is unknown"
    )
    line = diagnose(tiered_ladder(400, None, 120))
    assert line.endswith("; the slow branch /mnt/hdd0 did not run")


def test_a_delta_inside_the_rungs_own_spread_is_noise() -> None:
    rungs = list(tiered_ladder(400, 100, 360))  # the pool 10 % below the cache
    assert diagnose(with_penalties(rungs)).startswith("mergerfs itself costs 10 % over")
    # ... but both wandered 8-9 % second by second: 10 % tells nothing
    rungs[0] = replace(rungs[0], spread_pct=8.0)
    rungs[2] = replace(rungs[2], spread_pct=9.0)
    assert diagnose(with_penalties(rungs)).startswith(
        "mergerfs costs nothing measurable here (the pool is within 12 % of /mnt/cache"
    )


def test_bandwidth_spread_of_a_rungs_seconds() -> None:
    def second(mib_s: float, interval: float = 1.0) -> Sample:
        write = DirectionSample(mib_s * MIB, mib_s, 1e6, None)
        return Sample(1.0, interval, EMPTY_SAMPLE_DIRECTION, write)

    summary = {"write": DirectionSummary(100 * MIB, 100.0, 1e6, 2_000_000)}
    seconds = [second(90), second(110), second(90), second(110), second(5, interval=0.2)]
    assert bandwidth_spread(summary, seconds) == pytest.approx(10.0)  # partial last second
    assert bandwidth_spread(summary, seconds[:2]) is None  # too few seconds to say
    assert bandwidth_spread({}, seconds) is None


def _with_network(pool: float | None, network: float | None) -> tuple[Rung, ...]:
    rungs = [*ladder(1000, pool, 900, 1000), rung(RungKind.NETWORK, network)]
    return with_penalties(rungs)


def test_the_network_rung_is_measured_against_the_pool() -> None:
    rungs = _with_network(800, 200)
    assert rungs[-1].penalty_pct == pytest.approx(75)
    assert diagnose(rungs).endswith("; through the network: 75 % slower than the pool on the NAS")


def test_the_network_within_noise_faster_or_not_run() -> None:
    assert diagnose(_with_network(800, 790)).endswith(
        "; through the network: within 5 % of the pool on the NAS (no measurable cost)"
    )
    assert "through the network: 50 % faster than the pool on the NAS" in diagnose(
        _with_network(800, 1200)
    )
    assert diagnose(_with_network(800, None)).endswith(
        "; the network rung did not run (O_DIRECT refused)"
    )
    assert diagnose(_with_network(None, 200)).endswith(
        "; the pool rung did not run, so what the network costs is unknown"
    )
    # no network rung: the diagnosis of the layers alone, unchanged
    assert "network" not in diagnose(ladder(1240, 374, 850, 1000))
