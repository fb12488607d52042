"""app/mover/plan's bandwidth: the best write of runs on a slow branch's filesystem."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

from tierdeck.app.history.best_writes import read_best_writes
from tierdeck.app.history.read_only import SCHEMA_VERSION
from tierdeck.app.history.schema import MIGRATIONS
from tierdeck.app.history.store import HistoryStore, MeasuredWrite, migrate, schema_version
from tierdeck.app.mover.plan import HistoryWrites, best_write_bandwidth
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


def test_the_light_reader_answers_as_the_store(tmp_path: Path) -> None:
    """`mover run` reads the best writes without the run store: the same answer from the
    same file, none from a missing file (which it does not create), and a file of another
    schema version left to the store (which migrates or refuses it)."""
    runs = [run("/mnt/d1/bench", "/mnt/d1", 100), run("/mnt/d2", None, 180)]
    assert len(MIGRATIONS) == SCHEMA_VERSION
    from_store = measured(runs, tmp_path)
    path = tmp_path / "history.sqlite3"
    assert sorted(read_best_writes(path) or [], key=str) == sorted(from_store, key=str)
    assert HistoryWrites(path).best_writes() == read_best_writes(path)
    missing = tmp_path / "none" / "history.sqlite3"
    assert read_best_writes(missing) == [] and not missing.parent.exists()
    not_a_folder = tmp_path / "history.sqlite3" / "history.sqlite3"
    assert read_best_writes(not_a_folder) == []  # ENOTDIR: nothing measured there either
    older = tmp_path / "older.sqlite3"
    conn = sqlite3.connect(older, isolation_level=None)
    migrate(conn, older, upto=SCHEMA_VERSION - 1)
    conn.close()
    assert read_best_writes(older) is None
    assert HistoryWrites(older).best_writes() == []  # the store migrated it
    conn = sqlite3.connect(older)
    assert schema_version(conn) == SCHEMA_VERSION
    conn.close()
