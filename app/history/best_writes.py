"""The best write bandwidth the history measured at each place, read with sqlite3 alone.

The mover's forecast asks on every run (a systemd timer's, too): importing the run
store for it loaded the whole benchmark model (14 modules, ~15 ms warm and more from a
cold page cache) before the first byte moved. A file this reader is not sure of (not at
this tierdeck's schema version, or not readable as a history) is left to the store
(app/mover/plan.py's HistoryWrites asks it then), which migrates or refuses it as
every other command does.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .read_only import open_read_only

BEST_WRITES_SQL = (
    "SELECT COALESCE(target_mountpoint, target_path), summary FROM runs WHERE status = 'ok'"
)


@dataclass(frozen=True)
class MeasuredWrite:
    """The best write bandwidth the ok runs measured at one place."""

    where: str  # the target's mountpoint, or its path when none was recorded
    bw_bytes: int


def best_of(rows: Iterable[tuple[str, str]]) -> list[MeasuredWrite]:
    """Per place, the best write bandwidth of ``BEST_WRITES_SQL``'s rows."""
    best: dict[str, int] = {}
    for where, summary in rows:
        try:
            bw = int((json.loads(summary).get("write") or {}).get("bw_bytes") or 0)
        except (ValueError, TypeError, AttributeError):
            continue  # a summary this tierdeck cannot read measures nothing here
        if bw > best.get(where, 0):
            best[where] = bw
    return [MeasuredWrite(where, bw) for where, bw in best.items()]


def read_best_writes(path: Path) -> list[MeasuredWrite] | None:
    """The best writes in the history file at ``path``, opened read-only: none when there
    is no file (nothing was measured; the file is not made for it). None when the file
    must go through the store instead (another schema version, or an error)."""
    try:
        if not path.exists():
            return []
    except OSError:  # a folder we may not read: the store says why
        return None
    conn = open_read_only(path)
    if conn is None:
        return None
    try:
        rows: list[Any] = conn.execute(BEST_WRITES_SQL).fetchall()
    except sqlite3.Error:
        return None
    finally:
        conn.close()
    return best_of(rows)
