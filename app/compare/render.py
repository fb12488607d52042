"""A Comparison (core/compare/comparison.py) as JSON, Markdown, CSV and a rich table.

One module for every way a comparison leaves tierdeck: ``tierdeck compare``, the
history export and the TUI's compare view share these renderers and the cell helpers
(``format_value``, ``format_delta``, ``VERDICT_STYLE``), so a figure reads the same
everywhere. Units are tierdeck's (core/units.py): bandwidth in MiB/s, IOPS as counts,
latencies in ns/µs/ms; JSON and CSV keep fio's raw units (bytes/s, ns) for scripts.

The JSON shape, ``tierdeck.compare/1``, is documented in docs/compare-json.md; keys are
added, never renamed.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ...core.bench_models import RunResult, RunStatus, TargetKind
from ...core.compare.comparison import Cell, Comparison, Match, Metric, Verdict
from ...core.units import fmt_mib, fmt_ns
from ..history.run_json import host_to_dict

if TYPE_CHECKING:
    from rich.console import RenderableType
    from rich.text import Text

SCHEMA = "tierdeck.compare/1"

METRIC_LABEL = {
    Metric.BW: "MiB/s",
    Metric.IOPS: "IOPS",
    Metric.LAT_MEAN: "lat mean",
    Metric.LAT_P99: "lat p99",
}

# rich styles by meaning; NOISE reads as "about the same", UNKNOWN is left plain
VERDICT_STYLE = {
    Verdict.BETTER: "green",
    Verdict.WORSE: "red",
    Verdict.NOISE: "dim",
    Verdict.SAME: "dim",
    Verdict.UNKNOWN: "",
    Verdict.BASELINE: "bold",
    Verdict.MISSING: "dim",
}
NOISE_MARK = "≈"
UNKNOWN_MARK = "?"  # a delta whose noise is unknown: no verdict, and it says so
COMPARABLE = "comparable: no parameter differs and no run carries a warning"


# --------------------------------------------------------------------- cells


def format_value(metric: Metric, value: float | None) -> str:
    """``1,240.3`` (MiB/s), ``12,345`` (IOPS), ``4.5 ms``; ``-`` when unknown."""
    if value is None:
        return "-"
    if metric is Metric.BW:
        return fmt_mib(value)
    if metric is Metric.IOPS:
        return f"{value:,.0f}"
    return fmt_ns(value)


def format_figure(metric: Metric, value: float | None) -> str:
    """A table's figure with its unit, for a line of text: ``1,240.3 MiB/s``,
    ``12,345 IOPS``, ``4.5 ms`` (a chart's legend says the table's figure so)."""
    unit = {Metric.BW: " MiB/s", Metric.IOPS: " IOPS"}.get(metric, "")
    return format_value(metric, value) + ("" if value is None else unit)


def format_delta(cell: Cell) -> str:
    """``+12.1%``; ``≈ +2.0%`` within noise, ``? +2.0%`` when the noise is unknown;
    empty on the baseline or without a delta."""
    if cell.delta_pct is None:
        return ""
    text = f"{cell.delta_pct:+.1f}%"
    mark = {Verdict.NOISE: NOISE_MARK, Verdict.UNKNOWN: UNKNOWN_MARK}.get(cell.verdict)
    return f"{mark} {text}" if mark else text


def noise_legend(comparison: Comparison, *, short: bool = False) -> str:
    """How to read the marks of the deltas shown: "≈: within the runs' own noise", and
    why a "?" delta has no verdict (an imported run has no per-second series; a short
    run too few full seconds). ``short``: the TUI's line under the table."""
    parts = [f"{NOISE_MARK} within noise" if short else f"{NOISE_MARK}: within the runs' own noise"]
    if any(c.verdict is Verdict.UNKNOWN for *_, cells in _rows(comparison) for c in cells):
        imported = any(run.imported is not None and not run.series for run in comparison.runs)
        why = "imported" if imported else "too few full seconds"
        parts.append(f"{UNKNOWN_MARK}{' ' if short else ': '}noise unknown ({why})")
    return (" · " if short else "; ").join(parts)


def run_label(run: RunResult) -> str:
    return f"#{run.id} {run.name}"


def distinct_label(runs: Sequence[RunResult], index: int, width: int) -> str:
    """``runs[index]``'s label in ``width`` characters that still tells it from the
    others: the whole "#id name" when it fits, else the id and the words of its name
    that differ from the other runs' ("#12 …numjobs=4…"), cut at the end if need be."""
    run = runs[index]
    full = run_label(run)
    if len(full) <= width:
        return full
    words = run.name.split()
    others = [r.name.split() for r in runs if r is not run]
    # the words it shares with the run most like it, at either end, tell nothing apart
    head = max((_common(words, o) for o in others), default=0)
    rest = words[head:][::-1]
    tail = max((_common(rest, o[::-1]) for o in others), default=0)
    middle = words[head : len(words) - tail]
    if not middle or not others:
        return cut(full, width)
    text = f"#{run.id} " + ("…" if head else "") + " ".join(middle) + ("…" if tail else "")
    return cut(text, width)


