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

:func:`result_to_json` is the stable ``tierdeck.run/1`` object of ``--json`` output
(docs/bench-json.md).
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import fields
from pathlib import Path
from typing import Any, Protocol

from ...backends.fio.stream import job_summaries, parse_report
from ...core.bench_models import (
    BenchTarget,
    DeviceSample,
    DirectionSummary,
    EnvFingerprint,
    FileLayout,
    JobSummary,
    RunResult,
    RunStatus,
    RunWarning,
    TargetKind,
    WarningKind,
)
from ...core.errors import ParseError, TierdeckError
from ...core.fio_models import DirectionSample, DirectionStats, Sample
from ...core.imports import ImportFormat, ImportNotice, ImportSource
from ...core.jobspec import SPEC_OPTIONS, JobSpec, JobSpecError, jobfile_text
from ...core.presets import find_preset

SCHEMA = "tierdeck.run/1"
DB_NAME = "history.sqlite3"
ENV_DATA_DIR = "TIERDECK_DATA_DIR"
_DIRECTIONS = ("read", "write", "trim")


class HistoryError(TierdeckError):
    """The history file cannot be used (newer schema, not a database, not writable)."""


class RunNotFound(HistoryError):
    """No run with that id in the history."""

    def __init__(self, run_id: int) -> None:
        super().__init__(f"no run #{run_id} in the history")
        self.run_id = run_id


def default_history_path() -> Path:
    folder = os.environ.get(ENV_DATA_DIR)
    if folder:
        return Path(folder) / DB_NAME
    from platformdirs import user_data_dir

    return Path(user_data_dir("tierdeck")) / DB_NAME


# --------------------------------------------------------------------------- schema

# MIGRATIONS[i] takes the schema from version i to i + 1. Append only: never edit a
# migration that has shipped, a user's file may already be past it.
_V1 = (
    """CREATE TABLE runs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        status TEXT NOT NULL,              -- ok | failed | cancelled
        target_path TEXT NOT NULL,
        target_kind TEXT NOT NULL,
        target_label TEXT NOT NULL,
        target_disks TEXT NOT NULL,        -- JSON list of disk names under the target
        target_fs_type TEXT,
        target_mountpoint TEXT,
        preset TEXT,
        started_at REAL NOT NULL,          -- epoch seconds
        finished_at REAL,
        error TEXT,                        -- fio's own message for failed runs
        spec TEXT NOT NULL,                -- JSON list of JobSpec objects, as run
        fio_json TEXT,                     -- the full final fio JSON document
        env TEXT NOT NULL,                 -- JSON EnvFingerprint
        summary TEXT NOT NULL,             -- JSON {direction: DirectionSummary}
        warnings TEXT NOT NULL             -- JSON list of strings
    )""",
    """CREATE TABLE run_tags (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        pos INTEGER NOT NULL,
        tag TEXT NOT NULL,
        PRIMARY KEY (run_id, pos)
    )""",
    # One row per fio status interval; r_/w_/t_ = read/write/trim, rates per second.
    """CREATE TABLE samples (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        t REAL NOT NULL,
        interval_s REAL NOT NULL,
        r_bw REAL NOT NULL, r_iops REAL NOT NULL, r_lat_mean REAL, r_lat_p99 INTEGER,
        w_bw REAL NOT NULL, w_iops REAL NOT NULL, w_lat_mean REAL, w_lat_p99 INTEGER,
        t_bw REAL NOT NULL, t_iops REAL NOT NULL, t_lat_mean REAL, t_lat_p99 INTEGER,
        active_jobs TEXT NOT NULL,         -- JSON list of job names
        PRIMARY KEY (run_id, seq)
    )""",
    # One row per disk per diskstats interval.
    """CREATE TABLE device_samples (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        t REAL NOT NULL,
        device TEXT NOT NULL,
        read_bytes_per_s REAL NOT NULL,
        write_bytes_per_s REAL NOT NULL,
        read_iops REAL NOT NULL,
        write_iops REAL NOT NULL,
        util_pct REAL NOT NULL,
        PRIMARY KEY (run_id, seq)
    )""",
    "CREATE INDEX runs_status_started ON runs (status, started_at)",
    "CREATE INDEX runs_target ON runs (target_path)",
    "CREATE INDEX runs_preset ON runs (preset)",
    "CREATE INDEX run_tags_tag ON run_tags (tag)",
)

