"""How much time does a sweep add between its cells, and is the whole sweep any slower
than the same runs started one by one from a shell loop? (root not needed)

Method. One sweep file (below): random reads, bs x iodepth = 6 cells, each a
time_based fio run of --runtime seconds over one --size file, in a scratch directory
(--target, default a fresh folder under /var/tmp). Every round runs, in an order
rotated from round to round:

1. the sweep: ``tierdeck bench sweep FILE --target DIR --runtime S --json`` (a
   throwaway history), as a user runs it;
2. the shell loop: ``sh -c 'for f in cell-*.fio; do fio --output-format=json $f; done'``
   over the cells' job files exactly as tierdeck runs them (``jobfile_text`` of each
   planned cell: fio's own directory= and file naming), the files removed at the end.
   Plain fio run twice in one directory reuses its files, as the sweep does;
3. the shell loop of ``tierdeck bench run --job cell-N.fio --target DIR --no-save``: what
   a user without sweeps would type.

The gap: in a separate in-process sweep (``run_sweep`` with an event recorder), from
the moment a cell's fio exits (its run's "cleaning up"/"done" phase) to the moment the
next cell's fio starts measuring: tierdeck's own time between cells (preflight,
fingerprint, saving the run, the next plan). Also in process: the same sweep with the
test files removed after every cell (no reuse), to show what reusing them saves (read
cells: fio lays a file out before reading it).

Ratios are taken within a round, then the median and min-max over rounds. Goal: the
sweep takes no longer than the shell loop of fio (ratio <= 1.0 would mean tierdeck's gap
is hidden; in practice the gap is the price of the preflight and the history).
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
from dataclasses import replace
from pathlib import Path

from tierdeck.app.bench_events import Progress, RunPhase
from tierdeck.app.bench_service import BenchService
from tierdeck.app.inventory import collect_inventory
from tierdeck.app.run_sets import RunSetStore
from tierdeck.app.sweep_run import plan_sweep, run_sweep
from tierdeck.backends.host import LiveHost
from tierdeck.core.jobspec import jobfile_text
from tierdeck.core.sweep import parse_sweep

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


def timed(argv: list[str], env: dict[str, str] | None = None) -> float:
    start = time.monotonic()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - start


def clean(target: Path) -> None:
    for path in target.glob(".tierdeck-bench.*"):
        path.unlink()


def in_process(
    spec_text: str, target: Path, runtime: int, data: Path, reuse: bool
) -> tuple[float, list[float]]:
    """The whole sweep's seconds and the gaps between cells (fio exit -> next fio start)."""
    host = LiveHost()
    inv = collect_inventory(host)
    store = RunSetStore(data / f"inproc-{time.monotonic_ns()}.sqlite3")
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
        if isinstance(event, Progress):
            if event.phase is RunPhase.MEASURING and (not marks or marks[-1][0] != "start"):
                marks.append(("start", time.monotonic()))
            elif (
                event.phase in (RunPhase.CLEANING_UP, RunPhase.DONE)
                and marks
                and marks[-1][0] == "start"
            ):
                marks.append(("end", time.monotonic()))

    service = BenchService(host, store=lambda: store)
    start = time.monotonic()
    asyncio.run(run_sweep(service, inv, plan, record))
    total = time.monotonic() - start
    gaps = [
        b[1] - a[1]
        for a, b in zip(marks, marks[1:], strict=False)
        if a[0] == "end" and b[0] == "start"
    ]
    return total, gaps


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
        fio_loop = [
            "sh",
            "-c",
            'for f in "$@"; do fio --output-format=json "$f"; done',
            "sh",
            *map(str, cells),
        ]
        env = {**os.environ, "TIERDECK_DATA_DIR": str(work / "data")}
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
        ways = {
            "sweep": lambda: timed(sweep_cmd, env),
            "fio loop": lambda: timed(fio_loop),
            "bench run loop": lambda: timed(bench_loop, env),
        }
        rows: dict[str, list[float]] = {name: [] for name in ways}
        names = list(ways)
        for r in range(args.rounds):
            for name in names[r % len(names) :] + names[: r % len(names)]:
                rows[name].append(ways[name]())
                clean(target)
        gaps: list[float] = []
        reuse_totals, fresh_totals = [], []
        for _ in range(args.rounds):
            total, found = in_process(spec_text, target, args.runtime, work, reuse=True)
            reuse_totals.append(total)
            gaps += found
            fresh_totals.append(in_process(spec_text, target, args.runtime, work, reuse=False)[0])
            clean(target)

        def band(values: list[float]) -> str:
            return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"

        print(
            f"{len(cells)} cells, fio --runtime {args.runtime} s each, size {args.size}, {args.rounds} rounds"
        )
        for name, values in rows.items():
            print(f"  {name:<16} {band(values)} s")
        for name in ("fio loop", "bench run loop"):
            ratios = [a / b for a, b in zip(rows["sweep"], rows[name], strict=True)]
            print(f"  sweep / {name:<14} {band(ratios)}")
        print(
            f"  gap between cells (fio exit -> next fio start): median {statistics.median(gaps) * 1000:.0f} ms"
            f" ({min(gaps) * 1000:.0f}-{max(gaps) * 1000:.0f}), {len(gaps)} gaps"
        )
        ratios = [a / b for a, b in zip(reuse_totals, fresh_totals, strict=True)]
        print(
            f"  in process: reusing files {band(reuse_totals)} s, removing them each cell"
            f" {band(fresh_totals)} s, ratio {band(ratios)}"
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
