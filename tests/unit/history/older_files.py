"""History files as an older tierdeck wrote them, for the migration tests.

An older tierdeck's store no longer exists to write them, and today's ``save`` writes
columns an older schema lacks: the runs are saved by today's store into a file beside
the old one, then copied into the columns the old schema has.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

from tierdeck.app.history.store import HistoryStore, migrate
from tierdeck.core.bench_models import RunResult


def older_history(path: Path, version: int, runs: Sequence[RunResult]) -> list[int]:
    """A history file at schema ``version`` holding ``runs``; their ids."""
    current = HistoryStore(path.with_name(f"{path.stem}-today.sqlite3"))
    ids = [current.save(run) for run in runs]
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        assert migrate(conn, path, upto=version) == version
        conn.execute("ATTACH DATABASE ? AS today", (str(current.path),))
        columns = ", ".join(str(r[1]) for r in conn.execute("PRAGMA main.table_info(runs)"))
        conn.execute("BEGIN")
        conn.execute(f"INSERT INTO main.runs ({columns}) SELECT {columns} FROM today.runs")
        for table in ("run_tags", "samples", "device_samples"):  # as they were since v1
            conn.execute(f"INSERT INTO main.{table} SELECT * FROM today.{table}")
        conn.execute("COMMIT")
        conn.execute("DETACH DATABASE today")
    finally:
        conn.close()
    return ids
