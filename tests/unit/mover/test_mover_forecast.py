"""app/mover/plan's bandwidth: the best write of runs on a slow branch's filesystem."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from tierdeck.app.history.store import HistoryStore, MeasuredWrite
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


def measured(runs: list[RunResult], tmp_path: Path) -> list[MeasuredWrite]:
    """What the real store answers for these runs once saved (a failed one among them)."""
    store = HistoryStore(tmp_path / "history.sqlite3")
    for r in runs:
        store.save(r)
    store.save(dataclasses.replace(run("/mnt/d1", "/mnt/d1", 10**12), status=RunStatus.FAILED))
    return store.best_writes()


def facts(mount_point: str | None) -> BranchFacts:
    return BranchFacts("/mnt/d1/media", True, mount_point, "ext4", 1, 1, "8:1", (), Redundancy.NONE)


def test_best_write_on_the_same_filesystem(tmp_path: Path) -> None:
    runs = [
        run("/mnt/d1/bench", "/mnt/d1", 100),
        run("/mnt/d1", None, 180),  # no mountpoint recorded: its path says where
        run("/mnt/d10", "/mnt/d10", 900),  # another disk whose name starts alike
        run("/mnt/d1/read-only", "/mnt/d1", None),
    ]
    writes = measured(runs, tmp_path)
    assert best_write_bandwidth(writes, facts("/mnt/d1")) == 180  # not the failed run's
    assert best_write_bandwidth(writes, facts("/mnt/d2")) is None
    assert best_write_bandwidth(writes, facts(None)) is None
    assert best_write_bandwidth(writes, None) is None
