"""Run `tierdeck bench run` in this process; print bandwidth and its own CPU as JSON.

RUSAGE_SELF counts this process only: fio, its child, is not in it. That is tierdeck's
own cost (argument: target, job file). Works with any tierdeck tree that has
``tierdeck.app.cli.main`` (bench/overhead.py --tierdeck-python): per-job figures are
added when the tree reports jobs separately (the JSON "jobs" key)."""

from __future__ import annotations

import contextlib
import io
import json
import resource
import sys
import time

from tierdeck.app.cli import main

target, jobfile = sys.argv[1], sys.argv[2]
out = io.StringIO()
start = time.perf_counter()
cpu_start = resource.getrusage(resource.RUSAGE_SELF)
with contextlib.redirect_stdout(out):
    try:
        main(["bench", "run", "--job", jobfile, "--target", target, "--json", "--no-save"],
             standalone_mode=False)  # fmt: skip
    except SystemExit as exc:
        if exc.code:
            raise
cpu_end = resource.getrusage(resource.RUSAGE_SELF)
wall = time.perf_counter() - start
result = json.loads(out.getvalue().strip().splitlines()[-1])
if result.get("status") != "ok":
    raise SystemExit(f"tierdeck run {result.get('status')}: {result.get('error')}")
directions = ("read", "write", "trim")


def bandwidth(figures: dict) -> int:
    return sum((figures.get(d) or {}).get("bw_bytes", 0) for d in directions)


bw = bandwidth(result["summary"])
jobs = {job["name"]: bandwidth(job) for job in result.get("jobs") or ()}
cpu = (cpu_end.ru_utime - cpu_start.ru_utime) + (cpu_end.ru_stime - cpu_start.ru_stime)
print(json.dumps({"bw": bw, "cpu_s": cpu, "wall_s": wall, "jobs": jobs,
                  "warnings": result.get("warnings", [])}))  # fmt: skip
