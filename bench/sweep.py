"""How much time does a sweep add between its cells, and is the whole sweep any slower
than the same runs started one by one from a shell loop? (root not needed)

Method. One sweep file (below): random reads, bs x iodepth = 6 cells, each a
time_based fio run of --runtime seconds over one --size file, in a scratch directory
(--target, default a fresh folder under /var/tmp). Every round runs, in an order
rotated from round to round:

1. the shell loop of plain fio, the reference:
   ``sh -c 'for f in cell-*.fio; do fio --output-format=json $f; done'`` over the cells'
   job files exactly as tierdeck runs them (``jobfile_text`` of each planned cell:
   fio's own directory= and file naming), then ``rm -f`` of the test files, which the
   sweep removes too. Plain fio run twice in one directory reuses its files, as the
   sweep does;
2. the sweep: ``tierdeck bench sweep FILE --target DIR --runtime S --json`` (a
   throwaway history), as a user runs it;
3. the shell loop of ``tierdeck bench run --job cell-N.fio --target DIR --no-save``: what
   a user without sweeps would type.

Each is given as its ratio to the fio loop of the same round (then the median and
min-max over rounds). The tierdeck commands run with compiled bytecode (a throwaway
PYTHONPYCACHEPREFIX, after one warm-up), as an installed tierdeck does, even where
PYTHONDONTWRITEBYTECODE is set.

tierdeck's own time, in a separate in-process sweep (``plan_sweep`` + ``run_sweep``
with an event recorder): before the first fio (inventory, then plan_sweep: every
cell's preflight and fio --parse-only, beside each target's fingerprint); the gap
between cells, from the moment a cell's fio exits (its run's "done" phase) to the
moment the next cell's fio starts (its "measuring" phase); after the last fio (the
last save, the test files removed, the result read back). Plus the CLI's interpreter
start and imports. Also in process: the same sweep with the test files removed after
every cell (no reuse), to show what reusing them saves (read cells: fio lays a file
out before reading it).

Goal: the sweep takes no longer than the shell loop of fio (ratio <= 1.00).
Run from the repository root: ``.venv/bin/python bench/sweep.py [--rounds 3]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

from tierdeck.app.bench.events import Progress, RunPhase
from tierdeck.app.bench.service import BenchService
from tierdeck.app.history.run_sets import RunSetStore
from tierdeck.app.machine.inventory import collect_inventory
from tierdeck.app.sweep.run import plan_sweep, run_sweep
from tierdeck.backends.host import LiveHost
from tierdeck.core.jobspec import jobfile_text
from tierdeck.core.sweep.model import parse_sweep

SWEEP = """
schema = "tierdeck.sweep/1"
name = "bench/sweep.py"
[base]
rw = "randread"
size = "{size}"
[axes]
bs = ["4k", "64k"]
iodepth = [1, 4, 16]
"""
CLI = [sys.executable, "-m", "tierdeck.app.cli"]
# what `tierdeck bench sweep` imports before it reads the machine
IMPORTS = (
    "import tierdeck.app.cli, tierdeck.app.cli.bench, tierdeck.app.cli.bench.sweep, "
    "tierdeck.app.sweep.run, tierdeck.app.machine.inventory, tierdeck.app.sweep.render"
)


def timed(argv: list[str], env: dict[str, str] | None = None) -> float:
    start = time.monotonic()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - start


def clean(target: Path) -> None:
    for path in target.glob(".tierdeck-bench.*"):
        path.unlink()


@dataclass
class InProcess:
    total: float  # inventory to the result back
    before: float  # inventory + plan_sweep + up to the first fio's start
    gaps: list[float]  # fio exit -> next fio start
    after: float  # the last fio's exit -> run_sweep returned


def in_process(spec_text: str, target: Path, runtime: int, data: Path, reuse: bool) -> InProcess:
    host = LiveHost()
    store = RunSetStore(data / f"inproc-{time.monotonic_ns()}.sqlite3")
    start = time.monotonic()
    inv = collect_inventory(host)
    plan = plan_sweep(
        host, inv, parse_sweep(spec_text), target=str(target), runtime=runtime, store=store
    )
    if not reuse:
        plan = replace(
            plan,
            planned=tuple(replace(p, ask=replace(p.ask, keep_files=False)) for p in plan.planned),
        )
    marks: list[tuple[str, float]] = []

    def record(event: object) -> None:
        if not isinstance(event, Progress):
            return
        if event.phase is RunPhase.MEASURING and (not marks or marks[-1][0] != "start"):
            marks.append(("start", time.monotonic()))
        elif event.phase is RunPhase.DONE and marks and marks[-1][0] == "start":
            marks.append(("end", time.monotonic()))

    service = BenchService(host, store=lambda: store)
    asyncio.run(run_sweep(service, inv, plan, record))
    finish = time.monotonic()
    gaps = [
        b[1] - a[1]
        for a, b in zip(marks, marks[1:], strict=False)
        if a[0] == "end" and b[0] == "start"
    ]
    return InProcess(finish - start, marks[0][1] - start, gaps, finish - marks[-1][1])


def band(values: list[float], scale: float = 1.0, fmt: str = ".2f") -> str:
    low, mid, high = (v * scale for v in (min(values), statistics.median(values), max(values)))
    return f"{mid:{fmt}} ({low:{fmt}}-{high:{fmt}})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runtime", type=int, default=1)
    parser.add_argument("--size", default="64m")
    parser.add_argument("--target", type=Path)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tierdeck-bench-sweep-", dir="/var/tmp"))
    target = args.target or work / "target"
    target.mkdir(exist_ok=True)
    try:
        spec_text = SWEEP.format(size=args.size)
        sweep_file = work / "sweep.toml"
        sweep_file.write_text(spec_text)
        # the cells' job files exactly as tierdeck runs them
        host = LiveHost()
        plan = plan_sweep(
            host,
            collect_inventory(host),
            parse_sweep(spec_text),
            target=str(target),
            runtime=args.runtime,
            store=RunSetStore(work / "plan.sqlite3"),
            dry_run=True,
        )
        service = BenchService(host)
        cells = []
        for i, item in enumerate(plan.planned):
            request = service.plan(collect_inventory(host), item.ask)
            path = work / f"cell-{i}.fio"
            path.write_text(jobfile_text(request.jobs, str(target)))
            cells.append(path)
        # ... and removes its test files at the end, as the sweep does
        fio_loop = [
            "sh",
            "-c",
            'for f in "$@"; do fio --output-format=json "$f"; done; rm -f "$0"/.tierdeck-bench.*',
            str(target),
            *map(str, cells),
        ]
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env |= {"TIERDECK_DATA_DIR": str(work / "data"), "PYTHONPYCACHEPREFIX": str(work / "pyc")}
        bench_loop = [
            "sh",
            "-c",
            'for f in "$@"; do "$0" -m tierdeck.app.cli bench run --job "$f" '
            f"--target {target} --no-save --json; done",
            sys.executable,
            *map(str, cells),
        ]
        sweep_cmd = [
            *CLI,
            "bench",
            "sweep",
            str(sweep_file),
            "--target",
            str(target),
            "--runtime",
            str(args.runtime),
            "--json",
        ]
        timed([*sweep_cmd, "--dry-run"], env)  # warm-up: compiles the bytecode once
        ways = {
            "fio loop": lambda: timed(fio_loop),
            "sweep": lambda: timed(sweep_cmd, env),
            "bench run loop": lambda: timed(bench_loop, env),
        }
        rows: dict[str, list[float]] = {name: [] for name in ways}
        names = list(ways)
        for r in range(args.rounds):
            for name in names[r % len(names) :] + names[: r % len(names)]:
                rows[name].append(ways[name]())
                clean(target)
        imports = [timed([sys.executable, "-c", IMPORTS], env) for _ in range(args.rounds)]
        reused: list[InProcess] = []
        fresh: list[InProcess] = []
        for _ in range(args.rounds):
            reused.append(in_process(spec_text, target, args.runtime, work, reuse=True))
            fresh.append(in_process(spec_text, target, args.runtime, work, reuse=False))
            clean(target)

        print(
            f"{len(cells)} cells, fio --runtime {args.runtime} s each, size {args.size}, "
            f"{args.rounds} rounds; median (min-max); x: against the fio loop of the same round"
        )
        for name, values in rows.items():
            ratios = [a / b for a, b in zip(values, rows["fio loop"], strict=True)]
            print(f"  {name:<16} {band(values)} s   {band(ratios)} x")
        gaps = [g for run in reused for g in run.gaps]
        print("tierdeck's own time (in process, sweep with reused files):")
        print(
            f"  before the first fio   {band([r.before for r in reused], 1000, '.0f')} ms"
            " (inventory, plan_sweep: preflights, fio --parse-only beside the fingerprints)"
        )
        print(
            f"  between cells          {band(gaps, 1000, '.1f')} ms"
            f" (fio exit -> next fio start, {len(gaps)} gaps)"
        )
        print(
            f"  after the last fio     {band([r.after for r in reused], 1000, '.0f')} ms"
            " (the last save, the files removed, the result read)"
        )
        print(f"  CLI interpreter+imports {band(imports, 1000, '.0f')} ms")
        totals = [r.total for r in reused]
        ratios = [r.total / f.total for r, f in zip(reused, fresh, strict=True)]
        print(
            f"  reusing files {band(totals)} s, removing them each cell"
            f" {band([f.total for f in fresh])} s, ratio {band(ratios)}"
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
