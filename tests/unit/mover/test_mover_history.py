"""app/mover/history.py: every mover run recorded and listed back."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from tierdeck.app.mover.history import (
    MoverHistory,
    MoverHistoryError,
    MoverRecord,
    SkippedFile,
    default_mover_path,
)
from tierdeck.core.mover import SkipReason, StopReason


def record(path: str, started: float, **kw: object) -> MoverRecord:
    base: dict[str, object] = {
        "layout_name": Path(path).stem,
        "layout_path": path,
        "started": started,
        "duration": 2.5,
        "dry_run": False,
        "files_planned": 3,
        "bytes_planned": 300,
        "files_moved": 2,
        "bytes_moved": 200,
        "skipped": (SkippedFile("tv/a.mkv", SkipReason.OPEN, "pid 42"),),
        "recovered": 0,
        "stopped": None,
        "refused": None,
        "message": "moved 2 files",
    }
    base.update(kw)
    return MoverRecord(**base)


def test_round_trip_newest_first_and_per_layout(data_dir: Path) -> None:
    store = MoverHistory()
    assert store.path == default_mover_path() == data_dir / "mover.sqlite"
    first = store.add(record("/etc/tierdeck/a.toml", 100.0))
    store.add(record("/etc/tierdeck/b.toml", 200.0, stopped=StopReason.NO_SPACE))
    store.add(record("/etc/tierdeck/a.toml", 300.0, dry_run=True, skipped=()))
    runs = store.list()
    assert [r.started for r in runs] == [300.0, 200.0, 100.0]
    assert runs[1].stopped is StopReason.NO_SPACE and runs[1].failed
    assert runs[0].dry_run and not runs[0].failed
    only_a = store.list("/etc/tierdeck/a.toml", limit=1)
    assert [r.started for r in only_a] == [300.0]
    assert store.list("/etc/tierdeck/a.toml")[-1] == record("/etc/tierdeck/a.toml", 100.0, id=first)


def test_refusals_are_failures(data_dir: Path) -> None:
    store = MoverHistory()
    store.add(record("/x.toml", 1.0, refused="locked", files_moved=0))
    (run,) = store.list()
    assert run.refused == "locked" and run.failed


def test_a_newer_file_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "mover.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(MoverHistoryError, match="newer tierdeck"):
        MoverHistory(path)
    assert path.read_bytes() == before


def test_a_move_that_left_unplaced_files_is_a_failure(data_dir: Path) -> None:
    store = MoverHistory()
    store.add(record("/x.toml", 1.0, unplaced=188))
    store.add(record("/x.toml", 2.0, unplaced=188, dry_run=True))
    dry, move = store.list()
    assert move.unplaced == 188 and move.failed
    assert not dry.failed  # a forecast fails nothing


def test_a_version_1_file_is_upgraded_keeping_its_runs(tmp_path: Path) -> None:
    path = tmp_path / "mover.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(
        "CREATE TABLE runs (id INTEGER PRIMARY KEY, layout_name TEXT NOT NULL,"
        " layout_path TEXT NOT NULL, started REAL NOT NULL, duration REAL NOT NULL,"
        " dry_run INTEGER NOT NULL, files_planned INTEGER NOT NULL,"
        " bytes_planned INTEGER NOT NULL, files_moved INTEGER NOT NULL,"
        " bytes_moved INTEGER NOT NULL, skipped TEXT NOT NULL, recovered INTEGER NOT NULL,"
        " stopped TEXT, refused TEXT, message TEXT NOT NULL)"
    )
    conn.execute(
        "INSERT INTO runs (layout_name, layout_path, started, duration, dry_run, files_planned,"
        " bytes_planned, files_moved, bytes_moved, skipped, recovered, stopped, refused, message)"
        " VALUES ('a', '/a.toml', 1, 1, 0, 1, 1, 1, 1, '[]', 0, NULL, NULL, 'moved 1 file')"
    )
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()
    (run,) = MoverHistory(path).list()
    assert run.unplaced == 0 and not run.failed and run.message == "moved 1 file"
