"""The compare view's table: one column per run, one row group per job.

A row group opens with the job's name; when a run's job sits there by position (the
names differ), that run's cell says so with its own job name. Under it, per direction,
bandwidth, IOPS, mean and p99 latency: each cell the value and its % delta against the
baseline, coloured by meaning (``app.compare_render.rich_cell``: green better, red
worse, dim "≈" within noise, plain when the noise is unknown).

The label column stays put while the run columns scroll sideways (DataTable's fixed
column), so eight runs read at 80 columns, three or so at a time. A run column is as
wide as its widest cell (never cut), and the width left goes to the headers: a whole
"#id name" when it fits, else the id and the words of the name that differ. The cell cursor
moves between runs; ``run_under_cursor`` says which run the user points at.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable

from ...app.compare.render import METRIC_LABEL, cut, distinct_label, rich_cell, run_label
from ...core.compare.comparison import Comparison, JobRow, Match

LABEL_WIDTH = 17  # "  write lat mean" and a job name of 17; longer names are cut
RUN_WIDTH = 17  # at least: "12,345.6 ≈ +12.3%", a value and its delta
PADDING = 2  # DataTable's cell padding, one each side


def column_label(comparison: Comparison, index: int, width: int = RUN_WIDTH) -> Text:
    """Two header lines: the run (what tells it from the others, when its whole label
    does not fit), then "baseline" or what it is measured against."""
    label = Text(distinct_label(comparison.runs, index, width), style="bold", justify="right")
    if index == comparison.baseline:
        label.append("\nbaseline", style="bold cyan")
    else:
        label.append("\n% vs #" + str(comparison.runs[comparison.baseline].id), style="dim")
    return label


def _cells(comparison: Comparison) -> list[tuple[Text, list[Text]]]:
    """Each figure row: its label and a cell per run."""
    out = []
    for row in comparison.rows:
        for direction in row.directions:
            for metric_row in direction.metrics:
                label = Text(f"  {direction.direction} {METRIC_LABEL[metric_row.metric]}")
                cells = []
                for cell in metric_row.cells:
                    text = rich_cell(metric_row.metric, cell)
                    text.justify = "right"
                    cells.append(text)
                out.append((label, cells))
    return out


def column_widths(comparison: Comparison, room: int) -> list[int]:
    """Per run: its widest cell, never cut (a "%" lost reads as another figure); what
    is left of ``room`` goes to headers that want more, a fair share each (the
    narrowest wants first), so that a wide terminal shows whole names."""
    runs = comparison.runs
    rows = _cells(comparison)
    widths = [
        max([RUN_WIDTH, *(cells[index].cell_len for _, cells in rows)])
        for index in range(len(runs))
    ]
    spare = room - sum(w + PADDING for w in widths)
    wants = sorted(range(len(runs)), key=lambda i: len(run_label(runs[i])) - widths[i])
    for place, index in enumerate(wants):
        if spare <= 0:
            break
        more = min(len(run_label(runs[index])) - widths[index], spare // (len(runs) - place))
        if more > 0:
            widths[index] += more
            spare -= more
    return widths


def _job_cells(row: JobRow) -> list[Text]:
    """The row group's first row: per run, nothing when its job has the row's name,
    "by position" and its own job's name when not, "no such job" when it has none."""
    cells = []
    for name, match in zip(row.names, row.matched_by, strict=True):
        if name is None:
            cells.append(Text("no such job", style="dim", justify="right"))
        elif match is Match.POSITION:
            text = "by position:\n" + cut(name, RUN_WIDTH)
            cells.append(Text(text, style="yellow", justify="right"))
        else:
            cells.append(Text(""))
    return cells


class CompareTable(DataTable[Text]):
    """A Comparison as a table; :meth:`show` fills it (again, after a rebase)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(
            id=id, fixed_columns=1, header_height=2, cursor_type="cell", zebra_stripes=True
        )
        self.comparison: Comparison | None = None
        self._shown_width = 0

    def on_resize(self) -> None:
        # the columns share the width there is: wider or narrower, lay them out again
        if self.comparison is not None and self.size.width != self._shown_width:
            self.show(self.comparison)

    def show(self, comparison: Comparison) -> None:
        """Fill the table for its width; the cursor stays where it was (the same run
        and row)."""
        cursor = self.cursor_coordinate
        first = self.comparison
        self.comparison = comparison
        self.clear(columns=True)
        scrollbar = self.styles.scrollbar_size_vertical
        room = (self.size.width or self.app.size.width) - LABEL_WIDTH - PADDING - scrollbar
        self._shown_width = self.size.width
        self.add_column(Text("job / metric", style="bold"), width=LABEL_WIDTH, key="label")
        widths = column_widths(comparison, room)
        for index, run in enumerate(comparison.runs):
            label = column_label(comparison, index, widths[index])
            self.add_column(label, width=widths[index], key=str(run.id))
        rows = iter(_cells(comparison))
        for number, row in enumerate(comparison.rows):
            title = Text(cut(row.name, LABEL_WIDTH), style="bold underline")
            height = 2 if Match.POSITION in row.matched_by else 1
            self.add_row(title, *_job_cells(row), height=height, key=f"job-{number}")
            for _ in range(sum(len(d.metrics) for d in row.directions)):
                label, cells = next(rows)
                self.add_row(label, *cells)
        if self.row_count:
            # first shown: on the first figure, not on the job's name above it
            start = cursor.row if first is not None else 1
            self.move_cursor(
                row=min(start, self.row_count - 1),
                column=min(max(cursor.column, 1), len(comparison.runs)),
                animate=False,
            )

    @property
    def run_under_cursor(self) -> int | None:
        """The index of the run whose column the cursor is in (None: the labels)."""
        if self.comparison is None or self.cursor_column < 1:
            return None
        return self.cursor_column - 1
