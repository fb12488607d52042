"""A stored run's results as text: what ``bench run`` prints at its end and ``history
show`` under the run's facts.

One convention in every table, the progress line included: fio's own. Bandwidth in
MiB/s (2^20 bytes per second, the first figure of fio's ``bw=`` line), read before
write. ``--json`` stays in bytes (docs/bench-json.md).

A run's headline is per job: a suite mixing 1M sequential and 4K random jobs has no
meaningful whole-run figure, so the "all jobs" row appears only when the jobs do not
differ in rw or bs. Runs stored before 0.2 whose numjobs clones shared one test file
are marked wherever their figures are shown: they are lower than plain fio's.
"""

from __future__ import annotations

from ...core.bench_models import DirectionSummary, RunResult, RunStatus
from ...core.imports import ImportNotice
from ...core.units import fmt_mib, fmt_ns, format_bytes
from .run_json import device_totals
from .text_table import table

DIRECTIONS = ("read", "write", "trim")

OLD_LAYOUT_NOTE = (
    "stored before 0.2: its numjobs clones shared one test file; figures are lower than plain fio's"
)
MIXED_NOTE = "jobs differ in rw/bs: no whole-run figure"
GROUP_ONLY_NOTE = (
    "only fio's 'Run status group' line was in the file: bandwidth and runtime, no IOPS or latency"
)


def latency(ns: float | None) -> str:
    return "-" if ns is None else fmt_ns(ns)


def iops(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def jobs_differ(result: RunResult) -> bool:
    """The whole-run figure would add different kinds of I/O together. Without fio's
    per-job report (a failed run), the jobs as planned decide."""
    if result.job_summaries:
        return result.mixed_jobs
    return len({(j.rw, j.bs) for j in result.jobs}) > 1


def _figures(d: DirectionSummary) -> list[str]:
    return [fmt_mib(d.bw_bytes), iops(d.iops), latency(d.lat_mean_ns), latency(d.lat_p99_ns)]


def summary_lines(result: RunResult) -> list[str]:
    """One row per job and direction with I/O; "all jobs" only when adding them up
    means something (more than one job, all of the same rw and bs)."""
    rows: list[list[str]] = []
    for job in result.job_summaries:
        kind = [job.name, job.rw or "-", job.bs or "-"]
        directions = [d for d in DIRECTIONS if d in job.directions]
        for direction in directions:
            rows.append([*kind, direction, *_figures(job.directions[direction])])
        if not directions:  # a job that did no I/O at all (stopped, failed) still shows
            rows.append([*kind, "-", "-", "-", "-", "-"])
    mixed = jobs_differ(result)
    if result.summary and not mixed and len(result.job_summaries) != 1:
        kinds = {(j.rw, j.bs) for j in (result.job_summaries or result.jobs)}
        rw, bs = next(iter(kinds)) if len(kinds) == 1 else ("-", "-")
        for direction in DIRECTIONS:
            d = result.summary.get(direction)
            if d is not None:
                rows.append(["all jobs", rw or "-", bs or "-", direction, *_figures(d)])
    header = ["job", "rw", "bs", "dir", "MiB/s", "IOPS", "mean lat", "p99 lat"]
    lines = table(header, rows, left=4) if rows else []
    if mixed and (rows or result.summary):
        lines.append(MIXED_NOTE)
    return lines


def disk_lines(result: RunResult) -> list[str]:
    label = result.target.label or result.target.path
    disks = device_totals(result)
    if disks and not result.device_series:
        # no sample at all: a table of "-" and 0B would read as idle disks
        why = " (imported)" if result.imported is not None else ""
        return [f"disks under {label}: not sampled{why}"]
    rows: list[list[str]] = []
    for disk in disks:
        series = disk["series"]
        seconds = series[-1]["t"] if series else 0.0
        util = sum(s["util_pct"] for s in series) / len(series) if series else None
        rows.append(
            [
                disk["device"],
                fmt_mib(disk["read_bytes"] / seconds if seconds else None),
                fmt_mib(disk["write_bytes"] / seconds if seconds else None),
                "-" if util is None else f"{util:.0f}",
                format_bytes(disk["read_bytes"]),
                format_bytes(disk["write_bytes"]),
            ]
        )
    if not rows:
        return []
    header = ["disk", "read MiB/s", "write MiB/s", "util %", "read", "written"]
    return [f"disks under {label} (from /proc/diskstats):", *table(header, rows)]


def result_lines(result: RunResult) -> list[str]:
    """The human summary: per-job figures, the disks underneath, warnings."""
    head = f"#{result.id} " if result.id is not None else ""
    lines = [f"{head}{result.name}: {RunStatus(result.status).value}"]
    if result.clones_shared_file:
        lines.append(f"note: {OLD_LAYOUT_NOTE}")
    if result.imported is not None and ImportNotice.GROUP_STATUS_ONLY in result.imported.notices:
        lines.append(f"note: {GROUP_ONLY_NOTE}")
    if result.error:
        lines.append(f"error: {result.error}")
    for block in (summary_lines(result), disk_lines(result)):
        if block:
            lines += ["", *block]
    if result.warnings:
        lines.append("")
    lines += [f"warning: {w}" for w in result.warnings]
    return lines
