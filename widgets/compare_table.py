"""The compare view's table: one column per run, one row group per job.

A row group opens with the job's name; when a run's job sits there by position (the
names differ), that run's cell says so with its own job name. Under it, per direction,
bandwidth, IOPS, mean and p99 latency: each cell the value and its % delta against the
baseline, coloured by meaning (``app.compare_render.rich_cell``: green better, red
worse, dim "≈" within noise, plain when the noise is unknown).

The label column stays put while the run columns scroll sideways (DataTable's fixed
column), so eight runs read at 80 columns, three or so at a time. The cell cursor
moves between runs; ``run_under_cursor`` says which run the user points at.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable

from ..app.compare_render import METRIC_LABEL, rich_cell, run_label
from ..core.compare import Comparison, JobRow, Match

LABEL_WIDTH = 17  # "  write lat mean" and a job name of 17; longer names are cut
RUN_WIDTH = 17  # "12,345.6 ≈ +12.3%": a value and its delta


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def column_label(comparison: Comparison, index: int) -> Text:
    """Two header lines: the run, then "baseline" or what it is measured against."""
    run = comparison.runs[index]
    label = Text(_cut(run_label(run), RUN_WIDTH), style="bold", justify="right")
    if index == comparison.baseline:
        label.append("\nbaseline", style="bold cyan")
    else:
        label.append("\n% vs #" + str(comparison.runs[comparison.baseline].id), style="dim")
    return label


def _job_cells(row: JobRow) -> list[Text]:
    """The row group's first row: per run, nothing when its job has the row's name,
    "by position" and its own job's name when not, "no such job" when it has none."""
    cells = []
    for name, match in zip(row.names, row.matched_by, strict=True):
        if name is None:
            cells.append(Text("no such job", style="dim", justify="right"))
        elif match is Match.POSITION:
            text = "by position:\n" + _cut(name, RUN_WIDTH)
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

    def show(self, comparison: Comparison) -> None:
        """Fill the table; the cursor stays where it was (the same run and row)."""
        cursor = self.cursor_coordinate
        first = self.comparison
        self.comparison = comparison
        self.clear(columns=True)
        self.add_column(Text("job / metric", style="bold"), width=LABEL_WIDTH, key="label")
        for index, run in enumerate(comparison.runs):
            self.add_column(column_label(comparison, index), width=RUN_WIDTH, key=str(run.id))
        for number, row in enumerate(comparison.rows):
            title = Text(_cut(row.name, LABEL_WIDTH), style="bold underline")
            height = 2 if Match.POSITION in row.matched_by else 1
            self.add_row(title, *_job_cells(row), height=height, key=f"job-{number}")
            for direction in row.directions:
                for metric_row in direction.metrics:
                    label = Text(f"  {direction.direction} {METRIC_LABEL[metric_row.metric]}")
                    cells = []
                    for cell in metric_row.cells:
                        text = rich_cell(metric_row.metric, cell)
                        text.justify = "right"
                        cells.append(text)
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
