"""The history file opened read-only, for the readers that answer without the run store
(the mover's best writes, the stored lines of ``history list --json``): the store
imports the whole benchmark model, which these readers exist to avoid.

A file such a reader is not sure of (not at this tierdeck's schema version, or not
readable as a history) is left to the store, which migrates or refuses it as every
other command does.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

# The schema version these readers know: len(schema.MIGRATIONS), which a unit test keeps
# equal (the schema module imports the benchmark model they avoid).
SCHEMA_VERSION = 10  # v10 added health_readings, each health collection per disk


def open_read_only(path: Path) -> sqlite3.Connection | None:
    """The history at ``path``, opened read-only (a missing file is not created) with the
    store's wait for a writer's lock; None when it is not a file at this schema version
    or cannot be read: the store then answers instead."""
    try:
        conn = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True, timeout=10.0)
    except sqlite3.Error:
        return None
    try:
        if conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
            return conn
    except sqlite3.Error:
        pass
    conn.close()
    return None