# v2: per-job summaries (a suite's jobs differ; the whole-run figure mixes them) and
# how the test files were laid out. Runs stored by v1 used one file per job, so their
# numjobs clones shared it; per-job summaries are rebuilt from their fio JSON.
_V2 = (
    "ALTER TABLE runs ADD COLUMN job_summaries TEXT",  # JSON list of JobSummary
    f"ALTER TABLE runs ADD COLUMN file_layout TEXT NOT NULL DEFAULT '{FileLayout.ONE_PER_JOB}'",
)


def _backfill_job_summaries(conn: sqlite3.Connection) -> None:
    rows = conn.execute("SELECT id, spec, fio_json FROM runs WHERE fio_json IS NOT NULL")
    updates = []
    for run_id, spec_text, fio_text in rows.fetchall():
        try:
            jobs = [JobSpec(**job) for job in json.loads(spec_text)]
            summaries = job_summaries(parse_report(json.loads(fio_text)), jobs)
        except (ValueError, TypeError, ParseError):
            continue  # left empty: the run still shows its whole-run figures
        updates.append((json.dumps([_job_summary_to_dict(j) for j in summaries]), run_id))
    conn.executemany("UPDATE runs SET job_summaries = ? WHERE id = ?", updates)


def legacy_warning_kind(text: str) -> WarningKind:
    """Kinds for warnings stored as bare text (schema < 3). The only place tierdeck
    reads a warning's words: once, to type what older versions wrote."""
    lowered = text.lower()
    for kind, hints in (
        (WarningKind.CACHE, ("cache warning",)),
        (WarningKind.BUFFERED, ("direct=0",)),
        (WarningKind.MEMORY_TARGET, ("memory-backed", "measure ram")),
        (WarningKind.CACHES_KEPT, ("drops caches", "could not drop caches", "zfs arc")),
        (WarningKind.NO_DISKS, ("no local disk",)),
        (WarningKind.SHARED_DISKS, ("another benchmark",)),
        (WarningKind.NO_CAPACITY, ("reports no capacity",)),
        (WarningKind.RAW_MODE, ("raw mode",)),
        (WarningKind.CACHE, ("page cache", "inflate")),
    ):
        if any(hint in lowered for hint in hints):
            return kind
    return WarningKind.OTHER


def _type_warnings(conn: sqlite3.Connection) -> None:
    rows = conn.execute("SELECT id, warnings FROM runs").fetchall()
    updates = []
    for run_id, text in rows:
        try:
            items = json.loads(text)
        except ValueError:
            continue
        typed = [
            {"kind": legacy_warning_kind(w).value, "text": w} if isinstance(w, str) else w
            for w in items
        ]
        updates.append((json.dumps(typed), run_id))
    conn.executemany("UPDATE runs SET warnings = ? WHERE id = ?", updates)


# v4: runs imported from files of fio output (app/history/fio_import.py): where from, and the
# file's sha256, unique so that the same file is never stored twice.
_V4 = (
    "ALTER TABLE runs ADD COLUMN import_source TEXT",  # JSON ImportSource; NULL: run here
    "ALTER TABLE runs ADD COLUMN content_hash TEXT",
    "CREATE UNIQUE INDEX runs_content_hash ON runs (content_hash) WHERE content_hash IS NOT NULL",
)

# v5: sweeps and ladders (app/history/run_sets.py): a set of runs made from one definition,
# and which run fills each of its cells. A cell whose run is deleted is empty again, so
# a resumed sweep runs it anew.
_V5 = (
    """CREATE TABLE run_sets (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,                -- sweep | ladder
        name TEXT NOT NULL,
        created_at REAL NOT NULL,          -- epoch seconds
        definition TEXT NOT NULL           -- JSON: what to run, as given
    )""",
    """CREATE TABLE run_set_cells (
        set_id INTEGER NOT NULL REFERENCES run_sets(id) ON DELETE CASCADE,
        key TEXT NOT NULL,                 -- the cell's identity within the set
        position INTEGER NOT NULL,
        run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
        PRIMARY KEY (set_id, key)
    )""",
    "CREATE INDEX run_set_cells_run ON run_set_cells (run_id)",
)

# v6: why a cell has no run (a ladder's rung skipped before fio ran: no room, no RAM).
_V6 = ("ALTER TABLE run_set_cells ADD COLUMN note TEXT",)

