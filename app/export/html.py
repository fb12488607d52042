"""The HTML export: one self-contained file (no script, style sheet, font or image
from the network) with the compare table (or one run's summary and job file), the
comparability panel, the environment and the per-second charts (app/export/charts.py).

The page is a Jinja2 template (templates/export.html.j2) with autoescaping on: every
run name, label, option and environment value is inserted as text; only the charts'
SVG, which pygal builds with an XML serializer, is inserted as markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources
from typing import Any

from ... import __version__
from ...core.bench_models import RunResult, RunStatus
from ...core.compare.comparison import Comparison
from ..compare import render
from .parts import (
    FIGURE_HEADERS,
    ExportRefused,
    environment_table,
    figures,
    job_rows,
    jobfile,
    title,
)

TEMPLATE = "export.html.j2"
INSTALL_HINT = "pip install 'pygal>=3.0' 'jinja2>=3.1'"


def _compare_context(comparison: Comparison) -> dict[str, Any]:
    runs = comparison.runs
    rows = []
    for row in comparison.rows:
        for d in row.directions:
            for m in d.metrics:
                first = d is row.directions[0] and m is d.metrics[0]
                rows.append(
                    {
                        "job": row.name if first else "",
                        "direction": d.direction if m is d.metrics[0] else "",
                        "metric": render.METRIC_LABEL[m.metric],
                        "cells": [
                            {
                                "value": render.format_value(m.metric, c.value),
                                "delta": render.format_delta(c),
                                "verdict": c.verdict.value,
                            }
                            for c in m.cells
                        ],
                    }
                )
    base = runs[comparison.baseline]
    return {
        "headers": [render.run_label(r) + (" (baseline)" if r is base else "") for r in runs],
        "ids": [f"#{r.id}" for r in runs],
        "rows": rows,
        "baseline_note": f"baseline: {render.run_label(base)}; "
        + render.noise_legend(comparison).replace("noise", "noise (their per-second spread)", 1),
        "differences": [
            {
                "key": d.key,
                "per_run": [v or "-" for v in d.values],
                "informational": d.kind.informational,
            }
            for d in comparison.differences
        ],
        "notes": render.note_lines(comparison),
        "comparable": render.COMPARABLE if comparison.comparable else "",
    }


def _run_context(run: RunResult) -> dict[str, Any]:
    facts = [
        ("target", f"{run.target.label} ({run.target.kind})"),
        ("status", RunStatus(run.status).value),
        ("preset", run.preset or "-"),
    ]
    if run.error:
        facts.append(("error", run.error))
    return {
        "facts": facts,
        "headers": FIGURE_HEADERS,
        "rows": [[job, d, *figures(s)] for job, d, s in job_rows(run)],
        "warnings": [w.text for w in run.warnings],
        "jobfile": jobfile(run),
    }


def render_html(
    runs: Sequence[RunResult], comparison: Comparison | None, *, redacted: bool = False
) -> str:
    """The report as one HTML document; ExportRefused when pygal or Jinja2 is missing."""
    try:
        import jinja2
        from markupsafe import Markup

        from .charts import charts
    except ImportError as exc:
        raise ExportRefused(f"html export needs {exc.name}: {INSTALL_HINT}") from exc

    try:
        drawn = charts(runs)
    except ImportError as exc:  # pygal is imported when the first chart is drawn
        raise ExportRefused(f"html export needs {exc.name}: {INSTALL_HINT}") from exc
    keys, values = environment_table(runs)
    source = (
        resources.files(__name__.rpartition(".")[0])
        .joinpath("templates", TEMPLATE)
        .read_text("utf-8")
    )
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    return env.from_string(source).render(
        title=title(runs),
        version=__version__,
        redacted=redacted,
        compare=_compare_context(comparison) if comparison is not None else None,
        run=_run_context(runs[0]) if comparison is None else None,
        env={
            "headers": [render.run_label(r) for r in runs],
            "rows": list(zip(keys, values, strict=True)),
        },
        charts=[
            {"metric": c.metric.value, "svg": Markup(c.svg)}  # pygal's own XML: markup
            for c in drawn
        ],
        chart_notes=[
            f"{render.run_label(r)}: no per-second series (imported)"
            for r in runs
            if not r.series and drawn
        ],
    )
