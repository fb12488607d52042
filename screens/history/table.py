"""The history list's table: its columns for the terminal's width and the view (ok
runs, or failed and cancelled ones with why), its rows, the legend of the marks shown,
and the highlighted run in full under it. Mixed into ``HistoryScreen``, which loads the
runs and keeps the selection.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group
from rich.text import Text
from textual.widgets import DataTable, Static

from ...core.bench_models import RunResult
from ...widgets.bench.run_view import (
    CACHE_MARK,
    IMPORTED_MARK,
    IMPORTED_SHORT,
    OLD_LAYOUT_MARK,
    OLD_LAYOUT_SHORT,
    ClippedLines,
    error_lines,
    list_rate_cells,
    name_cell,
    status_text,
)
from .marks import MARK_COLUMN, mark_cell
from .run_editing import when

if TYPE_CHECKING:
    from textual.screen import Screen

    from ...app.compare.marks import CompareMarks

    _Base = Screen[None]
else:
    _Base = object

WIDE = 100  # from this width on, the list has a target column


def cut_left(text: str, width: int) -> str:
    """Keep the end of a path, where the interesting part is: "…/pool/slow"."""
    return text if len(text) <= width else "…" + text[-(width - 1) :]


def plain_cell(text: str) -> Text:
    """``text`` as DataTable shows a str in a row one line high, without reading it as
    markup."""
    return Text(text, no_wrap=True, end="")


def _meanings(run: RunResult) -> list[str]:
    """Each mark ``run`` carries, with what it means."""
    out = []
    if run.inflated:
        out.append(f"{CACHE_MARK} the page cache may have inflated the figures")
    if run.clones_shared_file:
        out.append(f"{OLD_LAYOUT_MARK} {OLD_LAYOUT_SHORT} (stored before 0.2): figures too low")
    if run.imported:
        out.append(f"{IMPORTED_MARK} {IMPORTED_SHORT}")
    return out


def legend(runs: list[RunResult]) -> Text:
    """What the marks in this listing mean, as a key to the list ("marks:" first, apart
    from the highlighted run, so that it reads as no statement about it); empty when
    there are none."""
    parts = list(dict.fromkeys(m for run in runs for m in _meanings(run)))
    if not parts:
        return Text("", style="dim")
    return Text.assemble(("marks: ", "bold dim"), (" · ".join(parts), "dim"))


def run_marks(run: RunResult) -> Text:
    """The highlighted run's own marks in words, under its name."""
    return Text(" · ".join(_meanings(run)), style="yellow")


