"""The layer-penalty ladder as one table: a row per rung (branch, pool, tmpfs, nullrw,
option), where fio ran, its bandwidth, IOPS and mean latency, and the % the layer costs
against the rung it adds to (``core/ladder/model.COMPARED_TO``: the pool against the branch
its create policy writes to, tmpfs against nullrw). A skipped rung says why under its row; the rung running
now is marked, and the rungs still to come are counted. The diagnosis line goes under
the table. Plain Rich renderables in a Static: a ladder has a handful of rows.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from ...core.compare.noise import Metric
from ...core.ladder.model import Rung, noise_band, reference_of
from ...core.sweep.model import metric_value
from ...core.units import fmt_count

HEADERS = ("rung", "path", "MiB/s", "IOPS", "lat ms", "penalty")
NOTABLE_PCT = 10.0  # a layer costing less than this is within run-to-run noise


def _figure(rung: Rung, metric: Metric) -> float | None:
    return metric_value(rung.summary, metric) if rung.skipped is None else None


def penalty_text(rung: Rung, rungs: Sequence[Rung]) -> Text:
    """``70 % vs branch``: what this layer loses against the one below (negative:
    faster), dim when the two rungs' own spread covers it; blank for a rung measured
    against nothing."""
    reference = reference_of(rung, rungs)
    if rung.penalty_pct is None or reference is None:
        return Text("")
    pct = rung.penalty_pct
    style = "bold red" if pct >= NOTABLE_PCT else "green" if pct <= -NOTABLE_PCT / 2 else ""
    if abs(pct) <= noise_band(rung, reference):
        style = "dim"  # inside the two runs' own second-by-second spread: noise
    return Text(f"{pct:.0f} % vs {reference.label}", style=style, justify="right")


def rung_cells(rung: Rung, rungs: Sequence[Rung]) -> list[RenderableType]:
    label = Text(rung.label, style="bold")
    path = Text(rung.path, overflow="ellipsis", no_wrap=True)  # the reason may wrap, not this
    if rung.skipped is not None:
        return [label, path, Text("skipped", style="yellow"), "", "", ""]
    bw = _figure(rung, Metric.BW)
    iops = _figure(rung, Metric.IOPS)
    lat = _figure(rung, Metric.LAT_MEAN)
    return [
        label,
        path,
        Text("—" if bw is None else f"{bw / 1024**2:,.1f}", style="bold", justify="right"),
        Text("—" if iops is None else fmt_count(iops), justify="right"),
        Text("—" if lat is None else f"{lat / 1e6:.3g}", justify="right"),
        penalty_text(rung, rungs),
    ]


def ladder_renderable(
    rungs: Sequence[Rung],
    *,
    running: tuple[str, str] | None = None,
    still_to_run: int = 0,
    diagnosis: str | None = None,
    job: str | None = None,
) -> RenderableType:
    """The table (rungs with penalties filled: ``core.ladder.with_penalties``), the rung
    running now (its label, path), how many come after it, the diagnosis and what job
    every rung ran (O_DIRECT or buffered, and why)."""
    return _Ladder(tuple(rungs), running, still_to_run, diagnosis, job)


class _Ladder:
    """Laid out for the width it gets: the figures keep theirs, the path column takes
    the rest (cut with an ellipsis), and a skipped rung's reason wraps under its path."""

    def __init__(
        self,
        rungs: tuple[Rung, ...],
        running: tuple[str, str] | None,
        still_to_run: int,
        diagnosis: str | None,
        job: str | None = None,
    ) -> None:
        self.rungs = rungs
        self.running = running
        self.still_to_run = still_to_run
        self.diagnosis = diagnosis
        self.job = job

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        rows = [rung_cells(r, self.rungs) for r in self.rungs]
        labels = [r.label for r in self.rungs] + ([self.running[0]] if self.running else [])
        widths = {
            "rung": max([4, *(len(label) for label in labels)]),
            "MiB/s": 9,
            "IOPS": 6,
            "lat ms": 6,
            "penalty": max([7, *(len(_plain(row[5])) for row in rows)]),
        }
        # A column's width includes its padding: one space on the right.
        path_width = max(8, options.max_width - sum(widths.values()) - len(widths))
        table = Table(box=None, padding=(0, 1, 0, 0), show_edge=False, header_style="dim")
        for header in HEADERS:
            width = path_width if header == "path" else widths[header] + 1
            left = header in ("rung", "path")
            table.add_column(
                header, width=width, justify="left" if left else "right", no_wrap=header != "path"
            )
        for rung, row in zip(self.rungs, rows, strict=True):
            table.add_row(*row)
            if rung.skipped is not None:
                table.add_row("", Text(f"↳ {rung.skipped}", style="yellow", overflow="fold"))
        if self.running is not None:
            label, path = self.running
            table.add_row(
                Text(label, style="bold cyan"),
                Text(path, no_wrap=True, overflow="ellipsis"),
                Text("▶ …", style="bold reverse cyan", justify="right"),
            )
        yield table
        if self.still_to_run:
            more = f"{self.still_to_run} more rung{'s' if self.still_to_run != 1 else ''} to run"
            yield Text(more, style="dim")
        if self.diagnosis:
            yield Text.assemble(("Diagnosis: ", "bold"), self.diagnosis)
        if self.job:
            yield Text.assemble(("Job: ", "bold"), self.job, style="dim")


def _plain(cell: RenderableType) -> str:
    return cell.plain if isinstance(cell, Text) else str(cell)


class LadderTable(Static):
    """The ladder's table; :meth:`show` draws it again (a rung started or finished)."""

    DEFAULT_CSS = """
    LadderTable { height: auto; }
    """

    def show(
        self,
        rungs: Sequence[Rung],
        *,
        running: tuple[str, str] | None = None,
        still_to_run: int = 0,
        diagnosis: str | None = None,
        job: str | None = None,
    ) -> None:
        self.rungs = tuple(rungs)
        self.update(
            ladder_renderable(
                rungs, running=running, still_to_run=still_to_run, diagnosis=diagnosis, job=job
            )
        )
