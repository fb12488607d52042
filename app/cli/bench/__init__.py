"""``tierdeck bench ...``: presets (presets.py), run (run.py), the sweeps (sweep.py) and
the ladder (ladder.py), each module loaded only when its command runs."""

from __future__ import annotations

import click

from ..common import CommandGroup, DeferredCommand


@click.group(cls=CommandGroup)
def bench() -> None:
    """Run fio benchmarks from presets or job files, with a saved history."""


_SWEEP = "tierdeck.app.cli.bench.sweep"

for _command in (
    DeferredCommand(
        "presets",
        "tierdeck.app.cli.bench.presets:presets_cmd",
        "List the presets, where each comes from, and their exact fio parameters.",
    ),
    DeferredCommand(
        "run",
        "tierdeck.app.cli.bench.run:run_cmd",
        "Run a benchmark on TARGET: a progress bar and a table of results on a terminal, "
        "or with --json exactly one JSON object (docs/bench-json.md).",
    ),
    DeferredCommand(
        "sweep",
        f"{_SWEEP}:sweep_cmd",
        "Run a sweep: a base fio job and axes of values (a TOML file, docs/sweep-json.md), "
        "every combination one run, stored in the history as a normal run tagged sweep:ID.",
    ),
    DeferredCommand(
        "sweeps",
        f"{_SWEEP}:sweeps_cmd",
        "List the example sweeps shipped with tierdeck and the sweeps in the history.",
    ),
    DeferredCommand(
        "sweep-export",
        f"{_SWEEP}:sweep_export_cmd",
        "Export stored sweep ID: Markdown tables (as the matrix), CSV (a row per cell and "
        "direction, every figure) or the tierdeck.sweep-result/1 JSON.",
    ),
    DeferredCommand(
        "ladder",
        "tierdeck.app.cli.bench.ladder:ladder_cmd",
        "Run the same job on each layer of the mergerfs pool TARGET and show what each "
        'layer costs (a home NAS\'s "raw pool 1240 vs mergerfs 374", the mergerfs '
        "benchmarking guide's layer by layer test):",
    ),
):
    bench.add_command(_command)
