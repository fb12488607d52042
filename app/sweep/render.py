"""A sweep's result as text: the ``tierdeck.sweep-result/1`` object (docs/sweep-json.md),
the matrix table of ``bench sweep`` and its ``--dry-run`` list, and the Markdown / CSV of ``bench sweep-export``.

The matrix puts the first axis in rows and the second in columns; a third axis and
beyond give one block per combination of their values. A cell shows the bandwidth of
its busiest direction (the one that moved the most bytes) in MiB/s, ``failed`` /
``cancelled`` for a run that did not finish well, ``-`` for a cell not run yet. CSV is
one row per cell and direction with every figure, for spreadsheets. Pure text.
"""

from __future__ import annotations

import csv
import io
import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ...core.compare.noise import Metric
from ...core.sweep.model import (
    SWEEP_RESULT_SCHEMA,
    Axis,
    CellResult,
    SweepResult,
    fio_value,
    metric_value,
)
from ...core.units import fmt_mib
from ..history.run_json import DIRECTIONS, direction_json

if TYPE_CHECKING:
    from .run import SweepPlan

MIB = 1024 * 1024


def sweep_to_json(result: SweepResult, name: str, target: str | None) -> dict[str, Any]:
    return {
        "schema": SWEEP_RESULT_SCHEMA,
        "id": result.id,
        "name": name,
        "target": target,
        "axes": [{"name": a.name, "values": list(a.values)} for a in result.spec.axes],
        "cells": [
            {
                "axes": c.cell.as_dict,
                "run_id": c.run_id,
                "status": c.status,
                "summary": {d: direction_json(c.summary.get(d)) for d in DIRECTIONS},
            }
            for c in result.cells
        ],
    }


def cell_text(found: CellResult | None) -> str:
    if found is None or found.run_id is None:
        return "-"
    if found.status != "ok":
        return found.status or "-"
    return fmt_mib(metric_value(found.summary, Metric.BW))


def _blocks(result: SweepResult) -> list[tuple[str, list[list[str]]]]:
    """(heading, rows) per combination of the axes after the second; rows[0] is the
    header row."""
    axes = result.spec.axes
    by_key = {c.cell.values: c for c in result.cells}
    rows_axis = axes[0]
    cols_axis: Axis | None = axes[1] if len(axes) > 1 else None
    rest = axes[2:]
    blocks: list[tuple[str, list[list[str]]]] = []
    for fixed in itertools.product(*(a.values for a in rest)):
        fixed_pairs = tuple(zip((a.name for a in rest), fixed, strict=True))
        heading = " ".join(f"{n}={fio_value(v)}" for n, v in fixed_pairs)
        corner = rows_axis.name + (f" \\ {cols_axis.name}" if cols_axis else "")
        columns = [fio_value(v) for v in cols_axis.values] if cols_axis else ["MiB/s"]
        table = [[corner, *columns]]
        for row_value in rows_axis.values:
            line = [fio_value(row_value)]
            for col_value in cols_axis.values if cols_axis else (None,):
                values: tuple[tuple[str, Any], ...] = ((rows_axis.name, row_value),)
                if cols_axis is not None:
                    values += ((cols_axis.name, col_value),)
                line.append(cell_text(by_key.get(values + fixed_pairs)))
            table.append(line)
        blocks.append((heading, table))
    return blocks


def _aligned(table: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    return [
        "  ".join(
            cell.ljust(w) if i == 0 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()  # fmt: skip
        for row in table
    ]


def matrix_lines(result: SweepResult, name: str) -> list[str]:
    done = sum(1 for c in result.cells if c.status == "ok")
    lines = [
        f"sweep #{result.id}: {name}",
        f"{done} of {len(result.cells)} cells ok; MiB/s of the busiest direction",
    ]
    for heading, table in _blocks(result):
        lines.append("")
        if heading:
            lines.append(heading)
        lines += _aligned(table)
    return lines


def sweep_markdown(result: SweepResult, name: str) -> str:
    out = [f"# Sweep #{result.id}: {name}", "", "MiB/s of each cell's busiest direction."]
    for heading, table in _blocks(result):
        out.append("")
        if heading:
            out += [f"## {heading}", ""]
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in table[0]) + " |")
        out.append("|---" + "|---:" * (len(table[0]) - 1) + "|")
        out += ["| " + " | ".join(row) + " |" for row in table[1:]]
    return "\n".join(out) + "\n"


def sweep_csv(result: SweepResult) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    names = [a.name for a in result.spec.axes]
    writer.writerow([*names, "run_id", "status", "direction", "bw_mib_s", "iops",
                     "lat_mean_ms", "lat_p99_ms"])  # fmt: skip
    for c in result.cells:
        axes = [fio_value(v) for _, v in c.cell.values]
        directions = [d for d in DIRECTIONS if d in c.summary] or [""]
        for direction in directions:
            s = c.summary.get(direction)
            figures = ["", "", "", ""]
            if s is not None:
                figures = [
                    f"{s.bw_bytes / MIB:.1f}",
                    "" if s.iops is None else f"{s.iops:.0f}",
                    "" if s.lat_mean_ns is None else f"{s.lat_mean_ns / 1e6:.3f}",
                    "" if s.lat_p99_ns is None else f"{s.lat_p99_ns / 1e6:.3f}",
                ]
            run = "" if c.run_id is None else str(c.run_id)
            writer.writerow([*axes, run, c.status or "missing", direction, *figures])
    return buffer.getvalue()


def dry_run_lines(plan: SweepPlan) -> list[str]:
    """``bench sweep --dry-run``: how many cells would run, then each with its target."""
    lines = [f"{plan.name}: {len(plan.to_run)} of {len(plan.cells)} cells to run"]
    for item in plan.planned:
        lines.append(f"  {item.cell.index + 1:>3}  {item.cell.label}  on {item.ask.target}")
    return lines
