"""The compare view's comparability panel, and the notes under its charts.

The panel lists the runs in full (the table's headers cut their names), then every
parameter that differs as ``key`` followed by each run's value, then what makes a
run's figures suspect (a cache warning, buffered I/O, clones that shared a file) and
the jobs matched by position. Targets that differ are the point of most comparisons:
they are listed dim, as information. Nothing differs: "comparable" in green.

A list, not a table: at 80 columns eight runs' mount options would be a column of
broken words; here each value keeps a line of its own when the values do not fit one.
The words and the suspect-run notes are app.compare_render's, as in the CLI.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ...app.compare.render import COMPARABLE, noise_legend, note_lines, run_label
from ...core.bench_models import RunResult
from ...core.compare.comparison import Comparison, Difference
from ..detail_pane import plain_row

INDENT = "  "


def runs_text(comparison: Comparison) -> Text:
    """Each run in full: label, target, and whether it is the baseline or imported."""
    out = Text()
    for index, run in enumerate(comparison.runs):
        if index:
            out.append("\n")
        out.append(run_label(run), style="bold")
        if index == comparison.baseline:
            out.append(" (baseline)", style="bold cyan")
        if run.imported is not None:
            out.append(" (imported)", style="dim")
        out.append(f"\n{INDENT}{_where(run)}", style="dim")
    return out


def _where(run: RunResult) -> str:
    where = run.target.label
    return where if run.target.path in where else f"{where} ({run.target.path})"


def _difference(difference: Difference, runs: tuple[RunResult, ...], width: int) -> RenderableType:
    style = "dim" if difference.kind.informational else ""
    title = Text(difference.key, style=style or "yellow")
    if difference.kind.informational:
        title.append("  (information: what was compared)", style="dim")
    values = [(f"#{run.id}", value) for run, value in zip(runs, difference.shown(), strict=True)]
    one_line = INDENT + "  ".join(f"{ref} {value}" for ref, value in values)
    if len(one_line) <= width:
        return Group(title, Text(one_line, style=style))
    # a value per line, wrapped under itself: long mount options stay readable
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True, style="bold")
    grid.add_column(overflow="fold", style=style)
    for ref, value in values:
        plain_row(grid, INDENT + ref, value)
    return Group(title, grid)


def panel_renderable(comparison: Comparison, width: int) -> RenderableType:
    """The comparability panel at ``width`` columns."""
    parts: list[RenderableType] = [Text("Runs", style="bold"), runs_text(comparison), Text("")]
    differs = [d for d in comparison.differences if not d.kind.informational]
    informational = [d for d in comparison.differences if d.kind.informational]
    if differs:
        parts.append(Text("What differs", style="bold"))
        parts += [_difference(d, comparison.runs, width) for d in differs]
        parts.append(Text(""))
    notes = note_lines(comparison)
    if notes:
        parts.append(Text("Mind", style="bold"))
        parts += [Text(note, style="red") for note in notes]
        parts.append(Text(""))
    if comparison.comparable:
        parts.append(Text(COMPARABLE + (" (targets aside)" if informational else ""), "green"))
        parts.append(Text(""))
    parts += [_difference(d, comparison.runs, width) for d in informational]
    return Group(*parts)


def baseline_line(comparison: Comparison) -> Text:
    """Under the table: the baseline, how to read the deltas, whether to look at 2."""
    out = Text("baseline ", style="dim")
    out.append(run_label(comparison.runs[comparison.baseline]), style="bold cyan")
    out.append(f" · {noise_legend(comparison, short=True)} · ", style="dim")
    if comparison.comparable:
        out.append("comparable", style="green")
        return out
    differs = sum(not d.kind.informational for d in comparison.differences)
    suspect = sum(n.any for n in comparison.notes)
    parts = [f"{differs} differ" if differs else "", f"{suspect} to mind" if suspect else ""]
    out.append("2: " + ", ".join(p for p in parts if p), style="yellow")
    return out


def chart_note(comparison: Comparison) -> Text:
    """Which runs the charts cannot draw: imported ones have no per-second series."""
    without = [run for run in comparison.runs if not run.series]
    if not without:
        return Text("")
    if len(without) == len(comparison.runs):
        why = "they were imported" if all(r.imported for r in without) else "none was stored"
        return Text(
            f"No per-second series to draw: {why}, with fio's totals only (1: the table).",
            style="dim",
        )
    names = ", ".join(
        run_label(run) + (" (imported)" if run.imported is not None else "") for run in without
    )
    return Text(f"no per-second series, not drawn: {names}", style="dim")
