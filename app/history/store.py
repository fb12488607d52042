"""Benchmark history: every run, good or not, in one SQLite file.

Where: ``platformdirs.user_data_dir("tierdeck")/history.sqlite3``; the environment
variable ``TIERDECK_DATA_DIR`` replaces the folder (tests, several profiles, a NAS whose
home is read-only). One short connection per call, so the TUI's worker threads and a
CLI run in another terminal can share the file without holding locks.

Failed and cancelled runs are kept, with their status, because "it failed through FUSE"
is a result too; but :meth:`HistoryStore.list` returns only ``ok`` runs unless asked for
others, so a comparison never averages a half-run into the good ones.

The schema is versioned with ``PRAGMA user_version``. :data:`MIGRATIONS` are applied in
order, each in one transaction with its version bump, so a crash leaves the file at the
old version, never half-migrated. A file written by a *newer* tierdeck is refused and not
touched: guessing at an unknown schema could lose someone's history.

A run's JSON (the columns' forms and the ``tierdeck.run/1`` object) is run_json.py;
each run's line of ``history list --json``, kept beside its rows, is run_lines.py.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

from ...core.bench_models import FileLayout, RunHost, RunResult, RunStatus, TargetKind
from ...core.cache_wear import HealthReading
from ...core.errors import ParseError, TierdeckError
from ...core.fio_models import Sample
from ...core.spec_dict import spec_to_dict
from .best_writes import BEST_WRITES_SQL, MeasuredWrite, best_of
from .paths import DB_NAME, ENV_DATA_DIR, default_history_path
from .rows import LIGHT_COLUMNS, load_run, series_rows_of, tags_of
from .run_json import (
    env_to_dict,
    fields_of,
    import_to_json,
    job_summary_to_dict,
    result_to_json,
    warning_to_dict,
)
from .run_lines import LINE_VERSION, ORDER, list_where, pack, stored_lines
from .schema import MIGRATIONS

__all__ = [
    "DB_NAME",
    "ENV_DATA_DIR",
    "MeasuredWrite",
    "default_history_path",
]  # kept importable from here


class HistoryError(TierdeckError):
    """The history file cannot be used (newer schema, not a database, not writable)."""


class RunNotFound(HistoryError):
    """No run with that id in the history."""

    def __init__(self, run_id: int) -> None:
        super().__init__(f"no run #{run_id} in the history")
        self.run_id = run_id


# --------------------------------------------------------------------------- schema

# Targets (path, label) and presets a filter menu offers. A module-level alias: inside
# HistoryStore, "list" is the method.
FilterOptions = tuple[list[tuple[str, str]], list[str]]


def schema_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection, path: Path, upto: int | None = None) -> int:
    """Bring ``conn`` to ``upto`` (default: the newest version); return the version.

    ``conn`` must be in autocommit mode (isolation_level=None) so that BEGIN/COMMIT here
    are the only transaction control: executescript() would commit behind our back."""
    target = len(MIGRATIONS) if upto is None else upto
    current = schema_version(conn)
    if current > len(MIGRATIONS):
        raise HistoryError(
            f"{path} was written by a newer tierdeck (history schema version {current}; "
            f"this tierdeck knows up to {len(MIGRATIONS)}). Upgrade tierdeck, or set "
            f"{ENV_DATA_DIR} to use another folder. The file was not changed."
        )
    for version in range(current, target):
        try:
            conn.execute("BEGIN IMMEDIATE")
            # Read again under the lock: another tierdeck opening the same new file (the
            # TUI and a CLI run, a sweep and a script) may have migrated it meanwhile.
            if schema_version(conn) > version:
                conn.execute("COMMIT")
                continue
            for step in MIGRATIONS[version]:
                if callable(step):
                    step(conn)
                else:
                    conn.execute(step)
            # user_version is part of the database header: it commits or rolls back with
            # the tables, so the version can never claim a migration that did not happen.
            conn.execute(f"PRAGMA user_version = {version + 1}")
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise HistoryError(
                f"{path}: cannot upgrade the history schema from version {version} to "
                f"{version + 1}: {exc}. The file was left at version {version}."
            ) from exc
    return schema_version(conn)


# --------------------------------------------------------------------------- store


class RunStore(Protocol):
    """What every screen and service that reads or keeps runs may ask of the history
    (``HistoryStore``; tests pass stand-ins)."""

    def save(self, result: RunResult) -> int: ...

    def get(self, run_id: int, *, fio: bool = True, devices: bool = True) -> RunResult | None: ...

    def list(
        self,
        *,
        target: str | None = None,
        preset: str | None = None,
        status: RunStatus | Collection[RunStatus] | None = None,
        tag: str | None = None,
        host: str | None = None,
        full: bool = False,
        series: bool = True,
        limit: int | None = None,
    ) -> list[RunResult]: ...

    def rename(self, run_id: int, name: str) -> None: ...

    def set_tags(self, run_id: int, tags: Sequence[str]) -> None: ...

    def delete(self, run_id: int) -> None: ...

    def filter_options(self) -> FilterOptions: ...

    def hosts(self) -> tuple[RunHost, ...]: ...

    def find_import(self, content_hash: str) -> int | None: ...


class HistoryStore:
    """Benchmark runs in SQLite. Every method opens its own short connection."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_history_path()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise HistoryError(f"cannot create {self.path.parent}: {exc.strerror}") from exc
        with self._connect(migrating=True) as conn:
            migrate(conn, self.path)

    @contextmanager
    def _connect(self, *, migrating: bool = False) -> Iterator[sqlite3.Connection]:
        try:
            conn = sqlite3.connect(self.path, timeout=10.0, isolation_level=None)
        except sqlite3.Error as exc:
            raise HistoryError(f"cannot open {self.path}: {exc}") from exc
        try:
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA foreign_keys = ON")
            if not migrating and schema_version(conn) != len(MIGRATIONS):
                # another tierdeck (newer or older) rewrote the file since __init__
                migrate(conn, self.path)
            yield conn
        except sqlite3.DatabaseError as exc:
            raise HistoryError(f"{self.path}: {exc}") from exc
        finally:
            conn.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    # -- writing -------------------------------------------------------------------

    def save(self, result: RunResult) -> int:
        """Store ``result`` as a new run (its ``id`` is ignored) and return the new id."""
        target = result.target
        with self._transaction() as conn:
            cursor = conn.execute(
                "INSERT INTO runs (name, status, target_path, target_kind, target_label,"
                " target_disks, target_fs_type, target_mountpoint, preset, started_at,"
                " finished_at, error, spec, fio_json, env, summary, warnings, job_summaries,"
                " file_layout, import_source, content_hash, host_name, host_id)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    result.name,
                    RunStatus(result.status).value,
                    target.path,
                    TargetKind(target.kind).value,
                    target.label,
                    json.dumps(list(target.disks)),
                    target.fs_type,
                    target.mountpoint,
                    result.preset,
                    result.started_at,
                    result.finished_at,
                    result.error,
                    json.dumps([spec_to_dict(job) for job in result.jobs]),
                    None if result.fio_json is None else json.dumps(result.fio_json),
                    json.dumps(env_to_dict(result.env)),
                    json.dumps({k: fields_of(v) for k, v in result.summary.items()}),
                    json.dumps([warning_to_dict(w) for w in result.warnings]),
                    json.dumps([job_summary_to_dict(j) for j in result.job_summaries]),
                    FileLayout(result.file_layout).value,
                    import_to_json(result.imported),
                    result.imported.content_hash if result.imported else None,
                    result.host.name,
                    result.host.id,
                ),
            )
            run_id = cursor.lastrowid
            assert run_id is not None  # INSERT into a rowid table always sets it
            _write_tags(conn, run_id, result.tags)
            conn.executemany(
                "INSERT INTO samples VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [_sample_row(run_id, seq, s) for seq, s in enumerate(result.series)],
            )
            conn.executemany(
                "INSERT INTO device_samples VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        run_id,
                        seq,
                        d.t,
                        d.device,
                        d.read_bytes_per_s,
                        d.write_bytes_per_s,
                        d.read_iops,
                        d.write_iops,
                        d.util_pct,
                    )  # fmt: skip
                    for seq, d in enumerate(result.device_series)
                ],
            )
            _keep_line(conn, run_id)
        return run_id

    def find_import(self, content_hash: str) -> int | None:
        """The run imported from a file with these bytes (sha256), if any."""
        with self._connect() as conn:
            row = conn.execute(
                "SELECT id FROM runs WHERE content_hash = ?", (content_hash,)
            ).fetchone()
        return None if row is None else int(row[0])

    def best_writes(self) -> list[MeasuredWrite]:
        """Per place (mountpoint, else path) the best write bandwidth of its ok runs,
        read from the summaries alone: the mover's forecast asks on every run, and
        building every run of a 10,000-run history took it 1.9 s."""
        with self._connect() as conn:
            return best_of(conn.execute(BEST_WRITES_SQL).fetchall())

    # -- health readings (health_readings.py: imported here, so that a listing of runs
    # never loads the inventory model its readings are made from) --------------------

    def save_health(self, readings: list[HealthReading], host_id: str = "") -> int:
        """Keep one collection's readings; how many rows were stored."""
        from . import health_readings

        with self._transaction() as conn:
            return health_readings.insert(conn, readings, host_id)

    def health_readings(self, disk_id: str, since: float | None = None) -> list[HealthReading]:
        """A disk's kept readings over time, oldest first (its chart, its wear rate)."""
        from . import health_readings

        with self._connect() as conn:
            return health_readings.select(conn, disk_id, since)

    def rename(self, run_id: int, name: str) -> None:
        name = name.strip()
        if not name:
            raise HistoryError("a run's name cannot be empty")
        with self._transaction() as conn:
            if conn.execute("UPDATE runs SET name = ? WHERE id = ?", (name, run_id)).rowcount == 0:
                raise RunNotFound(run_id)
            _keep_line(conn, run_id)

    def set_tags(self, run_id: int, tags: Sequence[str]) -> None:
        """Replace the run's tags (in the order given, duplicates and blanks dropped)."""
        with self._transaction() as conn:
            if conn.execute("SELECT 1 FROM runs WHERE id = ?", (run_id,)).fetchone() is None:
                raise RunNotFound(run_id)
            conn.execute("DELETE FROM run_tags WHERE run_id = ?", (run_id,))
            _write_tags(conn, run_id, tags)
            _keep_line(conn, run_id)

    def delete(self, run_id: int) -> None:
        """Remove the run with its series and its line (foreign keys cascade)."""
        with self._transaction() as conn:
            if conn.execute("DELETE FROM runs WHERE id = ?", (run_id,)).rowcount == 0:
                raise RunNotFound(run_id)

    # -- reading -------------------------------------------------------------------

    def get(self, run_id: int, *, fio: bool = True, devices: bool = True) -> RunResult | None:
        """The whole run, with its series and fio JSON; None if there is no such run.

        ``fio=False`` leaves out fio's document (hundreds of KiB of JSON to parse) and
        ``devices=False`` the disks' series: a comparison reads neither."""
        columns = "*" if fio else LIGHT_COLUMNS
        with self._connect() as conn:
            row = conn.execute(f"SELECT {columns} FROM runs WHERE id = ?", (run_id,)).fetchone()
            if row is None:
                return None
            tags = tags_of(conn, [run_id]).get(run_id, ())
            return load_run(conn, row, tags=tags, with_fio=fio, with_devices=devices)

    def list(
        self,
        *,
        target: str | None = None,
        preset: str | None = None,
        status: RunStatus | Collection[RunStatus] | None = None,
        tag: str | None = None,
        host: str | None = None,
        full: bool = False,
        series: bool = True,
        limit: int | None = None,
    ) -> list[RunResult]:
        """Stored runs, newest first.

        ``status=None`` means **only ok runs**: failed and cancelled ones must be asked
        for (``status=RunStatus.FAILED``, or a collection such as ``tuple(RunStatus)``
        for every run), so nothing that compares results can mix them in by accident.
        ``target`` matches the target path (a trailing "/" is ignored); ``host`` the
        host a run ran on: its name (any case), its id, or the machine id in it
        ("ssh:ID", "ID"). Series are
        included unless ``series=False`` (a list view needs only the summaries);
        ``fio_json`` (often hundreds of KiB) only with ``full=True``. ``limit``: the
        newest that many (a screen pages through a history of thousands of runs).
        """
        sql, params = _list_query(target, preset, status, tag, host, full, limit)
        with self._connect() as conn:
            rows = conn.execute(sql, params).fetchall()
            tags = tags_of(conn, [int(row["id"]) for row in rows])
            return [
                load_run(
                    conn, row, tags=tags.get(int(row["id"]), ()), with_fio=full, with_series=series
                )
                for row in rows
            ]

    def list_json(
        self,
        *,
        target: str | None = None,
        preset: str | None = None,
        status: RunStatus | Collection[RunStatus] | None = None,
        tag: str | None = None,
        host: str | None = None,
    ) -> Sequence[str]:
        """``list``'s runs with their series (no fio document), each its
        ``tierdeck.run/1`` object as one line of JSON (run_lines.py): the line kept in the
        history where there is one of this version, else written from the run's rows
        (``run_line``) and kept for the next listing when the file can be written."""
        where, params = _list_where(target, preset, status, tag, host)
        with self._connect() as conn:
            conn.execute("BEGIN")  # one snapshot: the kept lines and the rows of the others
            try:
                seen = _data_version(conn)
                found = stored_lines(conn, where, params)
                computed = {
                    run_id: run_line(conn, run_id) for run_id, line in found if line is None
                }
            finally:
                conn.execute("COMMIT")
            if computed:
                _keep_lines(conn, computed, seen)
        return [computed[run_id] if line is None else line.decode() for run_id, line in found]

    def filter_options(self) -> FilterOptions:
        """Every (target path, label) and every preset in the history, whatever the
        status: what a filter menu offers, without loading any run."""
        with self._connect() as conn:
            targets = conn.execute(
                "SELECT DISTINCT target_path, target_label FROM runs ORDER BY 1, 2"
            ).fetchall()
            presets = conn.execute(
                "SELECT DISTINCT preset FROM runs WHERE preset IS NOT NULL ORDER BY 1"
            ).fetchall()
        return [(str(r[0]), str(r[1])) for r in targets], [str(r[0]) for r in presets]

    def hosts(self) -> tuple[RunHost, ...]:
        """Every host the history's runs name, whatever the status (the unknown host of
        imported runs left out), read from the runs_host index alone."""
        with self._connect() as conn:
            rows = conn.execute(
                "SELECT DISTINCT host_name, host_id FROM runs"
                " WHERE host_name != '' OR host_id != '' ORDER BY 1, 2"
            ).fetchall()
        return tuple(RunHost(str(r[0]), str(r[1])) for r in rows)


