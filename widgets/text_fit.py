"""Rich renderables that fit text to an 80-column terminal without losing what it says:
lines of a config file broken only between its fields, and a message cut to a few lines
with a mark where it was cut (a header of fixed height otherwise clips it silently)."""

from __future__ import annotations

import re

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text

# A piece ends after one separator: fstab's blank between fields, the comma between
# options, the colon between mergerfs branches.
_PIECE = re.compile(r"[^ ,:]*[ ,:]?")
CONTINUED = "  "  # a continuation line's indent: clearly not a line of its own


def break_at_separators(line: str, width: int) -> list[str]:
    """``line`` as rows of at most ``width`` columns, broken only after a blank, a comma
    or a colon (a piece wider than a row is cut, as nothing else can be done); rows
    after the first start with CONTINUED. The rows without that indent are ``line``."""
    width = max(width, len(CONTINUED) + 1)
    rows: list[str] = []
    row = ""
    for piece in _PIECE.findall(line):
        if not piece:
            continue
        room = width - (len(CONTINUED) if rows else 0)
        if row and len(row) + len(piece) > room:
            rows.append(row)
            row = ""
            room = width - len(CONTINUED)
        while len(piece) > room:  # one option longer than a row
            head = room - len(row)
            row += piece[:head]
            piece = piece[head:]
            rows.append(row)
            row = ""
            room = width - len(CONTINUED)
        row += piece
    rows.append(row)
    return [rows[0], *(CONTINUED + r for r in rows[1:])]


class SeparatedLines:
    """Lines of an fstab (or any list of separated fields), wrapped between fields."""

    def __init__(self, lines: tuple[str, ...] | list[str], style: str = "") -> None:
        self.lines = tuple(lines)
        self.style = style

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for line in self.lines:
            for row in break_at_separators(line, options.max_width):
                yield Text(row, style=self.style, no_wrap=True)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        longest = max((len(line) for line in self.lines), default=0)
        return Measurement(min(longest, len(CONTINUED) + 1), longest)


class AtMostLines:
    """``text`` wrapped to the width, at most ``count`` rows; the last row shown ends
    with "…" when there was more (the full text is somewhere else on the screen)."""

    def __init__(self, text: Text, count: int) -> None:
        self.text = text
        self.count = count

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = max(options.max_width, 2)
        rows = list(self.text.wrap(console, width))
        if len(rows) > self.count:
            rows = rows[: self.count]
            last = rows[-1]
            last.rstrip()
            last.truncate(width - 1)
            last.append("…")
        for row in rows:
            row.no_wrap = True
            yield row
