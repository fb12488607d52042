"""What the mover view draws: the dry run's forecast, the live progress, a run's report.

Pure renderers over app/mover/run's typed results (MoverReport, MoverProgress) and the
plan table; screens/layout/mover.py places them. Nothing here reads the machine.
"""

from __future__ import annotations

import time
from collections import Counter

from rich.console import Group, RenderableType
from rich.text import Text
from textual.widgets import DataTable

from ...app.mover.history import MoverRecord, SkippedFile
from ...app.mover.progress import step_text
from ...app.mover.run import MoverProgress, MoverReport, record_of
from ...core.mover import PlannedMove, RecoveryAction, StopReason
from ...core.units import counted, fmt_clock, fmt_rate, format_bytes

_STOP = {
    StopReason.NO_SPACE: "the slow tier is full",
    StopReason.READ_ONLY: "a slow branch is read-only",
    StopReason.CANCELLED: "cancelled",
    StopReason.ERROR: "an error",
}
_RECOVERED = {
    RecoveryAction.FINISHED: "finished (the copy was whole: source removed)",
    RecoveryAction.UNDONE: "undone (partial copy removed: the file stays on the cache)",
    RecoveryAction.TEMP_REMOVED: "temp file removed",
}
SKIPPED_ROWS = 8  # skipped files listed one by one; the rest are counted


def _when(stamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))


def planned_bytes(moves: tuple[PlannedMove, ...]) -> int:
    return sum(m.file.size for m in moves)


def forecast_renderable(report: MoverReport) -> RenderableType:
    """The dry run in words: how much would move and why, how long it should take and
    on what basis, and the noatime caveat."""
    moves = report.planned
    if not moves:
        head = Text("Nothing to move now.", style="bold")
        return Group(head, *_unplaced_lines(report), *_noatime_lines(report))
    total = planned_bytes(moves)
    reasons = Counter(m.reason.value for m in moves)
    why = ", ".join(f"{n} by {reason}" for reason, n in sorted(reasons.items()))
    head = Text.assemble(
        ("Would move ", "bold"),
        (f"{counted(len(moves), 'file')}, {format_bytes(total)}", "bold cyan"),
        f" ({why})",
    )
    return Group(head, forecast_time(report), *_unplaced_lines(report), *_noatime_lines(report))


def forecast_time(report: MoverReport) -> Text:
    """The forecast's time and its basis (the history's bandwidth), or why there is none."""
    note = report.forecast_note
    if report.forecast_seconds is None:
        why = note or "no benchmark in the history measured the slow disks"
        return Text(f"Time: unknown ({why}; b on the dashboard measures them).", style="dim")
    return Text.assemble(
        "Time: about ", (fmt_clock(report.forecast_seconds), "bold"), f" ({note})" if note else ""
    )


def _unplaced_lines(report: MoverReport) -> list[Text]:
    unplaced = report.unplaced
    if not unplaced:
        return []
    size = format_bytes(sum(u.file.size for u in unplaced))
    why = f" ({report.unplaced_reason})" if report.unplaced_reason else ""
    return [
        Text(
            f"! {counted(len(unplaced), 'selected file')} ({size}) fit on no slow branch{why}: "
            "they stay on the cache.",
            style="yellow",
        )
    ]


def _noatime_lines(report: MoverReport) -> list[Text]:
    if not report.noatime_branches:
        return []
    where = ", ".join(report.noatime_branches)
    return [
        Text(
            f"! {where} mounted noatime: reads leave atime alone, so files in use look as "
            'old as their last write. age_basis = "mtime" says so plainly.',
            style="yellow",
        )
    ]