# --------------------------------------------------------------------------- rows


def _write_tags(conn: sqlite3.Connection, run_id: int, tags: Sequence[str]) -> None:
    clean: list[str] = []
    for tag in tags:
        tag = tag.strip()
        if tag and tag not in clean:
            clean.append(tag)
    conn.executemany(
        "INSERT INTO run_tags (run_id, pos, tag) VALUES (?, ?, ?)",
        [(run_id, pos, tag) for pos, tag in enumerate(clean)],
    )


def _sample_row(run_id: int, seq: int, s: Sample) -> tuple[Any, ...]:
    row: list[Any] = [run_id, seq, s.t, s.interval_s]
    for d in (s.read, s.write, s.trim):
        row += [d.bw_bytes_per_s, d.iops, d.lat_mean_ns, d.lat_p99_ns]
    row.append(json.dumps(list(s.active_jobs)))
    return tuple(row)


def run_line(conn: sqlite3.Connection, run_id: int) -> str:
    """The run's line of ``history list --json``, written from its rows as they read back
    (what a kept line must equal byte for byte: tests/unit/history/test_run_lines.py)."""
    row = conn.execute(f"SELECT {LIGHT_COLUMNS} FROM runs WHERE id = ?", (run_id,)).fetchone()
    if row is None:
        raise RunNotFound(run_id)
    tags = tags_of(conn, [run_id]).get(run_id, ())
    result = load_run(conn, row, tags=tags, with_fio=False, with_series=False)
    try:
        series = series_rows_of(conn, run_id)
    except (ValueError, TypeError) as exc:  # as load_run says of its series
        raise ParseError("history database", f"run #{run_id}: {exc}") from exc
    return json.dumps(result_to_json(result, rows=series))