def _common(words: list[str], other: list[str]) -> int:
    """How many leading words ``words`` shares with ``other``."""
    n = 0
    while n < min(len(words), len(other)) and other[n] == words[n]:
        n += 1
    return n


def cut(text: str, width: int) -> str:
    """``text`` in ``width`` characters, "…" where it was cut."""
    return text if len(text) <= width else text[: max(0, width - 1)].rstrip() + "…"


def _baseline_note(comparison: Comparison) -> str:
    return f"baseline: {run_label(comparison.runs[comparison.baseline])}"


def _rows(comparison: Comparison) -> list[tuple[str, str, Metric, tuple[Cell, ...]]]:
    """(job, direction, metric, cells) in display order."""
    out = []
    for row in comparison.rows:
        for direction in row.directions:
            for metric_row in direction.metrics:
                out.append((row.name, direction.direction, metric_row.metric, metric_row.cells))
    return out


def note_lines(comparison: Comparison) -> list[str]:
    """One line per run whose figures are suspect, per position-matched job row."""
    lines = []
    for run, notes in zip(comparison.runs, comparison.notes, strict=True):
        for warning in notes.inflating:
            lines.append(f"{run_label(run)}: {warning.kind}: {warning.text}")
        if notes.clones_shared_file:
            lines.append(f"{run_label(run)}: stored before 0.2, its clones shared one test file")
        if notes.unknown_options:
            unknown = ", ".join(notes.unknown_options)
            lines.append(f"{run_label(run)}: its file does not state {unknown}: not compared")
    for row in comparison.rows:
        if Match.POSITION in row.matched_by:
            names = " / ".join(n or "-" for n in row.names)
            lines.append(f"job {row.name}: matched by position ({names})")
    return lines


# --------------------------------------------------------------------- JSON


def _cell_json(cell: Cell) -> dict[str, Any]:
    noise = None if cell.noise_pct is None else cell.verdict is Verdict.NOISE
    return {
        "value": cell.value,
        "delta_pct": cell.delta_pct,
        "spread_pct": cell.spread_pct,
        "noise_pct": cell.noise_pct,
        "within_noise": noise,
        "verdict": cell.verdict.value,
    }


def _run_json(run: RunResult, comparison: Comparison, index: int) -> dict[str, Any]:
    target = run.target
    notes = comparison.notes[index]
    return {
        "id": run.id,
        "name": run.name,
        "started_at": run.started_at,
        "target": {
            "path": target.path,
            "kind": TargetKind(target.kind).value,
            "label": target.label,
        },
        "preset": run.preset,
        "status": RunStatus(run.status).value,
        "host": host_to_dict(run.host),
        "origin": run.origin.value,
        "baseline": index == comparison.baseline,
        "warnings": [{"kind": w.kind.value, "text": w.text} for w in run.warnings],
        "inflated": bool(notes.inflating),
        "clones_shared_file": notes.clones_shared_file,
        "unknown_options": list(notes.unknown_options),
    }


def to_json(comparison: Comparison) -> dict[str, Any]:
    """The ``tierdeck.compare/1`` object (docs/compare-json.md)."""
    return {
        "schema": SCHEMA,
        "baseline": comparison.runs[comparison.baseline].id,
        "comparable": comparison.comparable,
        "runs": [_run_json(r, comparison, i) for i, r in enumerate(comparison.runs)],
        "jobs": [
            {
                "name": row.name,
                "names": list(row.names),
                "matched_by": [None if m is None else m.value for m in row.matched_by],
                "directions": {
                    d.direction: {
                        m.metric.value: [_cell_json(c) for c in m.cells] for m in d.metrics
                    }
                    for d in row.directions
                },
            }
            for row in comparison.rows
        ],
        "differences": [
            {
                "key": d.key,
                "values": list(d.values),
                "kind": d.kind.value,
                "unknown": list(d.unknown or (False,) * len(d.values)),
            }
            for d in comparison.differences
        ],
    }


# --------------------------------------------------------------------- Markdown


_MD_SPECIAL = str.maketrans(
    {c: "\\" + c for c in "\\`*_[]|"} | {"<": "&lt;", ">": "&gt;", "&": "&amp;"}
)


def md_escape(text: str) -> str:
    """Text safe in a GitHub Markdown table cell or list item: its characters as
    written (Markdown's specials escaped), on one line."""
    return " ".join(text.splitlines()).translate(_MD_SPECIAL)


def _md_cell(metric: Metric, cell: Cell) -> str:
    value = format_value(metric, cell.value)
    delta = format_delta(cell)
    return f"{value} ({delta})" if delta else value


