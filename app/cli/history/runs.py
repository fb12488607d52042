"""``tierdeck history ...``, and a run's results as text (``bench run`` prints them the
same way).

One convention in every table, the progress line included: fio's own. Bandwidth in
MiB/s (2^20 bytes per second, the first figure of fio's ``bw=`` line), read before
write. ``--json`` stays in bytes (docs/bench-json.md).

A run's headline is per job: a suite mixing 1M sequential and 4K random jobs has no
meaningful whole-run figure, so the "all jobs" row appears only when the jobs do not
differ in rw or bs. Runs stored before 0.2 whose numjobs clones shared one test file
are marked wherever their figures are shown: they are lower than plain fio's.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

import click

from ....core.bench_models import DirectionSummary, RunResult, RunStatus
from ....core.errors import TierdeckError
from ....core.imports import ImportNotice
from ....core.units import fmt_mib, fmt_ns
from ...history.store import HistoryError, HistoryStore, device_totals, result_to_json
from .. import EXIT_FAILED, fail

DIRECTIONS = ("read", "write", "trim")
ELLIPSIS = "…"

OLD_LAYOUT_NOTE = (
    "stored before 0.2: its numjobs clones shared one test file; figures are lower than plain fio's"
)
OLD_LAYOUT_MARK = "*"
OLD_LAYOUT_LEGEND = (
    f"{OLD_LAYOUT_MARK} stored before 0.2: clones shared one test file, figures too low"
)
MIXED_NOTE = "jobs differ in rw/bs: no whole-run figure"
IMPORTED_MARK = "i"
IMPORTED_LEGEND = (
    f"{IMPORTED_MARK} imported from a file (history import): no series, no environment"
)
GROUP_ONLY_NOTE = (
    "only fio's 'Run status group' line was in the file: bandwidth and runtime, no IOPS or latency"
)


def _stdin_is_terminal() -> bool:
    return sys.stdin.isatty()


def output_width() -> int | None:
    """Columns to fit in: the terminal's when stdout is one; None (no limit, nothing
    cut) in a pipe, where the full text is what grep and scripts want."""
    if not sys.stdout.isatty():
        return None
    return shutil.get_terminal_size().columns


# --------------------------------------------------------------------------- figures


def latency(ns: float | None) -> str:
    return "-" if ns is None else fmt_ns(ns)


def iops(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def when(epoch: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(epoch))


def when_short(epoch: float, now: float | None = None) -> str:
    """As ls does: month, day and time this year, the date alone before."""
    stamp = time.localtime(epoch)
    this_year = time.localtime(time.time() if now is None else now).tm_year
    return time.strftime("%m-%d %H:%M" if stamp.tm_year == this_year else "%Y-%m-%d", stamp)


# --------------------------------------------------------------------------- tables


@dataclass
class Column:
    header: str
    cells: list[str]
    right: bool = False  # numbers
    cut: str | None = None  # "end" / "start": may be cut there with "…" to fit

    def natural(self) -> int:
        return max(len(c) for c in [self.header, *self.cells])


# One step of making a table fit: (column header, width to shrink it to at most), or
# (header, None) to leave the column out. Applied in order until the lines fit.
FitStep = tuple[str, int | None]


def _cut(text: str, width: int, where: str | None) -> str:
    if len(text) <= width or where is None:
        return text
    if width <= 1:
        return ELLIPSIS[:width]
    if where == "start":  # paths: the end says most ("…/mnt/disk1")
        return ELLIPSIS + text[len(text) - width + 1 :]
    return text[: width - 1] + ELLIPSIS


def _fit(
    columns: list[Column], limit: int | None, steps: Sequence[FitStep]
) -> tuple[list[Column], list[int]]:
    columns = list(columns)
    widths = [c.natural() for c in columns]
    if limit is None:
        return columns, widths
    for header, floor in steps:
        excess = sum(widths) + 2 * (len(widths) - 1) - limit
        if excess <= 0:
            break
        index = next((i for i, c in enumerate(columns) if c.header == header), None)
        if index is None:
            continue
        if floor is None:
            del columns[index], widths[index]
        else:
            # never below the header: a cut header would be unreadable
            floor = max(floor, len(header))
            widths[index] = max(widths[index] - excess, min(floor, widths[index]))
    return columns, widths


def render(
    columns: list[Column], limit: int | None = None, steps: Sequence[FitStep] = ()
) -> list[str]:
    """Aligned columns, two spaces apart; within ``limit`` characters when given, by
    taking ``steps`` in order (cutting a column, or leaving it out) until it fits."""
    if not columns or not columns[0].cells:
        return []
    columns, widths = _fit(columns, limit, steps)

    def line(cells: list[str]) -> str:
        parts = []
        for column, width, cell in zip(columns, widths, cells, strict=True):
            text = _cut(cell, width, column.cut)
            parts.append(text.rjust(width) if column.right else text.ljust(width))
        return "  ".join(parts).rstrip()

    rows = list(zip(*(c.cells for c in columns), strict=True))
    return [line([c.header for c in columns]), *(line(list(r)) for r in rows)]


def table(header: list[str], rows: list[list[str]], *, left: int = 1) -> list[str]:
    """Plain aligned columns: the first ``left`` ones left-aligned, numbers right.
    Greppable, never cut, the same on a terminal and in a pipe."""
    columns = [Column(h, [r[i] for r in rows], right=i >= left) for i, h in enumerate(header)]
    return render(columns)


# --------------------------------------------------------------------------- results


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
    from ....core.units import format_bytes

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


# --------------------------------------------------------------------------- history


def _store() -> HistoryStore:
    try:
        return HistoryStore()
    except HistoryError as exc:
        fail(str(exc), EXIT_FAILED)


def _get(store: HistoryStore, run_id: int, *, missing: int = EXIT_FAILED) -> RunResult:
    """The run, or exit with ``missing`` (compare refuses unknown ids with 2)."""
    try:
        result = store.get(run_id)
    except TierdeckError as exc:
        fail(str(exc), EXIT_FAILED)
    if result is None:
        fail(f"no run #{run_id} in the history ({store.path})", missing)
    return result


@click.group()
def history() -> None:
    """Stored benchmark runs. `list` shows only successful runs unless --status says
    otherwise: failed and cancelled runs are kept, never mixed with good ones."""


def _bandwidth_cell(result: RunResult, direction: str) -> str:
    if jobs_differ(result):
        # No average of sequential and random I/O: say how many jobs to look at instead.
        count = sum(direction in j.directions for j in result.job_summaries)
        return f"{count} job{'s' if count != 1 else ''}" if count else "-"
    d = result.summary.get(direction)
    return fmt_mib(d.bw_bytes) if d is not None else "-"


# What gives way first when the list is wider than the terminal: the start of the
# target path (its end names the disk or branch, and a default run name already holds
# the target's label), then the tags (shown by history show), then the name's end.
LIST_FIT: tuple[FitStep, ...] = (
    ("target", 16),
    ("tags", None),
    ("target", 12),
    ("name", 16),
    ("target", 10),
    ("name", 10),
)


def list_lines(runs: Sequence[RunResult], *, with_status: bool, limit: int | None) -> list[str]:
    """The history list as a table within ``limit`` columns (LIST_FIT says what is cut
    first); ``history show ID`` and ``--json`` keep the full text."""
    columns = [Column("id", [str(r.id) for r in runs])]
    if any(r.clones_shared_file or r.imported for r in runs):
        marks = [
            (OLD_LAYOUT_MARK if r.clones_shared_file else "")
            + (IMPORTED_MARK if r.imported else "")
            for r in runs
        ]
        columns.append(Column("", marks))
    columns.append(Column("started", [when_short(r.started_at) for r in runs]))
    if with_status:
        columns.append(Column("status", [RunStatus(r.status).value for r in runs]))
    columns += [
        Column("name", [r.name for r in runs], cut="end"),
        Column("target", [r.target.path for r in runs], cut="start"),
        Column("read MiB/s", [_bandwidth_cell(r, "read") for r in runs], right=True),
        Column("write MiB/s", [_bandwidth_cell(r, "write") for r in runs], right=True),
    ]
    if any(r.tags for r in runs):
        columns.append(Column("tags", [" ".join(r.tags) for r in runs], cut="end"))
    return render(columns, limit, LIST_FIT)


@history.command("list")
@click.option("--target", metavar="PATH", help="Only runs on this target path.")
@click.option("--preset", metavar="NAME", help="Only runs of this preset.")
@click.option("--tag", metavar="TAG", help="Only runs with this tag.")
@click.option(
    "--status",
    type=click.Choice(["ok", "failed", "cancelled", "all"]),
    default="ok",
    show_default=True,
    help="Which outcomes to list.",
)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array of tierdeck.run/1.")
def list_cmd(
    target: str | None, preset: str | None, tag: str | None, status: str, as_json: bool
) -> None:
    """List stored runs, newest first.

    Bandwidth is in MiB/s (as fio reports it), read before write. A run whose jobs
    differ in rw or bs shows "N jobs" instead of a figure: adding sequential and random
    I/O together means nothing; `history show ID` has each job's result.

    A run marked "*" was stored before tierdeck 0.2, when a job's numjobs clones
    shared one test file: its figures are lower than plain fio's (a legend on stderr
    says so). A run marked "i" was imported from a file (`history import`).

    On a terminal the table fits its width: long names are cut at the end and targets
    at the start with "…", tags left out when nothing else helps. In a pipe nothing is
    cut; `history show ID` and --json always have the full text.
    """
    store = _store()
    statuses = tuple(RunStatus) if status == "all" else RunStatus(status)
    try:
        runs = store.list(
            target=os.path.realpath(target) if target else None,
            preset=preset,
            status=statuses,
            tag=tag,
            full=as_json,
            series=as_json,  # the table needs the summaries only
        )
    except TierdeckError as exc:
        fail(str(exc), EXIT_FAILED)
    if as_json:
        click.echo(json.dumps([result_to_json(r) for r in runs], indent=2))
        return
    if not runs:
        click.echo(f"no {'' if status == 'all' else status + ' '}runs stored", err=True)
        return
    click.echo("\n".join(list_lines(runs, with_status=status == "all", limit=output_width())))
    legends = [OLD_LAYOUT_LEGEND] if any(r.clones_shared_file for r in runs) else []
    legends += [IMPORTED_LEGEND] if any(r.imported for r in runs) else []
    if legends:
        sys.stdout.flush()  # the legend belongs under the table on a terminal
        click.echo("\n".join(legends), err=True)


@history.command("show")
@click.argument("run_id", type=int, metavar="ID")
@click.option("--json", "as_json", is_flag=True, help="Print the tierdeck.run/1 object.")
@click.option("--fio", "with_fio", is_flag=True, help="With --json: add fio's full JSON.")
@click.option("--series", is_flag=True, help="Also print the per-second series.")
def show_cmd(run_id: int, as_json: bool, with_fio: bool, series: bool) -> None:
    """Show one run: target, environment, each job's results, disks and warnings.

    Bandwidth is in MiB/s (as fio reports it), read before write. A run stored before
    tierdeck 0.2 whose numjobs clones shared one test file says so: its figures are
    lower than plain fio's.
    """
    result = _get(_store(), run_id)
    if as_json:
        click.echo(json.dumps(result_to_json(result, include_fio=with_fio), indent=2))
        return
    t = result.target
    lines = [
        f"target:   {t.label} ({t.kind}) {t.path}",
        f"disks:    {' '.join(t.disks) or '-'}",
        f"preset:   {result.preset or '-'}",
        f"started:  {when(result.started_at)}"
        + (f", {result.finished_at - result.started_at:.0f} s" if result.finished_at else ""),
    ]
    if result.tags:
        lines.append(f"tags:     {' '.join(result.tags)}")
    if result.imported is not None:
        lines.append(f"imported: {result.imported.file_name} ({result.imported.format})")
    env = result.env
    mounted = f" ({','.join(env.mount_options)})" if env.mount_options else ""
    env_bits = [
        f"kernel {env.kernel}" if env.kernel else "",
        env.fio_version or "",
        f"{env.fs_type}{mounted}" if env.fs_type else "",
        f"mergerfs {env.mergerfs_version}" if env.mergerfs_version else "",
        f"zfs {env.zfs_version}" if env.zfs_version else "",
    ]
    lines.append(f"env:      {', '.join(b for b in env_bits if b) or '-'}")
    lines += [f"          {disk}: {model}" for disk, model in env.disk_models.items()]
    if env.mergerfs_options:
        opts = " ".join(f"{k}={v}" for k, v in env.mergerfs_options.items())
        lines.append(f"mergerfs: {opts}")
    if env.zfs_properties:
        props = " ".join(f"{k}={v}" for k, v in env.zfs_properties.items())
        lines.append(f"zfs:      {props}")
    lines += ["", *result_lines(result)]
    if series and result.series:
        header = ["t", "read MiB/s", "write MiB/s", "read IOPS", "write IOPS", "read p99",
                  "write p99"]  # fmt: skip
        rows = [
            [
                f"{s.t:.1f}",
                fmt_mib(s.read.bw_bytes_per_s),
                fmt_mib(s.write.bw_bytes_per_s),
                iops(s.read.iops),
                iops(s.write.iops),
                latency(s.read.lat_p99_ns),
                latency(s.write.lat_p99_ns),
            ]  # fmt: skip
            for s in result.series
        ]
        lines += ["", "per second (fio, all jobs):", *table(header, rows, left=0)]
    click.echo("\n".join(lines))


@history.command("rename")
@click.argument("run_id", type=int, metavar="ID")
@click.argument("name")
def rename_cmd(run_id: int, name: str) -> None:
    """Give a run a new name."""
    try:
        _store().rename(run_id, name)
    except TierdeckError as exc:
        fail(str(exc), EXIT_FAILED)


@history.command("tag")
@click.argument("run_id", type=int, metavar="ID")
@click.argument("tags", nargs=-1, metavar="TAG...")
@click.option("--remove", is_flag=True, help="Remove these tags instead of adding them.")
@click.option("--clear", is_flag=True, help="Remove every tag first.")
def tag_cmd(run_id: int, tags: Sequence[str], remove: bool, clear: bool) -> None:
    """Add tags to a run (or --remove them); prints the run's tags afterwards."""
    store = _store()
    current = [] if clear else list(_get(store, run_id).tags)
    if remove:
        new = [t for t in current if t not in tags]
    else:
        new = current + [t for t in tags if t not in current]
    try:
        store.set_tags(run_id, new)
    except TierdeckError as exc:
        fail(str(exc), EXIT_FAILED)
    click.echo(" ".join(_get(store, run_id).tags))


@history.command("delete")
@click.argument("run_id", type=int, metavar="ID")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
def delete_cmd(run_id: int, yes: bool) -> None:
    """Delete a run and its series (asks first on a terminal)."""
    store = _store()
    result = _get(store, run_id)
    if not yes and _stdin_is_terminal():
        click.confirm(
            f"Delete run #{run_id} ({result.name}, {when(result.started_at)})?", abort=True
        )
    try:
        store.delete(run_id)
    except TierdeckError as exc:
        fail(str(exc), EXIT_FAILED)
    click.echo(f"deleted run #{run_id}", err=True)


def _register_import() -> None:
    # Their own modules (app/cli/history/importing.py, app/cli/history/export.py); each loads its parsers
    # or renderers only when it runs.
    from .export import export_cmd
    from .importing import import_cmd

    history.add_command(import_cmd)
    history.add_command(export_cmd)


_register_import()
