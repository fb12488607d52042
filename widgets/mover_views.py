"""What the mover view draws: the dry run's forecast, the live progress, a run's report.

Pure renderers over app/mover's typed results (MoverReport, MoverProgress) and the
plan table; screens/mover.py places them. Nothing here reads the machine.
"""

from __future__ import annotations

import time
from collections import Counter

from rich.console import Group, RenderableType
from rich.text import Text
from textual.widgets import DataTable

from ..app.mover import MoverProgress, MoverReport
from ..core.mover import MoveOutcome, PlannedMove, RecoveryAction, StopReason
from ..core.units import fmt_clock, fmt_rate, format_bytes

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


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _when(stamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))


def planned_bytes(moves: tuple[PlannedMove, ...]) -> int:
    return sum(m.file.size for m in moves)


def forecast_renderable(report: MoverReport) -> RenderableType:
    """The dry run in words: how much would move and why, how long it should take and
    on what basis, and the noatime caveat."""
    moves = report.planned
    if not moves:
        head = Text.assemble(
            ("Nothing to move now", "bold"), f" ({report.message})" if report.message else ""
        )
        return Group(head, *_noatime_lines(report))
    total = planned_bytes(moves)
    reasons = Counter(m.reason.value for m in moves)
    why = ", ".join(f"{n} by {reason}" for reason, n in sorted(reasons.items()))
    head = Text.assemble(
        ("Would move ", "bold"),
        (f"{_count(len(moves), 'file')}, {format_bytes(total)}", "bold cyan"),
        f" ({why})",
    )
    return Group(head, forecast_time(report, total), *_noatime_lines(report))


def forecast_time(report: MoverReport, total: int) -> Text:
    seconds = report.forecast_seconds
    if seconds is None:
        return Text(
            "Time: unknown, no benchmark in the history measured the slow disks "
            "(b on the dashboard measures them).",
            style="dim",
        )
    rate = f" at {fmt_rate(total / seconds)}" if seconds > 0 else ""
    return Text.assemble(
        "Time: about ",
        (fmt_clock(seconds), "bold"),
        f"{rate}: the history's best write on those disks.",
    )


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
        (f"{format_bytes(progress.bytes_done)} of {format_bytes(progress.bytes_total)}", "bold"),
        f" · {rate} · ETA {fmt_clock(progress.eta_seconds)}",
    )
    if progress.current:
        out.append("\nnow: ", style="dim")
        out.append(progress.current, style="cyan")
    return out


def _skip_lines(skipped: tuple[MoveOutcome, ...]) -> list[Text]:
    if not skipped:
        return []
    kinds = Counter(o.skip.value for o in skipped if o.skip is not None)
    head = Text.assemble(
        (f"Skipped {_count(len(skipped), 'file')}: ", "bold yellow"),
        ", ".join(f"{kind} {n}" for kind, n in sorted(kinds.items())),
        " (left on the cache, whole)",
    )
    lines = [head]
    for outcome in skipped[:SKIPPED_ROWS]:
        kind = outcome.skip.value if outcome.skip is not None else "?"
        line = Text.assemble("  ", (kind, "yellow"), " ", outcome.move.file.rel)
        if outcome.detail:
            line.append(f" ({outcome.detail})", style="dim")
        lines.append(line)
    if len(skipped) > SKIPPED_ROWS:
        lines.append(Text(f"  … and {len(skipped) - SKIPPED_ROWS} more", style="dim"))
    return lines


def report_renderable(report: MoverReport, *, title: str) -> RenderableType:
    """A finished run: what moved, what was skipped and why, why it stopped."""
    took = fmt_clock(report.finished - report.started)
    head = Text.assemble(
        (title, "bold"), f" {_when(report.started)}, layout {report.layout_name}, took {took}"
    )
    if report.dry_run:
        head.append(" (dry run)", style="dim")
    moved = Text.assemble(
        ("Moved ", "bold"),
        (f"{_count(report.files_moved, 'file')}, {format_bytes(report.bytes_moved)}", "bold green"),
        f" of {_count(len(report.planned), 'file')} planned",
    )
    lines: list[RenderableType] = [head, moved]
    if report.stopped is not None:
        why = _STOP[report.stopped]
        stop = Text.assemble(("Stopped: ", "bold red"), why)
        if report.message:
            stop.append(f": {report.message}")
        stop.append(". Every file is whole, in one place.", style="dim")
        lines.append(stop)
    elif report.message:
        lines.append(Text(report.message, style="dim"))
    lines.extend(_skip_lines(report.skipped))
    for rec in report.recovered:
        lines.append(Text.assemble(("Recovered ", "bold"), rec.rel, ": ", _RECOVERED[rec.action]))
    return Group(*lines)
