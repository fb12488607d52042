"""``tierdeck bench sweep``, ``bench sweeps`` and ``bench sweep-export``: sweeps for
scripts. The engine is app/sweep/run.py; the text and JSON are app/sweep/render.py."""

from __future__ import annotations

import asyncio
import json
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from ....core.errors import TierdeckError
from ....core.sweep.model import TARGETS_AXIS, SweepError, SweepSpec, parse_sweep
from ....core.units import fmt_clock
from ..common import (
    EXIT_FAILED,
    EXIT_REFUSED,
    cancel_exit_code,
    command_host,
    fail,
    host_option,
    once,
    until_cancelled,
)
from .reporting import RunReporter, stderr_is_terminal

if TYPE_CHECKING:
    from ....core.models import Inventory
    from ....core.sweep.model import SweepResult
    from ...bench.service import BenchService
    from ...history.run_sets import RunSetStore
    from ...sweep.run import SweepPlan
    from ...sweep.store import SweepSettings

EXAMPLES = "examples"  # app/sweep/examples/*.toml, shipped as package data
PLACEHOLDER = "/path/to/"  # the targets of a shipped example that the user must replace

SWEEP_HELP = """Run a sweep: a base fio job and axes of values (a TOML file,
docs/sweep-json.md), every combination one run, stored in the history as a normal run
tagged sweep:ID. Progress on stderr (cell k of n, the sweep's ETA, the current run's
bar), then the matrix (the first axis in rows, the second in columns, one block per
value of any further axis; MiB/s of each cell's busiest direction), or with --json one
tierdeck.sweep-result/1 object.

\b
FILE        the sweep file; or --example NAME (tierdeck bench sweeps lists them)
--target    where the cells run (overrides target = in the file); given more than
            once, the targets become the first axis (replacing a targets axis)
--resume ID finish sweep ID: only its missing cells run (not run, not ok, or
            deleted). Alone, it reads the sweep and its options from the history;
            with a FILE, the file and options must be the ones it started with

Consecutive cells that plan the same test files (same numjobs, nrfiles, size) reuse
them, as plain fio does in one directory; every file is removed at the end, also
after a failure or a cancel.

\b
Exit status:
  0    every cell ok
  1    a cell failed (the others still ran), or tierdeck could not work
  2    refused before any cell ran (bad file, unknown fio option, no space,
       no target ...), or bad options
  130  cancelled with Ctrl-C (143 with SIGTERM): finish it with --resume ID
"""


def example_names() -> list[str]:
    folder = resources.files("tierdeck.app.sweep").joinpath(EXAMPLES)
    return sorted(p.name.removesuffix(".toml") for p in folder.iterdir()
                  if p.name.endswith(".toml"))  # fmt: skip


# The examples' former names, still accepted by --example (scripts name them).
FORMER_EXAMPLES = {
    "seed002-suite": "suite-per-stack",
    "seed003-compress-matrix": "compress-x-jobs-matrix",
}


def example_text(name: str) -> str:
    name = FORMER_EXAMPLES.get(name, name)
    if name not in example_names():
        raise click.BadParameter(
            f"no example {name!r}; examples: {', '.join(example_names())}",
            param_hint="--example",
        )
    return (
        resources.files("tierdeck.app.sweep").joinpath(EXAMPLES, f"{name}.toml").read_text("utf-8")
    )


def _read_spec(file: Path | None, example: str | None, targets: tuple[str, ...]) -> SweepSpec:
    if (file is None) == (example is None):
        raise click.UsageError("give a sweep FILE or --example NAME (not both)")
    if example is not None:
        text = example_text(example)
    else:
        assert file is not None
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            fail(f"cannot read {file}: {exc}", EXIT_REFUSED)
    try:
        spec = parse_sweep(text)
    except SweepError as exc:
        fail(str(exc), EXIT_REFUSED)
    if len(targets) > 1:
        from ...sweep.run import with_targets

        spec = with_targets(spec, targets)
    for axis in spec.axes:
        if axis.name == TARGETS_AXIS and any(str(v).startswith(PLACEHOLDER) for v in axis.values):
            fail(
                f"the sweep's targets are placeholders ({', '.join(map(str, axis.values))}): "
                "give your own, --target PATH once per target",
                EXIT_REFUSED,
            )
    return spec