Migration = Sequence[str | Callable[[sqlite3.Connection], None]]
# v3: warnings are {"kind", "text"} objects (core.bench_models.RunWarning).
MIGRATIONS: list[Migration] = [
    _V1,
    (*_V2, _backfill_job_summaries),
    (_type_warnings,),
    _V4,
    _V5,
    _V6,
]

# list() without full=True: every runs column but the big fio document
# Targets (path, label) and presets a filter menu offers. A module-level alias: inside
# HistoryStore, "list" is the method.
FilterOptions = tuple[list[tuple[str, str]], list[str]]

_LIGHT_COLUMNS = (
    "id, name, status, target_path, target_kind, target_label, target_disks,"
    " target_fs_type, target_mountpoint, preset, started_at, finished_at, error, spec,"
    " NULL AS fio_json, env, summary, warnings, job_summaries, file_layout, import_source,"
    " content_hash"
)


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

    def get(self, run_id: int) -> RunResult | None: ...

    def list(
        self,
        *,
        target: str | None = None,
        preset: str | None = None,
        status: RunStatus | Collection[RunStatus] | None = None,
        tag: str | None = None,
        full: bool = False,
        series: bool = True,
        limit: int | None = None,
    ) -> list[RunResult]: ...

    def rename(self, run_id: int, name: str) -> None: ...

    def set_tags(self, run_id: int, tags: Sequence[str]) -> None: ...

    def delete(self, run_id: int) -> None: ...

    def filter_options(self) -> FilterOptions: ...

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
                " file_layout, import_source, content_hash)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                    json.dumps([_spec_to_dict(job) for job in result.jobs]),
                    None if result.fio_json is None else json.dumps(result.fio_json),
                    json.dumps(_env_to_dict(result.env)),
                    json.dumps({k: _fields(v) for k, v in result.summary.items()}),
                    json.dumps([_warning_to_dict(w) for w in result.warnings]),
                    json.dumps([_job_summary_to_dict(j) for j in result.job_summaries]),
                    FileLayout(result.file_layout).value,
                    _import_to_json(result.imported),
                    result.imported.content_hash if result.imported else None,
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
        return run_id

    def find_import(self, content_hash: str) -> int | None:
        """The run imported from a file with these bytes (sha256), if any."""
        with self._connect() as conn:
            row = conn.execute(
                "SELECT id FROM runs WHERE content_hash = ?", (content_hash,)
            ).fetchone()
        return None if row is None else int(row[0])

    def rename(self, run_id: int, name: str) -> None:
        name = name.strip()
        if not name:
            raise HistoryError("a run's name cannot be empty")
        with self._transaction() as conn:
            if conn.execute("UPDATE runs SET name = ? WHERE id = ?", (name, run_id)).rowcount == 0:
                raise RunNotFound(run_id)

    def set_tags(self, run_id: int, tags: Sequence[str]) -> None:
        """Replace the run's tags (in the order given, duplicates and blanks dropped)."""
        with self._transaction() as conn:
            if conn.execute("SELECT 1 FROM runs WHERE id = ?", (run_id,)).fetchone() is None:
                raise RunNotFound(run_id)
            conn.execute("DELETE FROM run_tags WHERE run_id = ?", (run_id,))
            _write_tags(conn, run_id, tags)

    def delete(self, run_id: int) -> None:
        """Remove the run with its series (foreign keys cascade)."""
        with self._transaction() as conn:
            if conn.execute("DELETE FROM runs WHERE id = ?", (run_id,)).rowcount == 0:
                raise RunNotFound(run_id)

    # -- reading -------------------------------------------------------------------

    def get(self, run_id: int) -> RunResult | None:
        """The whole run, with its series and fio JSON; None if there is no such run."""
        with self._connect() as conn:
            row = conn.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
            if row is None:
                return None
            return _load(conn, row, with_fio=True)

    def list(
        self,
        *,
        target: str | None = None,
        preset: str | None = None,
        status: RunStatus | Collection[RunStatus] | None = None,
        tag: str | None = None,
        full: bool = False,
        series: bool = True,
        limit: int | None = None,
    ) -> list[RunResult]:
        """Stored runs, newest first.

        ``status=None`` means **only ok runs**: failed and cancelled ones must be asked
        for (``status=RunStatus.FAILED``, or a collection such as ``tuple(RunStatus)``
        for every run), so nothing that compares results can mix them in by accident.
        ``target`` matches the target path (a trailing "/" is ignored). Series are
        included unless ``series=False`` (a list view needs only the summaries);
        ``fio_json`` (often hundreds of KiB) only with ``full=True``. ``limit``: the
        newest that many (a screen pages through a history of thousands of runs).
        """
        wanted = (
            [RunStatus.OK]
            if status is None
            else [status]
            if isinstance(status, RunStatus)
            else list(status)
        )
        where = [f"status IN ({', '.join('?' * len(wanted))})"]
        params: list[Any] = [RunStatus(s).value for s in wanted]
        if target is not None:
            where.append("target_path = ?")
            params.append(_norm_path(target))
        if preset is not None:
            # a preset's former names too: runs stored before a rename are still its runs
            known = find_preset(preset)
            names = known.names if known is not None else (preset,)
            where.append(f"preset IN ({', '.join('?' * len(names))})")
            params += names
        if tag is not None:
            where.append("id IN (SELECT run_id FROM run_tags WHERE tag = ?)")
            params.append(tag)
        columns = "*" if full else _LIGHT_COLUMNS
        sql = (
            f"SELECT {columns} FROM runs WHERE {' AND '.join(where)}"
            " ORDER BY started_at DESC, id DESC"
        )
        if limit is not None:
            sql += " LIMIT ?"
            params.append(max(0, limit))
        with self._connect() as conn:
            rows = conn.execute(sql, params).fetchall()
            return [_load(conn, row, with_fio=full, with_series=series) for row in rows]

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


