"""Health readings in the history file at a path, with sqlite3 alone when the file is
at this schema version, as best_writes.py does: the store's import (the benchmark
model, ~15 ms) was a tenth of a `tierdeck health` run's CPU. Any other file (missing,
older, unreadable) goes through the store, which creates, migrates or refuses it as
every command does. Apart from health_readings.py, whose rows the store uses, so that
neither imports the other.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ...core.cache_wear import HealthReading
from .health_readings import insert, select
from .read_only import SCHEMA_VERSION, open_read_only


def keep(path: Path, readings: list[HealthReading], host_id: str) -> None:
    """Store one collection's readings in the history file at ``path``. Raises the
    store's HistoryError when it cannot."""
    try:
        conn = sqlite3.connect(path, timeout=10.0, isolation_level=None) if path.exists() else None
    except (OSError, sqlite3.Error):
        conn = None
    if conn is not None:
        try:
            conn.execute("BEGIN IMMEDIATE")
            # read under the lock: another tierdeck may have migrated it meanwhile
            if conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
                insert(conn, readings, host_id)
                conn.execute("COMMIT")
                return
            conn.execute("ROLLBACK")
        except sqlite3.Error:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        finally:
            conn.close()
    from .store import HistoryStore  # a new, older or odd file: the store says why

    HistoryStore(path).save_health(readings, host_id)


def kept(path: Path, key: str) -> list[HealthReading]:
    """The disk's readings in the history file at ``path``, oldest first; none when
    there is no file (reading makes none). Raises the store's HistoryError when the
    file cannot be used."""
    if not path.exists():
        return []
    conn = open_read_only(path)
    if conn is not None:
        try:
            return select(conn, key)
        except sqlite3.Error:
            pass
        finally:
            conn.close()
    from .store import HistoryStore

    return HistoryStore(path).health_readings(key)


# fio's write bandwidth per status interval, times the interval: the bytes each run
# wrote, from its series (a run's summary has only its mean rate)
_BENCHMARK_WRITES_SQL = (
    "SELECT SUM(s.w_bw * s.interval_s) FROM samples s JOIN runs r ON r.id = s.run_id"
    " WHERE COALESCE(r.target_mountpoint, r.target_path) = ? AND r.host_id = ?"
    " AND r.started_at >= ? AND r.started_at <= ?"
)


def benchmark_writes(
    path: Path, host_id: str, mountpoint: str, since: float, until: float
) -> int | None:
    """The bytes the history's benchmarks on this host wrote to ``mountpoint`` between
    ``since`` and ``until``; None when the file cannot be read at this version."""
    conn = open_read_only(path) if path.exists() else None
    if conn is None:
        return None
    try:
        row = conn.execute(_BENCHMARK_WRITES_SQL, (mountpoint, host_id, since, until)).fetchone()
    except sqlite3.Error:
        return None
    finally:
        conn.close()
    return int(row[0] or 0)
