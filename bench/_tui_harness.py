"""Drive the live run screen headless (real runner, real fio, charts and device panel
redrawn every second); print bandwidth and tierdeck's own CPU while it ran, as JSON.

RUSAGE_SELF is this process only (fio is a child). The window is the steady state of
the run, from the first to the last live sample drawn: the part the "< 5 % of a core at
1 Hz" goal is about. The run goes through the app's own BenchService, as when a user
starts it from the setup screen (its history in a throwaway folder). Arguments: target,
job file. Measures the current tree's screen (not --tierdeck-python's)."""

from __future__ import annotations

import asyncio
import json
import os
import resource
import sys
import tempfile
import time

from tierdeck.app.bench.service import BenchAsk
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.backends.fio.jobfile import parse_jobfile
from tierdeck.backends.host import LiveHost
from tierdeck.screens.bench.run import RunScreen


async def main(target: str, jobfile: str) -> dict[str, float]:
    host = LiveHost()
    app = TierdeckApp(host, hotplug=False)
    async with app.run_test(size=(80, 24)) as pilot:
        while app.refreshes == 0:  # the fresh inventory: the one with this run's target
            await app.workers.wait_for_complete()
            await pilot.pause(0.05)
        assert app.inventory is not None
        with open(jobfile) as fh:
            ask = BenchAsk(target=target, jobs=tuple(parse_jobfile(fh.read())))
        request = app.bench.plan(app.inventory, ask)
        screen = RunScreen(app.bench, app.inventory, request)
        await app.push_screen(screen)
        # Steady state: between the first and the last live sample on screen. Mounting
        # the screen and the end-of-run summary are one-off costs, not per-second ones.
        marks: list[tuple[int, float, float]] = []  # (samples, cpu s, wall s)
        while screen.result is None:
            seen = screen.samples_seen
            if seen and (not marks or marks[-1][0] != seen):
                usage = resource.getrusage(resource.RUSAGE_SELF)
                marks.append((seen, usage.ru_utime + usage.ru_stime, time.perf_counter()))
            await asyncio.sleep(0.05)  # the harness's own wake-ups count against it
        result = screen.result
    if str(result.status) != "ok":
        raise SystemExit(f"tierdeck run {result.status}: {result.error}")
    if len(marks) < 2:
        raise SystemExit("run too short for a steady-state window: raise --runtime")
    cpu = marks[-1][1] - marks[0][1]
    wall = marks[-1][2] - marks[0][2]
    bw = sum(s.bw_bytes for s in result.summary.values())
    return {"bw": bw, "cpu_s": cpu, "wall_s": wall, "samples": len(result.series)}


if __name__ == "__main__":
    # History and cache go to a throwaway folder, not the user's.
    with tempfile.TemporaryDirectory() as data_dir:
        os.environ["TIERDECK_DATA_DIR"] = data_dir
        os.environ["TIERDECK_CACHE_DIR"] = data_dir
        print(json.dumps(asyncio.run(main(sys.argv[1], sys.argv[2]))))