# --------------------------------------------------------------------------- rows


def _norm_path(path: str) -> str:
    return path.rstrip("/") or "/"


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


def _fields(obj: Any) -> dict[str, Any]:
    return {f.name: getattr(obj, f.name) for f in fields(obj)}


def _spec_to_dict(job: JobSpec) -> dict[str, Any]:
    """A job as JSON; an option its imported file did not state is null, never fio's
    default ("stated" lists the ones it did; null: all are known)."""
    out = _fields(job)
    out["extra"] = dict(job.extra)
    out["stated"] = None if job.stated is None else sorted(job.stated)
    for option in SPEC_OPTIONS:
        if not job.states(option):
            out[option] = None
    return out


def _spec_from_dict(data: dict[str, Any]) -> JobSpec:
    """The inverse of _spec_to_dict, also for runs stored before "stated" existed."""
    stated = data.get("stated")
    known = {k: v for k, v in data.items() if v is not None and k != "stated"}
    # rw is the one option JobSpec cannot be without: an imported job whose rw was not
    # understood was built with fio's default and stored as null (unknown); it comes back
    # the same way, still unknown because "stated" leaves it out.
    known.setdefault("rw", "read")
    return JobSpec(**known, stated=None if stated is None else frozenset(stated))


def _warning_to_dict(warning: RunWarning) -> dict[str, str]:
    return {"kind": WarningKind(warning.kind).value, "text": warning.text}


def _job_summary_to_dict(job: JobSummary) -> dict[str, Any]:
    return {
        "name": job.name,
        "rw": job.rw,
        "bs": job.bs,
        "error": job.error,
        "directions": {d: _fields(v) for d, v in job.directions.items()},
    }


def _job_summary_from_dict(data: dict[str, Any]) -> JobSummary:
    return JobSummary(
        name=data["name"],
        rw=data.get("rw"),
        bs=data.get("bs"),
        error=int(data.get("error", 0)),
        directions={d: DirectionSummary(**v) for d, v in data["directions"].items()},
    )


def _import_to_dict(source: ImportSource) -> dict[str, Any]:
    return {
        "file_name": source.file_name,
        "content_hash": source.content_hash,
        "format": ImportFormat(source.format).value,
        "notices": [ImportNotice(n).value for n in source.notices],
    }


def _import_to_json(source: ImportSource | None) -> str | None:
    return None if source is None else json.dumps(_import_to_dict(source))


def _import_from_json(text: str | None) -> ImportSource | None:
    if not text:
        return None
    data = json.loads(text)
    return ImportSource(
        file_name=data["file_name"],
        content_hash=data["content_hash"],
        format=ImportFormat(data["format"]),
        notices=tuple(ImportNotice(n) for n in data.get("notices", ())),
    )


def _env_to_dict(env: EnvFingerprint) -> dict[str, Any]:
    out = _fields(env)
    out["mount_options"] = list(env.mount_options)
    return out