def _stored_spec(store: RunSetStore, sweep_id: int) -> tuple[SweepSpec, SweepSettings]:
    """``--resume ID`` alone: the sweep as it was started, from the history."""
    from ...sweep.store import SweepNotFound, spec_of, sweep_set

    try:
        return spec_of(sweep_set(store, sweep_id).definition)
    except SweepNotFound as exc:
        fail(str(exc), EXIT_REFUSED)
    except TierdeckError as exc:
        fail(str(exc), EXIT_FAILED)


class _SweepReporter:
    """The run's reporter (RunReporter) for the inner events, plus a line per cell:
    ``cell 3/27 numjobs=1 ... (sweep ETA 4:10)``."""

    def __init__(self, *, live: bool) -> None:
        self.run = RunReporter(live=live)
        self.cell = ""
        self.positions: dict[str, str] = {}  # a cell's "k/n": its Done may follow k+1's start

    def __call__(self, event: Any) -> None:
        from ...bench import events as ev
        from ...sweep.events import SweepCellDone, SweepCellStarted

        if isinstance(event, SweepCellStarted):
            self.cell = self.positions[event.cell.key] = f"{event.position}/{event.total}"
            self.run.say(
                f"cell {self.cell} {event.cell.label} (sweep ETA {fmt_clock(event.eta_s)})"
            )
        elif isinstance(event, SweepCellDone):
            if event.result.status not in (None, "ok"):
                where = self.positions.get(event.result.cell.key, self.cell)
                self.run.say(f"cell {where} {event.result.status}")
        elif isinstance(event, ev.RunStarted):
            return  # the command line of every cell would bury the progress
        else:
            self.run(event)
            if isinstance(event, ev.Progress):
                self.run.describe(f"{self.cell} {event.phase}")


async def _drive(
    service: BenchService, inv: Inventory, plan: SweepPlan, reporter: _SweepReporter
) -> tuple[SweepResult, int]:
    from ...sweep.run import run_sweep

    return await until_cancelled(
        lambda cancel: run_sweep(service, inv, plan, reporter, cancel),
        reporter.run.say,
        "cancelling: stopping fio and removing the test files ...",
    )


def _refused(exc: Exception) -> NoReturn:
    from ...sweep.run import SweepRefusalKind, SweepRefused

    if isinstance(exc, SweepRefused) and exc.kind is SweepRefusalKind.STORE:
        fail(exc.reason, EXIT_FAILED)
    fail(f"refused: {exc}", EXIT_REFUSED)


@click.command("sweep", help=SWEEP_HELP)
@host_option
@click.argument("file", required=False, type=click.Path(dir_okay=False, path_type=Path))
@once("--example", metavar="NAME", help="A sweep shipped with tierdeck (bench sweeps).")
@click.option("--target", "targets", multiple=True, metavar="PATH",
              help="Where the cells run; several: a targets axis.")  # fmt: skip
@once("--runtime", type=click.IntRange(min=1), metavar="SEC",
      help="Every job of every cell runs this long (time_based).")  # fmt: skip
