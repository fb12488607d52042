"""The history file's schema, version by version: ``MIGRATIONS[i]`` takes a file from
version i to i + 1 (store.migrate applies them). Apart from the store because a
migration is written once and never edited, while the store's queries change.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence

from ...core.bench_models import FileLayout, WarningKind
from ...core.errors import ParseError
from ...core.jobspec import JobSpec
from .run_json import job_summary_to_dict

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
    # fio's parser only for this once-in-a-file step: every open of the history (a CLI
    # run, the history screen) imports this module.
    from ...backends.fio.stream import job_summaries, parse_report

    rows = conn.execute("SELECT id, spec, fio_json FROM runs WHERE fio_json IS NOT NULL")
    updates = []
    for run_id, spec_text, fio_text in rows.fetchall():
        try:
            jobs = [JobSpec(**job) for job in json.loads(spec_text)]
            summaries = job_summaries(parse_report(json.loads(fio_text)), jobs)
        except (ValueError, TypeError, ParseError):
            continue  # left empty: the run still shows its whole-run figures
        updates.append((json.dumps([job_summary_to_dict(j) for j in summaries]), run_id))
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

# v7: what the history screen asks first. Its filter menu lists every (target path,
# label): an index holding both answers from the index alone instead of reading every
# run's row (22 ms of the screen's first listing at 10,000 runs, under 1 ms after);
# it starts with the path, so it serves the target filter that runs_target served.
_V7 = (
    "CREATE INDEX runs_target_label ON runs (target_path, target_label)",
    "DROP INDEX runs_target",
)

# v8: the machine each run ran on (core.bench_models.RunHost): a benchmark may run on a
# remote host while the history stays on the admin's own machine. The index answers
# which hosts the history holds (the history screen's host column) from itself alone.
_V8 = (
    "ALTER TABLE runs ADD COLUMN host_name TEXT NOT NULL DEFAULT ''",  # uname -n; '': unknown
    "ALTER TABLE runs ADD COLUMN host_id TEXT NOT NULL DEFAULT ''",  # Host.identity
    "CREATE INDEX runs_host ON runs (host_name, host_id)",
)


def _name_hosts_from_fio(conn: sqlite3.Connection) -> None:
    """Runs stored before v8 kept no host of their own (neither a column nor the
    environment): the one place a name may be is fio's JSON, whose client/server output
    names its host. A run whose document names exactly one gets it; its id stays
    unknown, and imported runs stay unknown whatever their file says (it came from
    elsewhere)."""
    from ...core.redact import hostnames_in  # only for this once-in-a-file step

    rows = conn.execute(
        "SELECT id, fio_json FROM runs WHERE import_source IS NULL AND fio_json IS NOT NULL"
        " AND instr(fio_json, '\"hostname\"') > 0"  # skips parsing every other document
    )
    updates = []
    for run_id, text in rows.fetchall():
        try:
            names = {name.strip() for name in hostnames_in(json.loads(text)) if name.strip()}
        except ValueError:
            continue
        if len(names) == 1:
            updates.append((names.pop(), run_id))
    conn.executemany("UPDATE runs SET host_name = ? WHERE id = ?", updates)


# v9: each run's line of `history list --json` (app/history/run_lines.py), kept so that
# the listing concatenates text instead of reading and encoding every run's series (a
# 100-run listing spent ~110 of its ~170 ms there). A line is only ever a copy: the
# triggers drop it whenever anything it is written from changes (a runs row, its tags,
# its series; whoever changes them, the sqlite3 tool too), and a line written by
# another serializer version is not read. No line is written here: a missing one is
# computed when a listing asks for it.
_V9 = (
    """CREATE TABLE run_lines (
        run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
        version TEXT NOT NULL,             -- run_lines.LINE_VERSION of what wrote it
        line BLOB NOT NULL                 -- the run's tierdeck.run/1 object, one line, zlib
    )""",
    """CREATE TRIGGER run_lines_runs_update AFTER UPDATE ON runs
        BEGIN DELETE FROM run_lines WHERE run_id IN (OLD.id, NEW.id); END""",
    # also without foreign keys on (the sqlite3 tool's default), which cascade otherwise
    """CREATE TRIGGER run_lines_runs_delete AFTER DELETE ON runs
        BEGIN DELETE FROM run_lines WHERE run_id = OLD.id; END""",
    *(
        f"""CREATE TRIGGER run_lines_{table}_{event.lower()} AFTER {event} ON {table}
        BEGIN DELETE FROM run_lines WHERE run_id IN ({rows}); END"""
        for table in ("run_tags", "samples", "device_samples")
        for event, rows in (
            ("INSERT", "NEW.run_id"),
            ("UPDATE", "OLD.run_id, NEW.run_id"),
            ("DELETE", "OLD.run_id"),
        )
    ),
)

# v10: each `tierdeck health` collection, one row per disk (app/history/health_readings.py),
# so trends show (pending sectors rising, wear per month) and the cache wear forecast
# has a rate. Keyed by the disk's serial or wwn, not its kernel name: names move
# between boots and when disks are added. Only the figures trends are drawn from.
_V10 = (
    """CREATE TABLE health_readings (
        disk_id TEXT NOT NULL,             -- "serial:..." or "wwn:..."
        t REAL NOT NULL,                   -- epoch seconds of the collection
        host_id TEXT NOT NULL DEFAULT '',  -- Host.identity of the machine read
        name TEXT NOT NULL,                -- its kernel name then ("sda")
        state TEXT NOT NULL,               -- ok | warning | critical | asleep | unknown
        temperature_c INTEGER,             -- NULL: not reported (or asleep)
        power_on_hours INTEGER,
        bytes_written INTEGER,
        percentage_used INTEGER,
        pending_sectors INTEGER,
        reallocated_sectors INTEGER,
        PRIMARY KEY (disk_id, t)
    ) WITHOUT ROWID""",
)


Migration = Sequence[str | Callable[[sqlite3.Connection], None]]
# v3: warnings are {"kind", "text"} objects (core.bench_models.RunWarning).
MIGRATIONS: list[Migration] = [
    _V1,
    (*_V2, _backfill_job_summaries),
    (_type_warnings,),
    _V4,
    _V5,
    _V6,
    _V7,
    (*_V8, _name_hosts_from_fio),
    _V9,
    _V10,
]