def _sample_row(run_id: int, seq: int, s: Sample) -> tuple[Any, ...]:
    row: list[Any] = [run_id, seq, s.t, s.interval_s]
    for d in (s.read, s.write, s.trim):
        row += [d.bw_bytes_per_s, d.iops, d.lat_mean_ns, d.lat_p99_ns]
    row.append(json.dumps(list(s.active_jobs)))
    return tuple(row)


def _load(
    conn: sqlite3.Connection, row: sqlite3.Row, *, with_fio: bool, with_series: bool = True
) -> RunResult:
    run_id = int(row["id"])
    try:
        spec = [_spec_from_dict(job) for job in json.loads(row["spec"])]
        env = json.loads(row["env"])
        env["mount_options"] = tuple(env.get("mount_options", ()))
        summary = {k: DirectionSummary(**v) for k, v in json.loads(row["summary"]).items()}
        target = BenchTarget(
            path=row["target_path"],
            kind=TargetKind(row["target_kind"]),
            label=row["target_label"],
            disks=tuple(json.loads(row["target_disks"])),
            fs_type=row["target_fs_type"],
            mountpoint=row["target_mountpoint"],
        )
        fio_json = json.loads(row["fio_json"]) if with_fio and row["fio_json"] else None
        result = RunResult(
            id=run_id,
            name=row["name"],
            status=RunStatus(row["status"]),
            target=target,
            jobs=tuple(spec),
            started_at=row["started_at"],
            finished_at=row["finished_at"],
            preset=row["preset"],
            error=row["error"],
            fio_json=fio_json,
            summary=summary,
            series=_load_series(conn, run_id) if with_series else (),
            device_series=_load_devices(conn, run_id) if with_series else (),
            env=EnvFingerprint(**env),
            tags=tuple(
                r[0]
                for r in conn.execute(
                    "SELECT tag FROM run_tags WHERE run_id = ? ORDER BY pos", (run_id,)
                )
            ),
            warnings=tuple(
                RunWarning(WarningKind(w["kind"]), w["text"]) for w in json.loads(row["warnings"])
            ),
            job_summaries=tuple(
                _job_summary_from_dict(j) for j in json.loads(row["job_summaries"] or "[]")
            ),
            file_layout=FileLayout(row["file_layout"]),
            imported=_import_from_json(row["import_source"]),
        )
    except (ValueError, TypeError, KeyError) as exc:
        # only a file edited by hand (or a buggy migration) gets here
        raise ParseError("history database", f"run #{run_id}: {exc}") from exc
    return result


def _load_series(conn: sqlite3.Connection, run_id: int) -> tuple[Sample, ...]:
    out: list[Sample] = []
    for r in conn.execute("SELECT * FROM samples WHERE run_id = ? ORDER BY seq", (run_id,)):
        dirs = [
            DirectionSample(r[f"{p}_bw"], r[f"{p}_iops"], r[f"{p}_lat_mean"], r[f"{p}_lat_p99"])
            for p in ("r", "w", "t")
        ]
        out.append(
            Sample(
                t=r["t"],
                interval_s=r["interval_s"],
                read=dirs[0],
                write=dirs[1],
                trim=dirs[2],
                active_jobs=tuple(json.loads(r["active_jobs"])),
            )
        )
    return tuple(out)


def _load_devices(conn: sqlite3.Connection, run_id: int) -> tuple[DeviceSample, ...]:
    rows = conn.execute(
        "SELECT t, device, read_bytes_per_s, write_bytes_per_s, read_iops, write_iops,"
        " util_pct FROM device_samples WHERE run_id = ? ORDER BY seq",
        (run_id,),
    )
    return tuple(DeviceSample(*r) for r in rows)


# --------------------------------------------------------------------------- JSON


def _direction_json(d: DirectionSummary | DirectionStats | None) -> dict[str, Any] | None:
    if d is None:
        return None
    return {
        "bw_bytes": d.bw_bytes,
        "iops": d.iops,
        "lat_mean_ns": d.lat_mean_ns,
        "lat_p99_ns": d.lat_p99_ns,
    }


def _sample_direction_json(d: DirectionSample) -> dict[str, Any]:
    return {
        "bw_bytes": d.bw_bytes_per_s,
        "iops": d.iops,
        "lat_mean_ns": d.lat_mean_ns,
        "lat_p99_ns": d.lat_p99_ns,
    }


