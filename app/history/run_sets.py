"""Sets of runs made from one definition: sweeps and ladders.

A set is a row of ``run_sets`` in the history database (schema v5): its kind, a name
and the definition it was made from (JSON, as given, so that ``--resume`` can check it
is asked to finish the same sweep). Each cell of the set (a sweep's combination, a
ladder's rung) names the stored run that fills it. The runs themselves are ordinary
history runs, also tagged ``sweep:<id>`` / ``ladder:<id>`` (:func:`set_tag`), so the
history list, compare and export work on them unchanged.

A run deleted from the history leaves its cell empty (``ON DELETE SET NULL``), and
:meth:`RunSetStore.cells` omits it: a resumed sweep runs that cell again.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .store import HistoryError, HistoryStore


class RunSetKind(StrEnum):
    SWEEP = "sweep"
    LADDER = "ladder"
    CLIENTS = "clients"  # one job from several hosts at once (app/clients/)


@dataclass(frozen=True)
class RunSet:
    id: int
    kind: RunSetKind
    name: str
    created_at: float  # epoch seconds
    definition: dict[str, Any] = field(hash=False)

    @property
    def tag(self) -> str:
        return set_tag(self.kind, self.id)


def set_tag(kind: RunSetKind, set_id: int) -> str:
    """The tag every run of a set carries in the history: ``sweep:12``."""
    return f"{kind.value}:{set_id}"


class RunSetStore(HistoryStore):
    """The history, plus its sets. Every method opens its own short connection."""

    def create(self, kind: RunSetKind, name: str, definition: dict[str, Any]) -> int:
        with self._transaction() as conn:
            cursor = conn.execute(
                "INSERT INTO run_sets (kind, name, created_at, definition) VALUES (?, ?, ?, ?)",
                (kind.value, name, time.time(), json.dumps(definition, sort_keys=True)),
            )
            assert cursor.lastrowid is not None
            return int(cursor.lastrowid)

    def get_set(self, set_id: int) -> RunSet | None:
        with self._connect() as conn:
            row = conn.execute("SELECT * FROM run_sets WHERE id = ?", (set_id,)).fetchone()
        return None if row is None else _set_from_row(row)

    def list_sets(self, kind: RunSetKind | None = None, limit: int | None = None) -> list[RunSet]:
        """Newest first."""
        sql = "SELECT * FROM run_sets"
        params: list[Any] = []
        if kind is not None:
            sql += " WHERE kind = ?"
            params.append(kind.value)
        sql += " ORDER BY id DESC"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(max(0, limit))
        with self._connect() as conn:
            rows = conn.execute(sql, params).fetchall()
        return [_set_from_row(r) for r in rows]

    def add_cell(
        self, set_id: int, key: str, run_id: int | None, position: int, note: str | None = None
    ) -> None:
        """Record which run fills a cell (replacing an earlier run of the same cell), or
        with no run, ``note``: why (a ladder's rung skipped before fio ran)."""
        with self._transaction() as conn:
            if conn.execute("SELECT 1 FROM run_sets WHERE id = ?", (set_id,)).fetchone() is None:
                raise HistoryError(f"no sweep or ladder #{set_id} in the history")
            conn.execute(
                "INSERT INTO run_set_cells (set_id, key, position, run_id, note)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (set_id, key) DO UPDATE SET"
                " position = excluded.position, run_id = excluded.run_id, note = excluded.note",
                (set_id, key, position, run_id, note),
            )

    def cells(self, set_id: int) -> dict[str, int]:
        """Cell key -> run id, in cell order; cells without a run (never run, or its run
        deleted) are absent."""
        with self._connect() as conn:
            rows = conn.execute(
                "SELECT key, run_id FROM run_set_cells WHERE set_id = ? AND run_id IS NOT NULL"
                " ORDER BY position",
                (set_id,),
            ).fetchall()
        return {str(r["key"]): int(r["run_id"]) for r in rows}

    def notes(self, set_id: int) -> dict[str, str]:
        """Cell key -> why it has no run, in cell order, for the cells stored with a note
        and no run."""
        with self._connect() as conn:
            rows = conn.execute(
                "SELECT key, note FROM run_set_cells WHERE set_id = ? AND run_id IS NULL"
                " AND note IS NOT NULL ORDER BY position",
                (set_id,),
            ).fetchall()
        return {str(r["key"]): str(r["note"]) for r in rows}

    def delete_set(self, set_id: int) -> None:
        """Forget the set (its runs stay in the history, with their tag)."""
        with self._transaction() as conn:
            conn.execute("DELETE FROM run_sets WHERE id = ?", (set_id,))


def _set_from_row(row: Any) -> RunSet:
    try:
        definition = json.loads(row["definition"])
    except ValueError:
        definition = {}
    return RunSet(
        id=int(row["id"]),
        kind=RunSetKind(row["kind"]),
        name=str(row["name"]),
        created_at=float(row["created_at"]),
        definition=definition if isinstance(definition, dict) else {},
    )