def _keep_line(conn: sqlite3.Connection, run_id: int) -> None:
    """Write the run's line inside the transaction that changed it (schema v9's triggers
    dropped the old one). A run whose rows cannot be read (a file edited by hand) keeps
    none: its listing says why, as before."""
    try:
        line = run_line(conn, run_id)
    except ParseError:
        return
    conn.execute(
        "INSERT OR REPLACE INTO run_lines (run_id, version, line) VALUES (?, ?, ?)",
        (run_id, LINE_VERSION, pack(line)),
    )


def _data_version(conn: sqlite3.Connection) -> int:
    # changes when another connection commits to the file, and only then
    return int(conn.execute("PRAGMA data_version").fetchone()[0])


def _keep_lines(conn: sqlite3.Connection, lines: dict[int, str], seen: int) -> None:
    """Keep the lines a listing computed, read when the file's ``_data_version`` was
    ``seen``: not when another connection has committed since (its change may have
    dropped one of them after they were read), nor when the file cannot be written now
    (read-only, or a writer holds it: a listing does not wait long for a cache)."""
    try:
        conn.execute("PRAGMA busy_timeout = 200")
        conn.execute("BEGIN IMMEDIATE")
        if _data_version(conn) == seen:
            conn.executemany(
                "INSERT OR REPLACE INTO run_lines (run_id, version, line) VALUES (?, ?, ?)",
                [(run_id, LINE_VERSION, pack(line)) for run_id, line in lines.items()],
            )
        conn.execute("COMMIT")
    except sqlite3.OperationalError:  # read-only, busy, locked, full
        if conn.in_transaction:
            conn.execute("ROLLBACK")