def job_results(result: RunResult) -> list[dict[str, Any]] | None:
    """Per job (its clones added up), for the JSON "jobs" key; None when fio produced
    no final report. A suite such as suite-seq1m-rand4k-qd64 mixes 1M and 4K jobs, where only per-job
    figures mean anything."""
    if not result.job_summaries:
        return None
    return [
        {
            "name": job.name,
            "rw": job.rw,
            "bs": job.bs,
            "error": job.error,
            **{d: _direction_json(job.directions.get(d)) for d in _DIRECTIONS},
        }
        for job in result.job_summaries
    ]


def device_totals(result: RunResult) -> list[dict[str, Any]]:
    """Per disk: bytes moved and its per-second series, disks under the target first."""
    order = list(result.target.disks)
    for d in result.device_series:
        if d.device not in order:
            order.append(d.device)
    out: list[dict[str, Any]] = []
    for name in order:
        samples = [d for d in result.device_series if d.device == name]
        read_total = write_total = 0.0
        previous = 0.0
        series = []
        for d in samples:
            # rates hold over the interval that ends at d.t; the first one starts at 0
            span = max(d.t - previous, 0.0)
            previous = d.t
            read_total += d.read_bytes_per_s * span
            write_total += d.write_bytes_per_s * span
            series.append(
                {
                    "t": d.t,
                    "read_bw_bytes": d.read_bytes_per_s,
                    "write_bw_bytes": d.write_bytes_per_s,
                    "read_iops": d.read_iops,
                    "write_iops": d.write_iops,
                    "util_pct": d.util_pct,
                }
            )
        out.append(
            {
                "device": name,
                "read_bytes": round(read_total),
                "write_bytes": round(write_total),
                "series": series,
            }
        )
    return out


def _jobfile(result: RunResult) -> str:
    """The jobs as a job file; with the placement tierdeck used when it is fio's own
    (runs stored before 0.2 placed files differently: shown without placement)."""
    placed = result.target.kind != TargetKind.RAW and result.file_layout is FileLayout.FIO
    try:
        return jobfile_text(result.jobs, result.target.path if placed else None)
    except JobSpecError:
        return jobfile_text(result.jobs, None)


def result_to_json(result: RunResult, *, include_fio: bool = False) -> dict[str, Any]:
    """The documented ``tierdeck.run/1`` object (docs/bench-json.md)."""
    target = result.target
    summary = {d: _direction_json(result.summary.get(d)) for d in _DIRECTIONS}
    out: dict[str, Any] = {
        "schema": SCHEMA,
        "id": result.id,
        "name": result.name,
        "status": RunStatus(result.status).value,
        "error": result.error,
        "target": {
            "path": target.path,
            "kind": TargetKind(target.kind).value,
            "label": target.label,
            "disks": list(target.disks),
            "fs_type": target.fs_type,
            "mountpoint": target.mountpoint,
        },
        "preset": result.preset,
        "started_at": result.started_at,
        "finished_at": result.finished_at,
        "spec": {
            "jobs": [_spec_to_dict(job) for job in result.jobs],
            "jobfile": _jobfile(result),
        },
        "summary": summary,
        "jobs": job_results(result),
        # The whole-run summary adds jobs of different rw/bs together: read "jobs".
        "mixed_jobs": result.mixed_jobs,
        # Stored before 0.2: a numjobs/nrfiles job's files were one shared file.
        "file_layout": FileLayout(result.file_layout).value,
        "clones_shared_file": result.clones_shared_file,
        # "imported": read from a file by `history import` (or the demo), not run here.
        "origin": result.origin.value,
        "imported": _import_to_dict(result.imported) if result.imported else None,
        "series": [
            {
                "t": s.t,
                "interval_s": s.interval_s,
                "read": _sample_direction_json(s.read),
                "write": _sample_direction_json(s.write),
                "trim": _sample_direction_json(s.trim),
                "active_jobs": list(s.active_jobs),
            }
            for s in result.series
        ],
        "devices": device_totals(result),
        "env": _env_to_dict(result.env),
        "warnings": [w.text for w in result.warnings],
        # The same warnings with their kind ("cache", "buffered" ... docs/bench-json.md).
        "warning_details": [_warning_to_dict(w) for w in result.warnings],
        "tags": list(result.tags),
    }
    if include_fio:
        out["fio"] = result.fio_json
    return out
