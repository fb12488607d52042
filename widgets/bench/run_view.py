"""How a finished run reads, wherever it is shown: the live run screen's result, the
history list and the history detail view. Plain Rich renderables, no widgets.

Conventions, the same in every place: rates in binary units as fio prints them
(MiB/s), read before write before trim, fio's own figures (never recomputed).

A suite (seed 002's four tests, the KDiskMark profiles) mixes sequential and random
jobs: there the per-job rows are the result, and the whole-run figure, which adds 1M
sequential and 4K random I/O together, is kept as a dim "all jobs" row.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.table import Table
from rich.text import Text

from ...app.bench.events import RunPhase
from ...core.bench_models import (
    BenchTarget,
    DirectionSummary,
    JobSummary,
    RunResult,
    RunStatus,
    RunWarning,
)
from ...core.imports import ImportNotice
from ...core.units import fmt_count, fmt_mib, fmt_ns, fmt_rate
from ..bars import percent_bar

DIRECTIONS = ("read", "write", "trim")

STATUS_LOOK = {
    RunStatus.OK: ("✔ ok", "bold green"),
    RunStatus.FAILED: ("✘ failed", "bold red"),
    RunStatus.CANCELLED: ("■ cancelled", "bold yellow"),
}

OLD_LAYOUT_MARK = "†"
IMPORTED_MARK = "⇲"
IMPORTED_SHORT = "imported from a file"
GROUP_ONLY_LINE = (
    "imported from fio's 'Run status group' line alone: bandwidth and runtime, no IOPS or latency"
)
OLD_LAYOUT_SHORT = "clones shared one file"
OLD_LAYOUT_LINE = (
    "stored before 0.2: its numjobs clones shared one test file, so these figures are "
    "lower than plain fio's"
)
CACHE_MARK = "⚠"


def status_text(status: RunStatus) -> Text:
    label, style = STATUS_LOOK[RunStatus(status)]
    return Text(label, style=style)


def duration(result: RunResult) -> str:
    if result.finished_at is None:
        return "?"
    seconds = max(0.0, result.finished_at - result.started_at)
    if seconds < 120:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes} min {secs:02d} s"


def cache_warning_text(warnings: Sequence[RunWarning | str]) -> Text:
    """The box of warnings that say the figures may be memory's, not the disks'."""
    return Text("\n".join(f"{CACHE_MARK} {w}" for w in warnings), style="bold")


def in_order(directions: Mapping[str, DirectionSummary]) -> list[tuple[str, DirectionSummary]]:
    """Read before write before trim, whatever order the mapping came in."""
    known = [(d, directions[d]) for d in DIRECTIONS if d in directions]
    return known + [(d, s) for d, s in directions.items() if d not in DIRECTIONS]


def run_head(
    target: BenchTarget,
    result: RunResult | None,
    progress: tuple[str, float, float | None] | None,
    t: float,
) -> Group:
    """The two lines above a run: the target and its disks, then the phase with a
    progress bar (``progress``: phase, fraction, ETA) or the outcome. One row each,
    whatever the path length: the phase line must stay visible."""
    line1 = Text(target.label, style="bold", no_wrap=True, overflow="ellipsis")
    disks = ", ".join(target.disks) if target.disks else "no local disk"
    line1.append(f" · disks {disks}", style="dim")
    line2 = Text(no_wrap=True, overflow="ellipsis")
    if result is not None:
        line2.append_text(status_text(result.status))
        line2.append(" · finished · escape: back to the setup", style="dim")
    elif progress is None:
        line2.append("✘ the run did not start", style="bold red")
    else:
        phase, fraction, eta_s = progress
        line2.append(
            f"{phase:<12}", style="bold yellow" if phase == RunPhase.STOPPING else "bold cyan"
        )
        line2.append_text(percent_bar(fraction * 100, width=20))
        eta = f"{eta_s:.0f} s" if eta_s is not None else "…"
        line2.append(f"  ETA {eta}  t={t:.0f} s", style="dim")
    return Group(line1, line2)


# -- the result table ------------------------------------------------------------------------


def _io_label(job: JobSummary, direction: str) -> str:
    """``randwrite 4K`` for the write side of a random job: what the row measured."""
    rw = (job.rw or "").split(":", 1)[0]
    rand = "rand" if rw.startswith("rand") else ""
    return f"{rand}{direction} {job.bs}" if job.bs else f"{rand}{direction}"


def _figures(stats: DirectionSummary) -> tuple[str, str, str, str]:
    return (
        fmt_rate(stats.bw_bytes),
        fmt_count(stats.iops) if stats.iops is not None else "—",
        fmt_ns(stats.lat_mean_ns) if stats.lat_mean_ns is not None else "—",
        fmt_ns(stats.lat_p99_ns) if stats.lat_p99_ns is not None else "—",
    )


def summary_table(result: RunResult) -> RenderableType:
    """Bandwidth, IOPS, mean and p99 latency as fio reported them: per direction for a
    single job, per job and direction (plus an "all jobs" row) for several."""
    jobs = result.job_summaries
    if len(jobs) > 1:
        return _jobs_table(result)
    if not result.summary:
        return Text("fio reported no completed I/O.", style="dim")
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    for _ in range(4):
        table.add_column(justify="right", no_wrap=True)
    table.add_row("", *(Text(h, style="dim") for h in ("bandwidth", "IOPS", "lat mean", "lat p99")))
    for direction, stats in in_order(result.summary):
        bw, iops, mean, p99 = _figures(stats)
        table.add_row(direction, Text(bw, style="bold"), iops, mean, p99)
    return table


def _jobs_table(result: RunResult) -> RenderableType:
    mixed = result.mixed_jobs
    table = Table.grid(padding=(0, 1))
    table.add_column(no_wrap=True, max_width=18, overflow="ellipsis")  # job
    table.add_column(no_wrap=True)  # what the row measured: "randread 4K"
    for _ in range(4):
        table.add_column(justify="right", no_wrap=True)
    table.add_row(
        *(Text(h, style="dim") for h in ("job", "", "bandwidth", "IOPS", "lat mean", "lat p99"))
    )
    for job in result.job_summaries:
        rows = in_order(job.directions)
        if not rows:
            why = f"error {job.error}" if job.error else "no completed I/O"
            table.add_row(Text(job.name, style="bold"), Text(why, style="dim"))
        for i, (direction, stats) in enumerate(rows):
            bw, iops, mean, p99 = _figures(stats)
            table.add_row(
                Text(job.name if i == 0 else "", style="bold"),
                Text(_io_label(job, direction), style="cyan"),
                Text(bw, style="bold" if mixed else ""),
                iops,
                mean,
                p99,
            )
    # The whole run, as fio adds it up: the headline only when the jobs are alike.
    style = "dim" if mixed else ""
    for i, (direction, stats) in enumerate(in_order(result.summary)):
        bw, iops, mean, p99 = _figures(stats)
        table.add_row(
            Text("all jobs" if i == 0 else "", style=style or "bold"),
            Text(direction, style=style),
            Text(bw, style=style or "bold"),
            Text(iops, style=style),
            Text(mean, style=style),
            Text(p99, style=style),
        )
    if not mixed:
        return table
    note = Text("all jobs adds sequential and random I/O together: compare the jobs.", style="dim")
    return Group(table, note)


# -- errors ----------------------------------------------------------------------------------


class ClippedLines:
    """Lines wrapped to the width they get, cut after ``max_rows`` rows with a count of
    what was left out: fio can print dozens of lines, and they must not push the
    charts off a failed run's screen. ``max_rows`` None shows everything."""

    def __init__(
        self, lines: list[Text], max_rows: int | None, more_hint: str = "", *, wrap: bool = True
    ) -> None:
        """``wrap=False``: one row per line, cut with an ellipsis (more lines, less of
        each: for a one-glance summary)."""
        self.lines = lines
        self.max_rows = max_rows
        self.more_hint = more_hint
        self.wrap = wrap

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        if self.wrap:
            wrapped = [list(line.wrap(console, width)) for line in self.lines]
        else:
            wrapped = [[_one_row(line, width)] for line in self.lines]
        total = sum(len(rows) for rows in wrapped)
        if self.max_rows is None or total <= self.max_rows:
            for rows in wrapped:
                yield from rows
            return
        budget = max(1, self.max_rows - 1)  # one row for "… N more lines"
        shown = 0  # source lines shown whole; one cut short counts as left out
        for rows in wrapped:
            yield from rows[:budget]
            if len(rows) > budget:
                break
            shown += 1
            budget -= len(rows)
            if budget == 0:
                break
        hidden = len(self.lines) - shown
        more = Text(f"… {hidden} more line{'s' if hidden != 1 else ''}", style="dim")
        if self.more_hint:
            more.append(f" ({self.more_hint})", style="dim")
        yield _one_row(more, width)