def _list_where(
    target: str | None,
    preset: str | None,
    status: RunStatus | Collection[RunStatus] | None,
    tag: str | None,
    host: str | None,
) -> tuple[str, list[Any]]:
    """The WHERE of ``HistoryStore.list`` (run_lines.list_where) from its arguments."""
    wanted = (
        [RunStatus.OK]
        if status is None
        else [status]
        if isinstance(status, RunStatus)
        else list(status)
    )
    names: tuple[str, ...] | None = None
    if preset is not None:
        # a preset's former names too: runs stored before a rename are still its runs
        from ...core.presets import find_preset  # the presets' table: only for this filter

        known = find_preset(preset)
        names = known.names if known is not None else (preset,)
    return list_where([RunStatus(s).value for s in wanted], target, names, tag, host)


def _list_query(
    target: str | None,
    preset: str | None,
    status: RunStatus | Collection[RunStatus] | None,
    tag: str | None,
    host: str | None,
    full: bool,
    limit: int | None,
) -> tuple[str, list[Any]]:
    """``HistoryStore.list``'s SELECT of the runs rows and its parameters."""
    where, params = _list_where(target, preset, status, tag, host)
    columns = "*" if full else LIGHT_COLUMNS
    sql = f"SELECT {columns} FROM runs WHERE {where} {ORDER}"
    if limit is not None:
        sql += " LIMIT ?"
        params.append(max(0, limit))
    return sql, params
