"""``tierdeck compare ID ID...``: stored runs side by side (core/compare/comparison.py), printed by
the renderers of app/compare/render.py."""

from __future__ import annotations

import json
from collections.abc import Sequence

import click

from ...core.bench_models import RunResult
from ...core.compare.comparison import MAX_RUNS, CompareRefused, baseline_index, compare_runs
from .common import EXIT_REFUSED, fail, once, open_store, print_renderable, stored_run

FORMATS = ("table", "json", "markdown", "csv")


def _load(run_ids: Sequence[int]) -> list[RunResult]:
    store = open_store()
    # Not fio's document nor the disks' series: no comparison reads them, and fio's
    # document alone is hundreds of KiB of JSON to parse per run.
    return [stored_run(store, run_id, missing=EXIT_REFUSED, whole=False) for run_id in run_ids]


@click.command()
@click.argument("run_ids", nargs=-1, type=int, metavar="ID ID...")
@once(
    "--baseline",
    type=int,
    metavar="ID",
    help="The run the others are measured against (default: the first ID).",
)
@once(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    help="table (default; coloured on a terminal, plain in a pipe), json, markdown or csv.",
)
@click.option("--json", "as_json", is_flag=True, help="The same as --format json.")
def compare(run_ids: tuple[int, ...], baseline: int | None, fmt: str | None, as_json: bool) -> None:
    """Compare 2 to 8 stored runs side by side (ids from `tierdeck history list`).

    One row group per job: jobs are matched by name, then by position (the output says
    which). Per direction: bandwidth (MiB/s), IOPS, mean and p99 latency, and in every
    other column the % delta against the baseline run (--baseline, default the first).

    Noise: a delta no larger than the runs' own second-to-second spread (the
    coefficient of variation of each run's per-second series, both runs combined) is
    within noise: shown dim with "≈" and not counted as better or worse. Runs without a
    per-second series (imported ones) leave the noise unknown: the delta is shown with
    "?" and counted as neither, and the legend says why. Higher bandwidth and IOPS are
    better (green), lower latency is better.

    Below the table: every parameter that differs between the runs (fio job options,
    fio version, kernel, filesystem and mount options, mergerfs options, ZFS properties,
    disk models, and the target, which is information, not a warning; "?" for an option
    an imported run's file does not state, not compared), and runs whose results a cache
    may have inflated. Nothing of that: "comparable".

    Formats: table; json (also --json; schema tierdeck.compare/1, docs/compare-json.md);
    markdown (a table to paste on a forum as it is); csv (one row per run, job and
    direction, in bytes/s and ns).

    Exits 2 for unknown ids, fewer than 2 or more than 8 runs, an id given twice, a run
    that failed or was cancelled, or a baseline that is not one of the ids.
    """
    from .common import refuse_host

    refuse_host("the history", "compare the runs of any machine here by their ids")
    if as_json and fmt not in (None, "json"):
        raise click.UsageError(f"--json and --format {fmt} exclude each other")
    fmt = "json" if as_json else fmt
    if len(run_ids) < 2:
        fail(f"compare needs at least 2 run ids, got {len(run_ids)}", EXIT_REFUSED)
    if len(run_ids) > MAX_RUNS:
        fail(f"compare takes at most {MAX_RUNS} runs, got {len(run_ids)}", EXIT_REFUSED)
    runs = _load(run_ids)
    try:
        comparison = compare_runs(runs, baseline_index(runs, baseline))
    except CompareRefused as exc:
        fail(exc.reason, EXIT_REFUSED)

    from ..compare import render

    if fmt == "json":
        click.echo(json.dumps(render.to_json(comparison), indent=2, ensure_ascii=False))
    elif fmt == "markdown":
        click.echo(render.to_markdown(comparison), nl=False)
    elif fmt == "csv":
        click.echo(render.to_csv(comparison), nl=False)
    else:
        print_renderable(render.to_rich(comparison))