def _one_row(line: Text, width: int) -> Text:
    row = line.copy()
    row.truncate(width, overflow="ellipsis")
    return row


def error_lines(error: str) -> list[Text]:
    headline, _, details = error.strip().partition("\n")
    lines = [Text(headline, style="bold red")]
    lines += [Text(line, style="red") for line in details.splitlines() if line.strip()]
    return lines


# -- the whole result ------------------------------------------------------------------------


def result_renderable(
    result: RunResult,
    saved: str | None = None,
    *,
    cache_shown: bool = False,
    error_rows: int | None = None,
    more_hint: str = "",
) -> RenderableType:
    """The finished run: status line, numbers, fio's error, warnings. ``cache_shown``:
    the caller shows the cache warnings in their own box, so leave them out here.
    ``error_rows``: at most this many rows of fio's error (None: all of it)."""
    head = Text.assemble(status_text(result.status), f"  after {duration(result)}")
    count = len(result.series)
    head.append(f" · {count} sample{'s' if count != 1 else ''}", style="dim")
    if saved:
        head.append(f" · {saved}", style="dim")
    parts: list[RenderableType] = [head]
    if result.clones_shared_file:
        parts.append(Text(f"{OLD_LAYOUT_MARK} {OLD_LAYOUT_LINE}", style="bold magenta"))
    if result.imported is not None:
        line = f"{IMPORTED_MARK} {IMPORTED_SHORT}: {result.imported.file_name}"
        if ImportNotice.GROUP_STATUS_ONLY in result.imported.notices:
            line += f" · {GROUP_ONLY_LINE}"
        parts.append(Text(line, style="cyan"))
    if result.status is RunStatus.OK or result.summary:
        parts.append(summary_table(result))
    if result.status is RunStatus.CANCELLED:
        parts.append(Text("Cancelled: fio was stopped and its test files removed.", style="yellow"))
    if result.error:
        parts.append(ClippedLines(error_lines(result.error), error_rows, more_hint))
    for warning in result.warnings:
        if not (cache_shown and warning.kind.inflates_results):
            parts.append(Text(f"{CACHE_MARK} {warning}", style="yellow"))
    return Group(*parts)


