"""fio's JSON output, live and final.

``fio --output-format=json --status-interval=1 --eta=never`` prints one complete JSON
document per interval, every value cumulative since the start. Three steps turn that
into a live graph:

1. ``json_documents.JsonDocumentSplitter`` cuts the stdout stream into documents,
   whatever the chunking, and keeps fio's own text lines ("fio: pid=..., err=22/...")
   apart.
2. :func:`parse_report` (here) turns one document into a :class:`FioReport` (fio 2.x
   to 3.3x).
3. ``sampling.IntervalSampler`` turns successive cumulative reports into per-interval
   :class:`Sample` deltas (with ``histograms`` for each interval's p99).

Pure functions over text: the runner that owns the subprocess feeds them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...core.bench_models import DirectionSummary, JobSummary
from ...core.errors import ParseError
from ...core.fio_models import (
    EMPTY_DIRECTION,
    Bins,
    Direction,
    DirectionStats,
    FioJobResult,
    FioReport,
)
from ...core.jobspec import JobSpec
from .histograms import merge_bins, percentile_from_bins

SOURCE = "fio JSON"

# Arguments that make fio stream. json+ adds latency histograms ("bins") so that each
# interval gets its own p99, at about 10 KiB more per job per second.
STREAM_ARGS = ("--output-format=json+", "--status-interval=1", "--eta=never")


# --------------------------------------------------------------------------- parsing


def parse_report(doc: str | Mapping[str, Any]) -> FioReport:
    """One fio JSON document -> FioReport. Raises ParseError on anything else.

    Handles fio 3.x (bytes, ``bw_bytes``, ``*_ns`` latencies; ``bins`` with json+),
    fio 3.0-3.1 (no ``bw_bytes``) and fio 2.x (``io_bytes`` in KiB, ``clat``/``lat`` in
    microseconds). Jobs are summed into per-direction totals (see :func:`aggregate`).
    """
    data: Any
    if isinstance(doc, str):
        try:
            data = json.loads(doc)
        except (ValueError, RecursionError) as exc:
            raise ParseError(SOURCE, f"not JSON: {exc}", doc[:80]) from exc
    else:
        data = doc
    if not isinstance(data, Mapping):
        raise ParseError(SOURCE, f"expected an object, got {type(data).__name__}")
    version = data.get("fio version")
    if not isinstance(version, str):
        raise ParseError(SOURCE, 'no "fio version": not fio output')
    raw_jobs = data.get("jobs")
    if not isinstance(raw_jobs, list):
        raise ParseError(SOURCE, 'no "jobs" list')
    # fio 2.x's JSON units (KiB, usec); tierdeck's reading of a 2.x text (marked
    # "tierdeck") is already in bytes and nanoseconds
    legacy = version.startswith("fio-2.") and "tierdeck" not in data
    jobs = tuple(_parse_job(raw, legacy, i) for i, raw in enumerate(raw_jobs))
    return FioReport(
        fio_version=version,
        timestamp=_opt_int(data, "timestamp", "report"),
        timestamp_ms=_opt_int(data, "timestamp_ms", "report"),
        jobs=jobs,
        read=aggregate(jobs, Direction.READ),
        write=aggregate(jobs, Direction.WRITE),
        trim=aggregate(jobs, Direction.TRIM),
        global_options=_str_map(data.get("global options")),
    )


def _parse_job(raw: Any, legacy: bool, index: int) -> FioJobResult:
    where = f"job {index}"
    if not isinstance(raw, Mapping):
        raise ParseError(SOURCE, f"{where} is not an object")
    name = raw.get("jobname")
    if not isinstance(name, str):
        raise ParseError(SOURCE, f"{where} has no jobname")
    where = f"job {name!r}"
    directions = {}
    for direction in Direction:
        part = raw.get(direction.value)
        if part is None:
            directions[direction] = EMPTY_DIRECTION
        elif isinstance(part, Mapping):
            directions[direction] = _parse_direction(part, legacy, f"{where} {direction}")
        else:
            raise ParseError(SOURCE, f"{where} {direction} is not an object")
    options = raw.get("job options")
    return FioJobResult(
        name=name,
        groupid=_opt_int(raw, "groupid", where) or 0,
        error=_opt_int(raw, "error", where) or 0,
        read=directions[Direction.READ],
        write=directions[Direction.WRITE],
        trim=directions[Direction.TRIM],
        job_runtime_ms=_opt_int(raw, "job_runtime", where),
        elapsed_s=_opt_int(raw, "elapsed", where),
        options=_str_map(options),
    )


def _parse_direction(raw: Mapping[str, Any], legacy: bool, where: str) -> DirectionStats:
    # fio 2.x printed io_bytes >> 10 (KiB); fio 3.0 switched to bytes and added
    # io_kbytes. So io_kbytes tells the unit; the version decides when it is absent.
    io_value = _num(raw, "io_bytes", where)
    kib = "io_kbytes" not in raw and legacy
    io_bytes = int(io_value) * 1024 if kib else int(io_value)
    runtime_ms = int(_num(raw, "runtime", where, 0))
    iops = float(_num(raw, "iops", where, 0))
    if "total_ios" in raw:
        total_ios = int(_num(raw, "total_ios", where))
    else:  # fio 2.1 had no total_ios; iops * runtime is what it was computed from
        total_ios = round(iops * runtime_ms / 1000)
    if "bw_bytes" in raw:
        bw_bytes = int(_num(raw, "bw_bytes", where))
    elif runtime_ms > 0:  # fio < 3.2: "bw" is KiB/s, rounded; redo fio's own formula
        bw_bytes = 1000 * io_bytes // runtime_ms
    else:
        bw_bytes = int(_num(raw, "bw", where, 0)) * 1024

    scale = 1000 if legacy else 1  # 2.x: microseconds
    lat = _stat_block(raw, ("lat_ns", "lat"), legacy, where)
    clat = _stat_block(raw, ("clat_ns", "clat"), legacy, where)
    lat_mean: float | None = None
    lat_count = 0
    if lat is not None and total_ios > 0:
        lat_mean = float(_num(lat, "mean", where, 0)) * scale
        lat_count = int(_num(lat, "N", where, total_ios))
    # lat_percentiles=1 puts percentiles (and bins) on lat_ns; otherwise clat carries them
    pct_block = lat if lat is not None and "percentile" in lat else clat
    p99: int | None = None
    bins: Bins = ()
    if pct_block is not None and total_ios > 0:
        p99 = _percentile(pct_block.get("percentile"), 99.0, scale, where)
        bins = _bins(pct_block.get("bins"), where)
    return DirectionStats(
        io_bytes=io_bytes,
        total_ios=total_ios,
        bw_bytes=bw_bytes,
        iops=iops,
        runtime_ms=runtime_ms,
        lat_mean_ns=lat_mean,
        lat_count=lat_count,
        lat_p99_ns=p99,
        bins=bins,
    )


def _stat_block(
    raw: Mapping[str, Any], keys: tuple[str, str], legacy: bool, where: str
) -> Mapping[str, Any] | None:
    key = keys[1] if legacy else keys[0]
    block = raw.get(key)
    if block is None:
        return None
    if not isinstance(block, Mapping):
        raise ParseError(SOURCE, f"{where} {key} is not an object")
    return block


def _percentile(raw: Any, wanted: float, scale: int, where: str) -> int | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise ParseError(SOURCE, f"{where} percentile is not an object")
    for key, value in raw.items():
        # fio 2.x/3.1 pad the table with duplicate "0.00" keys: skip what is not ours
        try:
            if float(key) != wanted:
                continue
        except ValueError:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ParseError(SOURCE, f"{where} percentile {key} is not a number")
        if not math.isfinite(value):  # json.loads takes Infinity and NaN
            raise ParseError(SOURCE, f"{where} percentile {key} is not finite")
        return int(value) * scale
    return None


def _bins(raw: Any, where: str) -> Bins:
    if raw is None:
        return ()
    if not isinstance(raw, Mapping):
        raise ParseError(SOURCE, f"{where} bins is not an object")
    out: list[tuple[int, int]] = []
    for key, value in raw.items():
        if not (isinstance(key, str) and key.isascii() and key.isdigit()) or not _is_int(value):
            raise ParseError(SOURCE, f"{where} bad histogram bin {key!r}: {value!r}")
        if value:
            out.append((int(key), int(value)))
    return tuple(sorted(out))


def aggregate(jobs: Iterable[FioJobResult], direction: Direction) -> DirectionStats:
    """Sum one direction over jobs, the way fio sums a reporting group.

    Jobs of one group run side by side, so a group lasts as long as its longest job;
    groups run one after another (stonewall starts a new group), so their durations add
    up. bw and iops are then total work over that time, as fio prints per group.
    """
    stats = [(job.groupid, job.direction(direction)) for job in jobs]
    with_io = [s for _, s in stats if s.has_io]
    if len(with_io) == 1:  # one job (or group_reporting): fio's own numbers, unrounded
        return with_io[0]
    io_bytes = sum(s.io_bytes for _, s in stats)
    total_ios = sum(s.total_ios for _, s in stats)
    group_runtime: dict[int, int] = {}
    for group, s in stats:
        group_runtime[group] = max(group_runtime.get(group, 0), s.runtime_ms)
    runtime_ms = sum(group_runtime.values())
    lat_count = sum(s.lat_count for _, s in stats if s.lat_mean_ns is not None)
    lat_mean: float | None = None
    if lat_count:
        weighted = sum(s.lat_mean_ns * s.lat_count for _, s in stats if s.lat_mean_ns is not None)
        lat_mean = weighted / lat_count
    p99: int | None = None
    bins: Bins = ()
    if with_io and all(s.bins for s in with_io):
        bins = merge_bins(s.bins for s in with_io)
        p99 = percentile_from_bins(bins, 99.0)
    # Several jobs without histograms: per-job p99s cannot be combined, so None.
    return DirectionStats(
        io_bytes=io_bytes,
        total_ios=total_ios,
        bw_bytes=1000 * io_bytes // runtime_ms if runtime_ms else 0,
        iops=1000.0 * total_ios / runtime_ms if runtime_ms else 0.0,
        runtime_ms=runtime_ms,
        lat_mean_ns=lat_mean,
        lat_count=lat_count,
        lat_p99_ns=p99,
        bins=bins,
    )


def job_summaries(report: FioReport, jobs: Sequence[JobSpec]) -> tuple[JobSummary, ...]:
    """Per job of the final report, in fio's order: the clones of a job (numjobs
    without group_reporting: one entry each, same name and group) added up as fio adds
    a reporting group; rw and bs from the planned job of that name."""
    planned = {job.name: job for job in jobs}
    groups: dict[tuple[str, int], list[FioJobResult]] = {}
    for entry in report.jobs:
        groups.setdefault((entry.name, entry.groupid), []).append(entry)
    out = []
    for (name, _group), entries in groups.items():
        job = planned.get(name)
        directions = {}
        for direction in Direction:
            stats = aggregate(entries, direction)
            if stats.has_io:
                directions[direction.value] = DirectionSummary(
                    stats.bw_bytes, stats.iops, stats.lat_mean_ns, stats.lat_p99_ns
                )
        out.append(
            JobSummary(
                name=name,
                rw=job.rw if job is not None else None,
                bs=job.bs if job is not None else None,
                directions=directions,
                error=next((e.error for e in entries if e.error), 0),
            )
        )
    return tuple(out)


# --------------------------------------------------------------------------- helpers


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _num(raw: Mapping[str, Any], key: str, where: str, default: float | None = None) -> float:
    value = raw.get(key)
    if value is None:
        if default is None:
            raise ParseError(SOURCE, f"{where}: missing {key!r}")
        return default
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ParseError(SOURCE, f"{where}: {key!r} is not a number: {value!r}")
    if not math.isfinite(value):
        raise ParseError(SOURCE, f"{where}: {key!r} is not finite")
    return value


def _opt_int(raw: Mapping[str, Any], key: str, where: str) -> int | None:
    value = raw.get(key)
    if value is None:
        return None
    if not _is_int(value):
        raise ParseError(SOURCE, f"{where}: {key!r} is not an integer: {value!r}")
    return int(value)


def _str_map(raw: Any) -> dict[str, str] | None:
    if not isinstance(raw, Mapping):
        return None
    return {str(k): str(v) for k, v in raw.items()}
