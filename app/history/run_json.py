"""A stored run as JSON: the ``tierdeck.run/1`` object of ``--json`` output
(docs/bench-json.md), and the JSON forms of the parts the history keeps in its columns
(job summaries, warnings, where an imported run came from, the environment).

Apart from the SQLite store so that everything that prints a run (bench run, history
show, the sweep and ladder objects, the exports) reads one module, and the store
only writes and reads rows.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

from ...core.bench_models import (
    DirectionSummary,
    EnvFingerprint,
    FileLayout,
    JobSummary,
    RunHost,
    RunResult,
    RunStatus,
    RunWarning,
    TargetKind,
    WarningKind,
)
from ...core.fio_models import DirectionSample, DirectionStats
from ...core.imports import ImportFormat, ImportNotice, ImportSource
from ...core.jobspec import JobSpecError, jobfile_text
from ...core.spec_dict import spec_to_dict

SCHEMA = "tierdeck.run/1"
DIRECTIONS = ("read", "write", "trim")


def fields_of(obj: Any) -> dict[str, Any]:
    return {f.name: getattr(obj, f.name) for f in fields(obj)}


def warning_to_dict(warning: RunWarning) -> dict[str, str]:
    return {"kind": WarningKind(warning.kind).value, "text": warning.text}


def job_summary_to_dict(job: JobSummary) -> dict[str, Any]:
    return {
        "name": job.name,
        "rw": job.rw,
        "bs": job.bs,
        "error": job.error,
        "directions": {d: fields_of(v) for d, v in job.directions.items()},
    }


def job_summary_from_dict(data: dict[str, Any]) -> JobSummary:
    return JobSummary(
        name=data["name"],
        rw=data.get("rw"),
        bs=data.get("bs"),
        error=int(data.get("error", 0)),
        directions={d: DirectionSummary(**v) for d, v in data["directions"].items()},
    )


def import_to_dict(source: ImportSource) -> dict[str, Any]:
    return {
        "file_name": source.file_name,
        "content_hash": source.content_hash,
        "format": ImportFormat(source.format).value,
        "notices": [ImportNotice(n).value for n in source.notices],
    }


def import_to_json(source: ImportSource | None) -> str | None:
    return None if source is None else json.dumps(import_to_dict(source))


def import_from_json(text: str | None) -> ImportSource | None:
    if not text:
        return None
    data = json.loads(text)
    return ImportSource(
        file_name=data["file_name"],
        content_hash=data["content_hash"],
        format=ImportFormat(data["format"]),
        notices=tuple(ImportNotice(n) for n in data.get("notices", ())),
    )


def env_to_dict(env: EnvFingerprint) -> dict[str, Any]:
    out = fields_of(env)
    out["mount_options"] = list(env.mount_options)
    return out


def host_to_dict(host: RunHost) -> dict[str, str | None]:
    """The machine a run ran on; null where unknown (docs/bench-json.md)."""
    return {"name": host.name or None, "id": host.id or None}


def direction_json(d: DirectionSummary | DirectionStats | None) -> dict[str, Any] | None:
    if d is None:
        return None
    return {
        "bw_bytes": d.bw_bytes,
        "iops": d.iops,
        "lat_mean_ns": d.lat_mean_ns,
        "lat_p99_ns": d.lat_p99_ns,
    }


# A run's series as the history stores them, one tuple to a row: what the JSON's "series"
# and "devices" are written from, for a stored run (``SeriesRows``, `history list --json`)
# and for a RunResult in memory alike (``series_rows``), so both write the same JSON.
# A fio sample: t, interval_s, then read, write and trim as (bw, iops, lat_mean_ns,
# lat_p99_ns), then the active jobs' names. A disk sample: DeviceSample's fields in order.
SampleRow = tuple[Any, ...]
DeviceRow = tuple[Any, ...]


@dataclass(frozen=True)
class SeriesRows:
    """A run's fio and disk series as rows (app/history/rows.py reads them so): for 100
    runs, writing their JSON from these took about 20 ms less than from Sample objects."""

    samples: list[SampleRow]
    devices: list[DeviceRow]


def _direction_row(d: DirectionSample) -> tuple[Any, ...]:
    return (d.bw_bytes_per_s, d.iops, d.lat_mean_ns, d.lat_p99_ns)


def series_rows(result: RunResult) -> SeriesRows:
    """The series of ``result`` as the rows the history keeps them in."""
    samples = [
        (
            s.t,
            s.interval_s,
            *_direction_row(s.read),
            *_direction_row(s.write),
            *_direction_row(s.trim),
            s.active_jobs,
        )
        for s in result.series
    ]
    devices = [
        (d.t, d.device, d.read_bytes_per_s, d.write_bytes_per_s, d.read_iops, d.write_iops,
         d.util_pct)
        for d in result.device_series
    ]  # fmt: skip
    return SeriesRows(samples, devices)


def series_json(samples: list[SampleRow]) -> list[dict[str, Any]]:
    """The JSON's "series": a fio sample's directions and its active jobs."""
    return [
        {
            "t": r[0],
            "interval_s": r[1],
            "read": {"bw_bytes": r[2], "iops": r[3], "lat_mean_ns": r[4], "lat_p99_ns": r[5]},
            "write": {"bw_bytes": r[6], "iops": r[7], "lat_mean_ns": r[8], "lat_p99_ns": r[9]},
            "trim": {"bw_bytes": r[10], "iops": r[11], "lat_mean_ns": r[12], "lat_p99_ns": r[13]},
            "active_jobs": list(r[14]),
        }
        for r in samples
    ]


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
            **{d: direction_json(job.directions.get(d)) for d in DIRECTIONS},
        }
        for job in result.job_summaries
    ]


def device_totals(result: RunResult) -> list[dict[str, Any]]:
    """Per disk: bytes moved and its per-second series, disks under the target first."""
    return devices_json(result.target.disks, series_rows(result).devices)


def devices_json(disks: Sequence[str], rows: list[DeviceRow]) -> list[dict[str, Any]]:
    """``device_totals`` from the disks under the target and the disk series' rows."""
    order = list(disks)
    for r in rows:
        if r[1] not in order:
            order.append(r[1])
    out: list[dict[str, Any]] = []
    for name in order:
        read_total = write_total = 0.0
        previous = 0.0
        series = []
        for t, device, read_bps, write_bps, read_iops, write_iops, util in rows:
            if device != name:
                continue
            # rates hold over the interval that ends at t; the first one starts at 0
            span = max(t - previous, 0.0)
            previous = t
            read_total += read_bps * span
            write_total += write_bps * span
            series.append(
                {
                    "t": t,
                    "read_bw_bytes": read_bps,
                    "write_bw_bytes": write_bps,
                    "read_iops": read_iops,
                    "write_iops": write_iops,
                    "util_pct": util,
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


def run_jobfile(result: RunResult) -> str:
    """The jobs as a job file; with the placement tierdeck used when it is fio's own
    (runs stored before 0.2 placed files differently: shown without placement)."""
    placed = result.target.kind != TargetKind.RAW and result.file_layout is FileLayout.FIO
    try:
        return jobfile_text(result.jobs, result.target.path if placed else None)
    except JobSpecError:
        return jobfile_text(result.jobs, None)


def result_to_json(
    result: RunResult, *, include_fio: bool = False, rows: SeriesRows | None = None
) -> dict[str, Any]:
    """The documented ``tierdeck.run/1`` object (docs/bench-json.md). ``rows``: the
    run's series as the history's rows, for a run loaded without them."""
    target = result.target
    if rows is None:
        rows = series_rows(result)
    summary = {d: direction_json(result.summary.get(d)) for d in DIRECTIONS}
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
        "host": host_to_dict(result.host),
        "preset": result.preset,
        "started_at": result.started_at,
        "finished_at": result.finished_at,
        "spec": {
            "jobs": [spec_to_dict(job) for job in result.jobs],
            "jobfile": run_jobfile(result),
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
        "imported": import_to_dict(result.imported) if result.imported else None,
        "series": series_json(rows.samples),
        "devices": devices_json(target.disks, rows.devices),
        "env": env_to_dict(result.env),
        "warnings": [w.text for w in result.warnings],
        # The same warnings with their kind ("cache", "buffered" ... docs/bench-json.md).
        "warning_details": [warning_to_dict(w) for w in result.warnings],
        "tags": list(result.tags),
    }
    if include_fio:
        out["fio"] = result.fio_json
    return out