# -- the history list ------------------------------------------------------------------------


def list_rate_cells(run: RunResult) -> list[Text]:
    """The read and write cells of a history row: fio's whole-run bandwidth in MiB/s,
    or, for a suite whose jobs differ, how many jobs did that direction (their figures
    are in the run's detail: an average of 1M and 4K jobs would mislead)."""
    cells = []
    for direction in ("read", "write"):
        if run.mixed_jobs:
            count = sum(direction in job.directions for job in run.job_summaries)
            cells.append(
                Text(f"{count} job{'s' if count != 1 else ''}", justify="right", style="cyan")
                if count
                else Text("—", justify="right", style="dim")
            )
            continue
        stats = run.summary.get(direction)
        cells.append(
            # a bare figure under a "MiB/s" heading: one unit down the column, so that
            # 0.8 and 10,941.6 compare at a glance (not 758 KiB/s beside 10.2 GiB/s)
            Text(fmt_mib(stats.bw_bytes), justify="right")
            if stats
            else Text("—", justify="right", style="dim")
        )
    return cells


def name_cell(run: RunResult) -> Text:
    """The run's name with its marks (cache, old file layout, imported) and tags."""
    name = Text()
    if run.inflated:
        name.append(f"{CACHE_MARK} ", style="bold yellow")
    if run.clones_shared_file:
        name.append(f"{OLD_LAYOUT_MARK} ", style="bold magenta")
    if run.imported is not None:
        name.append(f"{IMPORTED_MARK} ", style="cyan")
    name.append(run.name)
    if run.tags:
        name.append(" [" + " ".join(run.tags) + "]", style="cyan")
    return name
