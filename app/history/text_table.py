"""Plain aligned text tables, as the CLI prints them: two spaces between columns,
numbers right-aligned, greppable in a pipe and fitted to a terminal's width when asked."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

ELLIPSIS = "…"


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
