"""The text ``tierdeck mover run`` prints for a forecast and a run's result.

On a terminal the forecast is a table, capped at :data:`TABLE_ROWS` rows (a person
reads the first ones; ``--json`` lists every file). Elsewhere (systemd's journal, a
pipe) it is a summary: a run of 100,000 files would otherwise log 100,000 lines, and
printing them costs more than planning them.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence

from ...core.mover import PlannedMove
from ...core.units import counted, format_bytes
from .run import MoverReport

TABLE_ROWS = 20  # the terminal's table; the rest is counted
UNPLACED_ROWS = 20  # files that fit nowhere are listed everywhere, up to this many


def duration_text(seconds: float | None) -> str:
    if seconds is None:
        return "unknown"
    return str(datetime.timedelta(seconds=round(seconds)))


def noatime_lines(report: MoverReport) -> list[str]:
    return [
        f"note: {branch} is mounted noatime: atime never changes there, so age by atime "
        'is age since the file was made (age_basis = "mtime" may suit it better)'
        for branch in report.noatime_branches
    ]


def _table(moves: Sequence[PlannedMove], rows: int) -> list[str]:
    shown = moves[:rows]
    width = max(len(m.file.rel) for m in shown)
    lines = [f"{'FILE':<{width}}  {'SIZE':>7}  {'REASON':<6}  DESTINATION"]
    lines += [f"{m.file.rel:<{width}}  {format_bytes(m.file.size):>7}  "
              f"{m.reason!s:<6}  {m.destination}" for m in shown]  # fmt: skip
    if len(moves) > rows:
        lines.append(f"... and {len(moves) - rows} more (--json lists every file)")
    return lines


def _tally(moves: Iterable[PlannedMove], key: str) -> list[tuple[str, int, int]]:
    """(name, files, bytes) per reason or per destination, in first-seen order."""
    counts: dict[str, list[int]] = {}
    for m in moves:
        name = str(m.reason) if key == "reason" else m.destination
        c = counts.setdefault(name, [0, 0])
        c[0] += 1
        c[1] += m.file.size
    return [(name, files, size) for name, (files, size) in counts.items()]


def _summary(moves: Sequence[PlannedMove]) -> list[str]:
    lines = [f"  {reason}: {counted(files, 'file')}, {format_bytes(size)}"
             for reason, files, size in sorted(_tally(moves, "reason"))]  # fmt: skip
    lines += [f"  to {dest}: {counted(files, 'file')}, {format_bytes(size)}"
              for dest, files, size in sorted(_tally(moves, "destination"))]  # fmt: skip
    return lines


def forecast_lines(report: MoverReport, *, tty: bool) -> list[str]:
    """The forecast on stdout: on a terminal a capped table then the totals with the
    time forecast; elsewhere the totals then per reason and per slow branch. Files
    that fit on no slow branch are listed in both (capped)."""
    lines: list[str] = []
    if tty and report.planned:
        lines += _table(report.planned, TABLE_ROWS)
    for u in report.unplaced[:UNPLACED_ROWS]:
        why = u.error or "no branch has room for it"
        lines.append(f"no slow branch for {u.file.rel} ({format_bytes(u.file.size)}): {why}")
    if len(report.unplaced) > UNPLACED_ROWS:
        lines.append(f"... and {len(report.unplaced) - UNPLACED_ROWS} more with no slow branch")
    if report.unplaced:
        what = "nothing can move" if not report.planned else (
            f"{counted(len(report.unplaced), 'selected file')} cannot move")  # fmt: skip
        lines.append(f"{what}: {report.unplaced_reason}")
    total = sum(m.file.size for m in report.planned)
    lines.append(f"forecast: {counted(len(report.planned), 'file')}, {format_bytes(total)}, "
                 f"{duration_text(report.forecast_seconds)} ({report.forecast_note})")  # fmt: skip
    if not tty:
        lines += _summary(report.planned)
    return lines


def result_lines(report: MoverReport) -> list[str]:
    """What a run did beyond the forecast: recoveries, skips (each one: they are what a
    person must look at), then the one-line message."""
    lines = [f"recovered {r.rel}: {r.action}{f' ({r.detail})' if r.detail else ''}"
             for r in report.recovered]  # fmt: skip
    lines += [f"skipped {o.move.file.rel}: {o.skip}{f' ({o.detail})' if o.detail else ''}"
              for o in report.skipped]  # fmt: skip
    lines.append(report.message)
    return lines
