"""A stored run's rows read back into a RunResult: the runs row, its tags, its fio
series and its per-disk series, each part read only when the caller asks for it.

Apart from the store (store.py writes rows and picks them) because reading is where the
time goes: the history list reads a page of runs without any series, a comparison reads
the fio series but neither fio's document nor the disks, ``history list --json`` every
part but fio's document (bench/history.py measures each).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

from ...core.bench_models import (
    BenchTarget,
    DeviceSample,
    DirectionSummary,
    EnvFingerprint,
    FileLayout,
    RunHost,
    RunResult,
    RunStatus,
    RunWarning,
    TargetKind,
    WarningKind,
)
from ...core.errors import ParseError
from ...core.fio_models import EMPTY_SAMPLE_DIRECTION, DirectionSample, Sample
from ...core.spec_dict import spec_from_dict
from .run_json import (
    DeviceRow,
    SampleRow,
    SeriesRows,
    import_from_json,
    job_summary_from_dict,
)

# Every runs column but fio's document, which is often hundreds of KiB of JSON to parse
# and which only a run's own view and its single-run export show.
LIGHT_COLUMNS = (
    "id, name, status, target_path, target_kind, target_label, target_disks,"
    " target_fs_type, target_mountpoint, preset, started_at, finished_at, error, spec,"
    " NULL AS fio_json, env, summary, warnings, job_summaries, file_layout, import_source,"
    " content_hash, host_name, host_id"
)

_SAMPLE_COLUMNS = (
    "t, interval_s, r_bw, r_iops, r_lat_mean, r_lat_p99, w_bw, w_iops, w_lat_mean,"
    " w_lat_p99, t_bw, t_iops, t_lat_mean, t_lat_p99, active_jobs"
)


def tags_of(conn: sqlite3.Connection, run_ids: Sequence[int]) -> dict[int, tuple[str, ...]]:
    """Each run's tags in their order, in one query for a whole page of runs."""
    if not run_ids:
        return {}
    out: dict[int, list[str]] = {}
    marks = ", ".join("?" * len(run_ids))
    for run_id, tag in conn.execute(
        f"SELECT run_id, tag FROM run_tags WHERE run_id IN ({marks}) ORDER BY run_id, pos",
        tuple(run_ids),
    ):
        out.setdefault(int(run_id), []).append(tag)
    return {run_id: tuple(tags) for run_id, tags in out.items()}


def load_run(
    conn: sqlite3.Connection,
    row: sqlite3.Row,
    *,
    tags: tuple[str, ...],
    with_fio: bool,
    with_series: bool = True,
    with_devices: bool = True,
) -> RunResult:
    """The run of ``row`` (a runs row, fio_json NULL unless ``with_fio``), with its fio
    series if ``with_series`` and its disks' if ``with_devices`` too."""
    run_id = int(row["id"])
    try:
        spec = [spec_from_dict(job) for job in json.loads(row["spec"])]
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
        return RunResult(
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
            series=load_series(conn, run_id) if with_series else (),
            device_series=load_devices(conn, run_id) if with_series and with_devices else (),
            env=EnvFingerprint(**env),
            tags=tags,
            warnings=tuple(
                RunWarning(WarningKind(w["kind"]), w["text"]) for w in json.loads(row["warnings"])
            ),
            job_summaries=tuple(
                job_summary_from_dict(j) for j in json.loads(row["job_summaries"] or "[]")
            ),
            file_layout=FileLayout(row["file_layout"]),
            imported=import_from_json(row["import_source"]),
            host=RunHost(row["host_name"], row["host_id"]),
        )
    except (ValueError, TypeError, KeyError) as exc:
        # only a file edited by hand (or a buggy migration) gets here
        raise ParseError("history database", f"run #{run_id}: {exc}") from exc


_NO_IO = (0.0, 0.0, None, None)  # a direction's four columns in an interval without its I/O


def _sample_cursor(conn: sqlite3.Connection, run_id: int) -> sqlite3.Cursor:
    cursor = conn.cursor()
    cursor.row_factory = None  # plain tuples: a Row's lookups by name cost as much as the read
    return cursor.execute(
        f"SELECT {_SAMPLE_COLUMNS} FROM samples WHERE run_id = ? ORDER BY seq", (run_id,)
    )


def load_series(conn: sqlite3.Connection, run_id: int) -> tuple[Sample, ...]:
    jobs: dict[str, tuple[str, ...]] = {}  # every sample of a run names the same few jobs
    empty = EMPTY_SAMPLE_DIRECTION  # trim, and a direction a job does not do: most of them
    out: list[Sample] = []
    for r in _sample_cursor(conn, run_id):
        read, write, trim, active = r[2:6], r[6:10], r[10:14], r[14]
        if active not in jobs:
            jobs[active] = tuple(json.loads(active))
        out.append(
            Sample(
                r[0],
                r[1],
                empty if read == _NO_IO else DirectionSample(*read),
                empty if write == _NO_IO else DirectionSample(*write),
                empty if trim == _NO_IO else DirectionSample(*trim),
                jobs[active],
            )
        )
    return tuple(out)


def load_devices(conn: sqlite3.Connection, run_id: int) -> tuple[DeviceSample, ...]:
    return tuple(DeviceSample(*r) for r in device_rows(conn, run_id))


def device_rows(conn: sqlite3.Connection, run_id: int) -> list[DeviceRow]:
    """The disks' series as rows: DeviceSample's fields in order."""
    cursor = conn.cursor()
    cursor.row_factory = None
    return cursor.execute(
        "SELECT t, device, read_bytes_per_s, write_bytes_per_s, read_iops, write_iops,"
        " util_pct FROM device_samples WHERE run_id = ? ORDER BY seq",
        (run_id,),
    ).fetchall()


def sample_rows(conn: sqlite3.Connection, run_id: int) -> list[SampleRow]:
    """The fio series as rows (run_json.SampleRow), holding what load_series's Samples
    hold: the columns as read, the active jobs parsed. (Where load_series puts the shared
    empty direction, the row's own four values are equal to it: REAL columns keep
    neither an integer nor -0.0.)"""
    jobs: dict[str, tuple[str, ...]] = {}
    out: list[SampleRow] = []
    for r in _sample_cursor(conn, run_id):
        active = r[14]
        if active not in jobs:
            jobs[active] = tuple(json.loads(active))
        out.append((*r[:14], jobs[active]))
    return out


def series_rows_of(conn: sqlite3.Connection, run_id: int) -> SeriesRows:
    return SeriesRows(sample_rows(conn, run_id), device_rows(conn, run_id))