class PlanTable(DataTable[Text | str]):
    """The forecast, one file a row: where it is, its size, why and where it goes."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)  # type: ignore[arg-type]

    def on_mount(self) -> None:
        for label, key in (("File", "file"), ("Size", "size"), ("Why", "why"), ("To", "to")):
            self.add_column(label, key=key)

    def show(self, moves: tuple[PlannedMove, ...]) -> None:
        self.clear()
        for move in moves:
            f = move.file
            name = Text(f.rel + (" →link" if f.is_symlink else ""), overflow="ellipsis")
            self.add_row(
                name,
                Text(format_bytes(f.size), justify="right"),
                move.reason.value,
                move.destination,
            )


def progress_text(progress: MoverProgress) -> Text:
    """One live line under the bar, and the file being moved."""
    rate = fmt_rate(progress.rate_bps) if progress.rate_bps is not None else "-"
    out = Text.assemble(
        (f"{progress.files_done}/{progress.files_total}", "bold"),
        " files · ",
        (f"{progress.files_skipped} skipped · " if progress.files_skipped else "", "yellow"),
        (f"{format_bytes(progress.bytes_done)} of {format_bytes(progress.bytes_total)}", "bold"),
        f" · {rate} · ETA {fmt_clock(progress.eta_seconds)}",
    )
    step = step_text(progress.step)
    if step:
        out.append(f"\n{step}", style="yellow")
    elif progress.current:
        out.append("\nnow: ", style="dim")
        out.append(progress.current, style="cyan")
    return out


def _skip_lines(skipped: tuple[SkippedFile, ...]) -> list[Text]:
    if not skipped:
        return []
    kinds = Counter(str(s.reason) for s in skipped)
    head = Text.assemble(
        (f"Skipped {counted(len(skipped), 'file')}: ", "bold yellow"),
        ", ".join(f"{kind} {n}" for kind, n in sorted(kinds.items())),
        " (left on the cache, whole)",
    )
    lines = [head]
    for item in skipped[:SKIPPED_ROWS]:
        line = Text.assemble("  ", (str(item.reason), "yellow"), " ", item.rel)
        if item.detail:
            line.append(f" ({item.detail})", style="dim")
        lines.append(line)
    if len(skipped) > SKIPPED_ROWS:
        lines.append(Text(f"  … and {len(skipped) - SKIPPED_ROWS} more", style="dim"))
    return lines


def _run_lines(title: str, record: MoverRecord) -> list[RenderableType]:
    """What a run did, from its record: the report of this view's run and the last
    recorded run read the same way."""
    head = Text.assemble(
        (title, "bold"),
        f" {_when(record.started)}, layout {record.layout_name}, took {fmt_clock(record.duration)}",
    )
    if record.dry_run:
        head.append(" (dry run)", style="dim")
    if record.refused is not None:
        refused = Text.assemble(("Refused ", "bold red"), f"({record.refused}): ", record.message)
        return [head, refused, Text("Nothing was touched.", style="dim")]
    moved = Text.assemble(
        ("Moved ", "bold"),
        (
            f"{counted(record.files_moved, 'file')}, {format_bytes(record.bytes_moved)}",
            "bold green",
        ),
        f" of {counted(record.files_planned, 'file')} planned",
    )
    lines: list[RenderableType] = [head, moved]
    if record.stopped is not None:
        lines.append(
            Text.assemble(
                ("Stopped: ", "bold red"),
                _STOP[record.stopped],
                (". Every file is whole, in one place.", "dim"),
            )
        )
        if record.message:
            lines.append(Text(record.message, style="dim"))
    lines.extend(_skip_lines(record.skipped))
    return lines


def record_renderable(record: MoverRecord, *, title: str = "Last run:") -> RenderableType:
    lines = _run_lines(title, record)
    if record.unplaced and not record.dry_run:
        # Selected but never attempted: not among the planned, yet why the run exited 1.
        left = f"{counted(record.unplaced, 'selected file')} fit on no slow branch"
        lines.append(Text.assemble(("Not moved: ", "bold yellow"), left, " (left on the cache)"))
        if record.stopped is None and record.message:
            lines.append(Text(record.message, style="dim"))
    if record.recovered:
        lines.append(Text(f"Recovered {counted(record.recovered, 'move')} a crash had left."))
    return Group(*lines)


def report_renderable(report: MoverReport, *, title: str = "This run:") -> RenderableType:
    """A run of this view: its record's lines, and each recovery by name."""
    record = record_of(report, "")
    lines = _run_lines(title, record)
    lines.extend(_unplaced_lines(report))
    for rec in report.recovered:
        lines.append(Text.assemble(("Recovered ", "bold"), rec.rel, ": ", _RECOVERED[rec.action]))
    return Group(*lines)