class HistoryTable(_Base):
    """Mixed into the history screen (first in its bases)."""

    runs: list[RunResult]
    show_failed: bool
    several_hosts: bool
    marks: CompareMarks
    select_id: int | None
    more: bool
    _filters: tuple[str | None, str | None]
    _short_dates: bool
    _target_width: int
    _room: int

    if TYPE_CHECKING:

        @property
        def selected_id(self) -> int | None: ...

        @property
        def selected_run(self) -> RunResult | None: ...

    def _fill_table(self) -> None:
        table: DataTable[Text | str] = self.query_one("#history-table", DataTable)
        keep = self.select_id if self.select_id is not None else self.selected_id
        table.clear(columns=True)
        room = self._room = self.table_room()
        self._short_dates = room < 110
        date_w = 11 if self._short_dates else 16
        # The highlighted run's target is written out under the table: at 80 columns
        # its name is worth more than "…s/pool/slow".
        columns = 6 if room >= WIDE else 5
        last = ("status", 11) if self.show_failed else ("read", 11)
        fixed = 1 + 4 + date_w + last[1] + 11 + (columns + 1) * 2
        # The host column takes its room from the name (the line under the table names
        # the highlighted run in full), never from the table's narrowest width.
        host_w = self._host_width(room) if self.several_hosts else 0
        host_cost = host_w + 2 if host_w else 0
        flexible = max(24 - host_cost, room - fixed - host_cost)
        self._target_width = flexible * 2 // 5 if room >= WIDE else 0
        if self.show_failed:  # the reason gets the larger share: it is why one looks
            name_w = (flexible - self._target_width) // 2
        else:
            name_w = flexible - self._target_width
        # Labels and cells are Text: DataTable reads a str as markup, whose first parse
        # imports rich's emoji table (~3 ms of the first listing), and parses each cell.
        table.add_column(Text(""), width=1, key=MARK_COLUMN)
        table.add_column(Text("#"), width=4, key="id")
        table.add_column(Text("when"), width=date_w, key="when")
        if host_w:
            table.add_column(Text("host"), width=host_w, key="host")
        table.add_column(Text("name"), width=name_w, key="name")
        if self._target_width:
            table.add_column(Text("target"), width=self._target_width, key="target")
        if self.show_failed:
            table.add_column(Text("status"), width=11, key="status")
            why_w = flexible - self._target_width - name_w + 11
            table.add_column(Text("why"), width=why_w, key="why")
        else:
            table.add_column(Text("read MiB/s", justify="right"), width=11, key="read")
            table.add_column(Text("write MiB/s", justify="right"), width=11, key="write")
        for run in self.runs:
            table.add_row(*self._row(run), key=str(run.id))
        empty = self.query_one("#history-empty", Static)
        if not self.runs:
            what = "failed or cancelled runs" if self.show_failed else "runs that finished ok"
            empty.update(Text(f"No {what} stored yet" + self._filter_note() + ".", style="dim"))
        else:
            empty.update("")
        empty.display = not self.runs
        if keep is not None:
            try:
                table.move_cursor(row=table.get_row_index(str(keep)))
            except Exception:  # noqa: BLE001 - the row is gone (deleted, filtered out)
                pass
        self.select_id = None
        marks = legend(self.runs)
        if self.more:
            marks.append(
                f"{' · ' if marks.plain else ''}the newest {len(self.runs)} runs; "
                "the last row loads more",
                style="dim",
            )
        box = self.query_one("#history-legend", Static)
        box.update(marks)
        box.display = bool(marks.plain)
        self._draw_current()

    def _host_width(self, room: int) -> int:
        """The listed hosts' names, cut at 8 columns on a narrow terminal (16 wide)."""
        longest = max((len(run.host.name) for run in self.runs), default=0)
        return max(4, min(longest, 16 if room >= WIDE else 8))

    def table_room(self) -> int:
        """The columns the table's cells may fill: each column costs its width plus 2 of
        cell padding; 1 more for the scrollbar. Before the first layout (the first page
        is listed as the screen mounts) the table spans the screen (common.tcss)."""
        table: DataTable[Text | str] = self.query_one("#history-table", DataTable)
        return (table.size.width or self.size.width) - 1

    def _filter_note(self) -> str:
        target, preset = self._filters
        parts = [f"on {target}" if target else "", f"with preset {preset}" if preset else ""]
        text = " ".join(p for p in parts if p)
        return f" {text}" if text else ""

    def _row(self, run: RunResult) -> list[Text | str]:
        cells: list[Text | str] = [
            mark_cell(self.marks.order(run.id)),
            plain_cell(str(run.id)),
            plain_cell(when(run.started_at, short=self._short_dates)),
        ]
        if self.several_hosts:
            host = Text(run.host.name or "-", style="dim", no_wrap=True, end="")
            host.overflow = "ellipsis"  # a long hostname cut, as a name is
            cells.append(host)
        cells.append(name_cell(run))
        if self._target_width:
            cells.append(Text(cut_left(run.target.path, self._target_width), style="dim"))
        if self.show_failed:
            why = (run.error or "").strip().splitlines()
            cells += [status_text(run.status), Text(why[0] if why else "", style="dim")]
        else:
            cells += list_rate_cells(run)
        return cells

    def _draw_current(self) -> None:
        """The highlighted run, whole: what the columns had to cut."""
        box = self.query_one("#history-current", Static)
        run = self.selected_run
        if run is None:
            box.update("")
            box.display = False
            return
        line = Text(f"#{run.id} ", style="bold")
        line.append_text(name_cell(run))
        line.append(f" · {run.target.label}", style="dim")
        if run.target.path not in run.target.label:
            line.append(f" ({run.target.path})", style="dim")
        if self.several_hosts and run.host.name:
            line.append(f" on {run.host.name}", style="dim")
        parts: list[Text | ClippedLines] = [line]
        if (own := run_marks(run)).plain:
            parts.append(own)
        if run.error:
            parts.append(ClippedLines(error_lines(run.error), 4, "enter: all", wrap=False))
        box.update(Group(*parts))
        box.display = True
