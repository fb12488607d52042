"""Mover runs, in one SQLite file beside the benchmark history (``mover.sqlite`` in
``TIERDECK_DATA_DIR`` or platformdirs' data folder, as app/history/store.py finds its own).

Every run is kept: moves, dry runs (marked, so ``mover history`` can tell a forecast
from a move), stopped and failed runs, and refusals (a timer's run refused because
another mover held the lock is worth seeing in the list). One short connection per
call; ``PRAGMA user_version`` versions the schema and a newer file is refused untouched.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ...core.errors import TierdeckError
from ...core.mover import SkipReason, StopReason
from ..history.paths import default_history_path

DB_NAME = "mover.sqlite"
_VERSION = 2
_SCHEMA = """
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    layout_name TEXT NOT NULL,
    layout_path TEXT NOT NULL,
    started REAL NOT NULL,
    duration REAL NOT NULL,
    dry_run INTEGER NOT NULL,
    files_planned INTEGER NOT NULL,
    bytes_planned INTEGER NOT NULL,
    files_moved INTEGER NOT NULL,
    bytes_moved INTEGER NOT NULL,
    skipped TEXT NOT NULL,      -- JSON list of {rel, reason, detail}
    recovered INTEGER NOT NULL, -- moves a crash left, finished or undone first
    stopped TEXT,               -- StopReason, NULL when the run was not stopped
    refused TEXT,               -- RefusalKind, NULL when the run started
    message TEXT NOT NULL,
    unplaced INTEGER NOT NULL DEFAULT 0 -- selected files no slow branch could take
);
CREATE INDEX runs_layout ON runs (layout_path, started);
"""
# Version 1 had no unplaced column: its runs count none (what they recorded then).
_UPGRADE = {1: "ALTER TABLE runs ADD COLUMN unplaced INTEGER NOT NULL DEFAULT 0;"}


class MoverHistoryError(TierdeckError):
    pass


@dataclass(frozen=True)
class SkippedFile:
    rel: str
    reason: SkipReason
    detail: str = ""


@dataclass(frozen=True)
class MoverRecord:
    """One run as recorded (``id`` is None until stored)."""

    layout_name: str
    layout_path: str
    started: float
    duration: float
    dry_run: bool
    files_planned: int
    bytes_planned: int
    files_moved: int
    bytes_moved: int
    skipped: tuple[SkippedFile, ...]
    recovered: int
    stopped: StopReason | None
    refused: str | None
    message: str
    id: int | None = None
    unplaced: int = 0  # selected files no slow branch could take (a move then exits 1)

    @property
    def failed(self) -> bool:
        """What makes ``mover run`` exit non-zero: stopped, refused, or a move that left
        selected files no slow branch could take."""
        return (self.stopped is not None or self.refused is not None
                or (self.unplaced > 0 and not self.dry_run))  # fmt: skip


def default_mover_path() -> Path:
    return default_history_path().parent / DB_NAME


class MoverHistory:
    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_mover_path()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise MoverHistoryError(f"cannot create {self.path.parent}: {exc.strerror}") from exc
        with self._connect() as conn:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > _VERSION:
                raise MoverHistoryError(
                    f"{self.path} was written by a newer tierdeck (schema {version}); not touched"
                )
            if version == 0:
                conn.executescript(f"BEGIN; {_SCHEMA} PRAGMA user_version = {_VERSION}; COMMIT;")
            elif version < _VERSION:
                steps = " ".join(_UPGRADE[v] for v in range(version, _VERSION))
                conn.executescript(f"BEGIN; {steps} PRAGMA user_version = {_VERSION}; COMMIT;")

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        try:
            conn = sqlite3.connect(self.path, timeout=10.0, isolation_level=None)
        except sqlite3.Error as exc:
            raise MoverHistoryError(f"cannot open {self.path}: {exc}") from exc
        try:
            conn.row_factory = sqlite3.Row
            yield conn
        except sqlite3.DatabaseError as exc:
            raise MoverHistoryError(f"{self.path}: {exc}") from exc
        finally:
            conn.close()

    def add(self, record: MoverRecord) -> int:
        skipped = json.dumps(
            [{"rel": s.rel, "reason": str(s.reason), "detail": s.detail} for s in record.skipped]
        )
        with self._connect() as conn:
            cur = conn.execute(
                "INSERT INTO runs (layout_name, layout_path, started, duration, dry_run,"
                " files_planned, bytes_planned, files_moved, bytes_moved, skipped, recovered,"
                " stopped, refused, message, unplaced) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    record.layout_name,
                    record.layout_path,
                    record.started,
                    record.duration,
                    int(record.dry_run),
                    record.files_planned,
                    record.bytes_planned,
                    record.files_moved,
                    record.bytes_moved,
                    skipped,
                    record.recovered,
                    None if record.stopped is None else str(record.stopped),
                    record.refused,
                    record.message,
                    record.unplaced,
                ),
            )
            return int(cur.lastrowid or 0)

    def list(self, layout_path: str | None = None, limit: int | None = None) -> list[MoverRecord]:
        """Runs newest first, of one layout file (its absolute path) or of all."""
        sql, args = "SELECT * FROM runs", []
        if layout_path is not None:
            sql += " WHERE layout_path = ?"
            args.append(layout_path)
        sql += " ORDER BY started DESC, id DESC"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        with self._connect() as conn:
            return [_record(row) for row in conn.execute(sql, args)]


def _record(row: sqlite3.Row) -> MoverRecord:
    skipped = tuple(
        SkippedFile(s["rel"], SkipReason(s["reason"]), s.get("detail", ""))
        for s in json.loads(row["skipped"])
    )
    return MoverRecord(
        layout_name=row["layout_name"],
        layout_path=row["layout_path"],
        started=row["started"],
        duration=row["duration"],
        dry_run=bool(row["dry_run"]),
        files_planned=row["files_planned"],
        bytes_planned=row["bytes_planned"],
        files_moved=row["files_moved"],
        bytes_moved=row["bytes_moved"],
        skipped=skipped,
        recovered=row["recovered"],
        stopped=None if row["stopped"] is None else StopReason(row["stopped"]),
        refused=row["refused"],
        message=row["message"],
        id=row["id"],
        unplaced=row["unplaced"],
    )
