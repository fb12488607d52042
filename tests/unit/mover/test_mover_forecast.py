"""app/mover/plan's bandwidth: the best write of runs on a slow branch's filesystem."""

from __future__ import annotations

from tierdeck.app.mover.plan import best_write_bandwidth
from tierdeck.core.bench_models import (
    BenchTarget,
    DirectionSummary,
    RunResult,
    RunStatus,
    TargetKind,
)
from tierdeck.core.layout.branch_facts import BranchFacts, Redundancy


def run(path: str, mountpoint: str | None, write_bps: int | None) -> RunResult:
    summary = {} if write_bps is None else {"write": DirectionSummary(write_bps, None, None, None)}
    target = BenchTarget(path, TargetKind.PATH, path, (), "ext4", mountpoint)
    return RunResult(None, "r", RunStatus.OK, target, (), 0.0, 1.0, summary=summary)


def facts(mount_point: str | None) -> BranchFacts:
    return BranchFacts("/mnt/d1/media", True, mount_point, "ext4", 1, 1, "8:1", (), Redundancy.NONE)


def test_best_write_on_the_same_filesystem() -> None:
    runs = [
        run("/mnt/d1/bench", "/mnt/d1", 100),
        run("/mnt/d1", None, 180),  # no mountpoint recorded: its path says where
        run("/mnt/d10", "/mnt/d10", 900),  # another disk whose name starts alike
        run("/mnt/d1/read-only", "/mnt/d1", None),
    ]
    assert best_write_bandwidth(runs, facts("/mnt/d1")) == 180
    assert best_write_bandwidth(runs, facts("/mnt/d2")) is None
    assert best_write_bandwidth(runs, facts(None)) is None
    assert best_write_bandwidth(runs, None) is None