def to_markdown(comparison: Comparison) -> str:
    """GitHub-flavoured Markdown: the table, then what differs and what to mind."""
    runs = comparison.runs
    header = ["job", "dir", "metric", *(md_escape(run_label(r)) for r in runs)]
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join(["---"] * 3 + ["---:"] * len(runs)) + "|",
    ]
    for job, direction, metric, cells in _rows(comparison):
        values = [_md_cell(metric, c) for c in cells]
        lines.append(
            "| " + " | ".join([md_escape(job), direction, METRIC_LABEL[metric], *values]) + " |"
        )
    lines += ["", f"{_baseline_note(comparison)}; {noise_legend(comparison)}", ""]
    if comparison.comparable:
        lines.append(COMPARABLE)
    else:
        lines += [
            f"- `{d.key}`: " + " / ".join(md_escape(v) for v in d.shown())
            for d in comparison.differences
        ]
        lines += [f"- {md_escape(n)}" for n in note_lines(comparison)]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------- CSV

CSV_FIELDS = (
    "run_id",
    "run_name",
    "baseline",
    "job",
    "run_job",
    "matched_by",
    "direction",
    *(f"{m.value}{suffix}" for m in Metric for suffix in ("", "_delta_pct", "_verdict")),
)


def to_csv(comparison: Comparison) -> str:
    """One row per run, job and direction; raw units (bytes/s, IOPS, ns)."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    for row in comparison.rows:
        for d in row.directions:
            for index, run in enumerate(comparison.runs):
                if row.names[index] is None:
                    continue  # this run has no job in the row
                record: dict[str, Any] = {
                    "run_id": run.id,
                    "run_name": run.name,
                    "baseline": int(index == comparison.baseline),
                    "job": row.name,
                    "run_job": row.names[index],
                    "matched_by": (m.value if (m := row.matched_by[index]) else ""),
                    "direction": d.direction,
                }
                for metric_row in d.metrics:
                    cell = metric_row.cells[index]
                    key = metric_row.metric.value
                    record[key] = "" if cell.value is None else cell.value
                    record[f"{key}_delta_pct"] = "" if cell.delta_pct is None else cell.delta_pct
                    record[f"{key}_verdict"] = cell.verdict.value
                writer.writerow(record)
    return out.getvalue()


# --------------------------------------------------------------------- rich
# rich is imported by the functions that draw with it: `compare --format json`, markdown
# and csv should not pay for it at every start (bench/history.py).


def rich_cell(metric: Metric, cell: Cell) -> Text:
    """A value, then its delta coloured by meaning (the CLI table and the TUI)."""
    from rich.text import Text

    text = Text(
        format_value(metric, cell.value), style="bold" if cell.verdict is Verdict.BASELINE else ""
    )
    delta = format_delta(cell)
    if delta:
        text.append(" ")
        text.append(delta, style=VERDICT_STYLE[cell.verdict])
    return text


def to_rich(comparison: Comparison) -> RenderableType:
    """The terminal table, deltas coloured by meaning (green better, red worse, dim
    "≈" within noise), followed by what differs between the runs."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
    table.add_column("job")
    table.add_column("dir")
    table.add_column("metric")
    for index, run in enumerate(comparison.runs):
        mark = " (baseline)" if index == comparison.baseline else ""
        table.add_column(run_label(run) + mark, justify="right")
    for number, row in enumerate(comparison.rows):
        if number:
            table.add_section()
        for d in row.directions:
            for m in d.metrics:
                first_of_job = d is row.directions[0] and m is d.metrics[0]
                table.add_row(
                    row.name if first_of_job else "",
                    d.direction if m is d.metrics[0] else "",
                    METRIC_LABEL[m.metric],
                    *(rich_cell(m.metric, c) for c in m.cells),
                )
    note = f"{_baseline_note(comparison)}; {noise_legend(comparison)}"
    parts: list[RenderableType] = [table, Text(""), Text(note, style="dim")]
    parts += differences_rich(comparison)
    return Group(*parts)


def differences_rich(comparison: Comparison) -> Sequence[RenderableType]:
    """The comparability panel as rich renderables (the TUI shows the same)."""
    from rich.table import Table
    from rich.text import Text

    if comparison.comparable and not comparison.differences:
        return [Text(COMPARABLE, style="green")]
    out: list[RenderableType] = []
    if comparison.differences:
        table = Table(box=None, pad_edge=False, show_edge=False, title_justify="left")
        table.add_column("differs", style="yellow")
        for run in comparison.runs:
            table.add_column(f"#{run.id}")
        for d in comparison.differences:
            style = "dim" if d.kind.informational else ""
            table.add_row(
                Text(d.key, style=style or "yellow"),
                *(Text(v, style=style) for v in d.shown()),
            )
        out += [Text(""), table]
    notes = note_lines(comparison)
    if notes:
        out += [Text(""), *(Text(n, style="red") for n in notes)]
    if comparison.comparable:
        out += [Text(""), Text(COMPARABLE + " (targets aside)", style="green")]
    return out