@once("--size", metavar="S", help="fio's size= for every job of every cell (512M, 4G).")
@once("--resume", type=click.IntRange(min=1), metavar="ID", help="Finish sweep ID.")
@click.option("--dry-run", is_flag=True, help="Check every cell and list them; run nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print one tierdeck.sweep-result/1 object.")
def sweep_cmd(
    file: Path | None,
    example: str | None,
    targets: tuple[str, ...],
    runtime: int | None,
    size: str | None,
    resume: int | None,
    dry_run: bool,
    as_json: bool,
) -> None:
    import os

    from ...bench.service import BenchService
    from ...history.run_sets import RunSetStore
    from ...machine.inventory import collect_inventory
    from ...sweep.render import dry_run_lines, matrix_lines, sweep_to_json
    from ...sweep.run import SweepRefused, plan_sweep

    targets = tuple(os.path.abspath(t) for t in targets)
    try:
        store = RunSetStore()
    except TierdeckError as exc:
        fail(str(exc), EXIT_FAILED)
    if resume is not None and file is None and example is None:
        spec, stored = _stored_spec(store, resume)
        targets = targets or ((stored.target,) if stored.target else ())
        runtime = runtime if runtime is not None else stored.runtime
        size = size if size is not None else stored.size
    else:
        spec = _read_spec(file, example, targets)
    host = command_host()
    try:
        inv = collect_inventory(host)
        plan = plan_sweep(host, inv, spec, target=targets[0] if len(targets) == 1 else None,
                          runtime=runtime, size=size, resume=resume, store=store,
                          dry_run=dry_run)  # fmt: skip
    except SweepRefused as exc:
        _refused(exc)
    except TierdeckError as exc:
        fail(str(exc), EXIT_FAILED)
    if dry_run:
        click.echo("\n".join(dry_run_lines(plan)))
        return
    assert plan.set_id is not None
    service = BenchService(host, store=lambda: store)
    reporter = _SweepReporter(live=stderr_is_terminal() and not as_json)
    reporter.run.say(f"sweep #{plan.set_id}: {len(plan.to_run)} of {len(plan.cells)} cells to run")
    try:
        with reporter.run:
            result, signum = asyncio.run(_drive(service, inv, plan, reporter))
    except TierdeckError as exc:
        fail(str(exc), EXIT_FAILED)
    if as_json:
        doc = sweep_to_json(result, plan.name, plan.target)
        click.echo(json.dumps(doc, separators=(",", ":")))
    else:
        click.echo("\n".join(matrix_lines(result, plan.name)))
        click.echo(f"saved as sweep #{result.id} (tierdeck bench sweep-export {result.id})")
    if signum:
        fail(f"cancelled: finish it with --resume {result.id}", cancel_exit_code(signum))
    if not result.complete:
        fail(f"{len(result.missing)} of {len(result.cells)} cells did not run ok "
             f"(--resume {result.id} runs them again)", EXIT_FAILED)  # fmt: skip


@click.command("sweeps")
@click.option("--json", "as_json", is_flag=True, help="Print examples and sweeps as JSON.")
def sweeps_cmd(as_json: bool) -> None:
    """List the example sweeps shipped with tierdeck and the sweeps in the history."""
    from ...history.run_sets import RunSetKind, RunSetStore

    try:
        stored = RunSetStore().list_sets(RunSetKind.SWEEP)
    except TierdeckError as exc:
        fail(str(exc), EXIT_FAILED)
    examples = []
    for name in example_names():
        spec = parse_sweep(example_text(name))
        examples.append({"name": name, "title": spec.name, "cells": spec.cell_count})
    if as_json:
        rows = [{"id": s.id, "name": s.name, "created_at": s.created_at} for s in stored]
        doc = {"schema": "tierdeck.sweeps/1", "examples": examples, "sweeps": rows}
        click.echo(json.dumps(doc, indent=2))
        return
    click.echo("examples (tierdeck bench sweep --example NAME --target PATH):")
    for item in examples:
        click.echo(f"  {item['name']}: {item['title']} ({item['cells']} cells)")
    click.echo("sweeps in the history (tierdeck bench sweep-export ID):" if stored
               else "no sweeps in the history yet")  # fmt: skip
    for found in stored:
        click.echo(f"  #{found.id}  {found.name}")


@click.command("sweep-export")
@click.argument("sweep_id", type=click.IntRange(min=1), metavar="ID")
@once("--format", "fmt", type=click.Choice(["md", "csv", "json"]), help="Default: md.")
@once("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
      help="Write to FILE instead of stdout.")  # fmt: skip
def sweep_export_cmd(sweep_id: int, fmt: str | None, output: Path | None) -> None:
    """Export stored sweep ID: Markdown tables (as the matrix), CSV (a row per cell and
    direction, every figure) or the tierdeck.sweep-result/1 JSON."""
    from ...history.run_sets import RunSetStore
    from ...sweep.export import SweepExportFormat, sweep_export_text
    from ...sweep.store import SweepNotFound

    try:
        text = sweep_export_text(RunSetStore(), sweep_id, SweepExportFormat(fmt or "md"))
    except SweepNotFound as exc:
        fail(str(exc), EXIT_REFUSED)
    except TierdeckError as exc:
        fail(str(exc), EXIT_FAILED)
    if output is None:
        click.echo(text, nl=False)
        return
    from ....backends.localfiles import write_atomically

    try:
        write_atomically(output, text)
    except OSError as exc:
        fail(f"cannot write {output}: {exc.strerror or exc}", EXIT_FAILED)
    click.echo(f"wrote sweep #{sweep_id} to {output}", err=True)
