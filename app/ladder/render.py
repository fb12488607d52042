"""A ladder as the ``tierdeck.ladder/1`` JSON object (docs/ladder-json.md) and as the
plain table ``bench ladder`` prints. Keys are added, never renamed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...core.compare.noise import Metric
from ...core.ladder.model import (
    COMPARED_TO,
    LADDER_SCHEMA,
    LadderResult,
    Rung,
    diagnose,
    noise_band,
    reference_of,
)
from ...core.sweep.model import metric_value
from ...core.units import fmt_count, fmt_mib, fmt_ns
from ..history.run_json import direction_json

TABLE_HEADER = ("rung", "path", "MiB/s", "IOPS", "mean lat", "p99 lat", "penalty", "against")


def rung_to_json(rung: Rung) -> dict[str, Any]:
    compared = COMPARED_TO[rung.kind]
    out: dict[str, Any] = {
        "rung": rung.kind.value,
        "label": rung.label,
        "path": rung.path,
        "run_id": rung.run_id,
        "summary": {d: direction_json(s) for d, s in rung.summary.items()},
        "penalty_pct": None if rung.penalty_pct is None else round(rung.penalty_pct, 2),
        "compared_to": None if compared is None else compared.value,
        "option": None
        if rung.option is None
        else {"name": rung.option[0], "value": rung.option[1]},
    }
    if rung.role is not None:
        out["role"] = rung.role.value
    if rung.skipped is None:
        out["spread_pct"] = None if rung.spread_pct is None else round(rung.spread_pct, 2)
    if rung.skipped is not None:
        out["skipped"] = rung.skipped
    return out


def ladder_to_json(result: LadderResult) -> dict[str, Any]:
    return {
        "schema": LADDER_SCHEMA,
        "id": result.id,
        "pool": result.pool,
        "diagnosis": diagnose(result.rungs),
        "job": result.job,
        "direct_refused": result.direct_refused,
        "rungs": [rung_to_json(r) for r in result.rungs],
    }


def _cell(rung: Rung, metric: Metric, fmt: Any) -> str:
    value = metric_value(rung.summary, metric)
    return "-" if value is None else str(fmt(value))


def rung_row(rung: Rung, rungs: Sequence[Rung] = ()) -> tuple[str, ...]:
    """A rung's row; ``rungs`` (the whole ladder) marks a penalty that the two rungs'
    own second-by-second spread covers as noise."""
    compared = COMPARED_TO[rung.kind]
    if rung.skipped is not None:
        return (rung.label, rung.path, f"skipped: {rung.skipped}", "", "", "", "", "")
    penalty = "-" if rung.penalty_pct is None else f"{rung.penalty_pct:+.0f} %"
    reference = reference_of(rung, rungs)
    pct = rung.penalty_pct
    if pct is not None and reference is not None and abs(pct) <= noise_band(rung, reference):
        penalty += " (noise)"
    return (
        rung.label,
        rung.path,
        _cell(rung, Metric.BW, fmt_mib),
        _cell(rung, Metric.IOPS, fmt_count),
        _cell(rung, Metric.LAT_MEAN, fmt_ns),
        _cell(rung, Metric.LAT_P99, fmt_ns),
        penalty,
        "-" if compared is None else compared.value,
    )


def ladder_lines(result: LadderResult) -> list[str]:
    """The table (plain aligned text: stable in pipes) and the diagnosis line."""
    rows = [TABLE_HEADER, *(rung_row(r, result.rungs) for r in result.rungs)]
    measured = [r for r in rows if not r[2].startswith("skipped")]
    widths = [max(len(r[i]) for r in measured) for i in range(len(TABLE_HEADER))]
    lines = []
    for row in rows:
        if row[2].startswith("skipped"):
            lines.append(f"{row[0]:<{widths[0]}}  {row[1]:<{widths[1]}}  {row[2]}")
        else:
            lines.append(
                "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
            )
    lines.append("")
    if result.job is not None:
        lines.append(f"job: {result.job}")
    lines.append(
        "penalty: how much slower than the rung under 'against' (negative: faster); "
        "(noise): inside the two rungs' own second-by-second spread"
    )
    lines.append(f"diagnosis: {diagnose(result.rungs)}")
    return lines
