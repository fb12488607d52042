"""Does tierdeck cost bandwidth, and how much CPU does it burn? (root; builds a lab NAS)

In one session, on two targets (a tmpfs, and the lab NAS's btrfs raid1 "cache" on loop
devices), runs the same fio job three ways, interleaved, ``--runs`` times each:

1. bare fio: exactly the fio command tierdeck would run, with plain ``--output-format=json``
   instead of tierdeck's per-second status stream (what a user would type by hand);
2. ``tierdeck bench run --job FILE --target T --json --no-save`` (the CLI);
3. the live TUI run screen (headless Textual driving the same runner, charts and all).

It prints, per target and job, the median bandwidth of 2 and 3 as a ratio to 1 (goal:
>= 0.98), and tierdeck's own CPU (its process alone, not fio's) while it runs, as a
share of one core (goal: < 5 % at 1 Hz).

Usage: sudo .venv/bin/python bench/overhead.py [--runs 5] [--runtime 6]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from tierdeck.app.bench_preflight import plan_run
from tierdeck.app.bench_runner import measure_command
from tierdeck.app.inventory import collect_inventory
from tierdeck.app.lab import lab_down, lab_up
from tierdeck.backends.fio_stream import STREAM_ARGS
from tierdeck.backends.host import LiveHost
from tierdeck.core.jobspec import JobSpec

HERE = Path(__file__).resolve().parent


def jobs(runtime: int, size: str) -> dict[str, JobSpec]:
    common: dict[str, Any] = {"ioengine": "libaio", "direct": True, "size": size,
                              "runtime": runtime, "time_based": True}  # fmt: skip
    return {
        "seqwrite-1M-QD8": JobSpec(name="ovh-seqwrite", rw="write", bs="1M", iodepth=8, **common),
        "randread-4K-QD32": JobSpec(name="ovh-randread", rw="randread", bs="4k", iodepth=32, **common),
    }  # fmt: skip


def bandwidth(report: dict[str, Any]) -> float:
    """Read + write bytes/s summed over jobs, from fio's own JSON report."""
    return float(sum(j[d]["bw_bytes"] for j in report["jobs"] for d in ("read", "write")))


def run_bare(target: str, job: JobSpec) -> float:
    host = LiveHost()
    request = plan_run(host, collect_inventory(host), target, [job])
    argv = [a for a in measure_command(request) if a not in STREAM_ARGS]
    proc = subprocess.run([*argv, "--output-format=json"], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"bare fio failed: {proc.stderr}")
    _remove_test_files(target)
    return bandwidth(json.loads(proc.stdout[proc.stdout.index("{") :]))


def run_harness(script: str, target: str, jobfile: Path) -> dict[str, float]:
    proc = subprocess.run(
        [sys.executable, str(HERE / script), target, str(jobfile)], capture_output=True, text=True
    )
    if proc.returncode != 0:
        raise SystemExit(f"{script} failed: {proc.stderr[-2000:]}")
    result: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def _remove_test_files(target: str) -> None:
    for path in Path(target).glob(".tierdeck-bench.*"):
        path.unlink()


def _ratios(runs: list[dict[str, float]], bare: list[float]) -> list[float]:
    return [r["bw"] / b for r, b in zip(runs, bare, strict=True)]


def _cpu(runs: list[dict[str, float]]) -> float:
    return statistics.median(100 * r["cpu_s"] / r["wall_s"] for r in runs)


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):5.3f}x ({min(values):.2f}-{max(values):.2f})"


def measure(target: str, label: str, runs: int, runtime: int, size: str, tmp: Path) -> list[str]:
    """Per round, each way of running once (order rotated); ratios are per round, so a
    slow minute of the machine hits the numerator and the denominator alike. A second
    bare fio run ("A/A") shows how far two identical runs differ here: the noise floor."""
    lines = []
    for name, job in jobs(runtime, size).items():
        jobfile = tmp / f"{job.name}.fio"
        jobfile.write_text(job.to_jobfile())
        results: dict[str, list[dict[str, float]]] = {"bare": [], "bare2": [], "cli": [], "tui": []}
        modes = list(results)
        for run in range(runs):
            # Rotate the order, so no way of running always goes first (warm caches).
            for mode in modes[run % 4 :] + modes[: run % 4]:
                if mode.startswith("bare"):
                    results[mode].append({"bw": run_bare(target, job)})
                else:
                    results[mode].append(run_harness(f"_{mode}_harness.py", target, jobfile))
        bare = [r["bw"] for r in results["bare"]]
        aa, cli, tui = (_ratios(results[m], bare) for m in ("bare2", "cli", "tui"))
        lines.append(
            f"{label:<10} {name:<17} bare {statistics.median(bare) / 2**20:6.0f} MiB/s | "
            f"A/A {_spread(aa)} | CLI {_spread(cli)} cpu {_cpu(results['cli']):.1f}% | "
            f"TUI {_spread(tui)} cpu {_cpu(results['tui']):.1f}%"
        )
        print(lines[-1], flush=True)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--runtime", type=int, default=6, help="seconds per fio run")
    args = parser.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("bench/overhead.py needs root (tmpfs mount and lab NAS)")
    with tempfile.TemporaryDirectory(prefix="tierdeck-overhead-") as tmp_name:
        tmp = Path(tmp_name)
        tmpfs = tmp / "tmpfs"
        tmpfs.mkdir()
        lab = tmp / "lab"
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1G", "tmpfs", str(tmpfs)], check=True)
        try:
            lab_up(lab, throttle=None)
            print(
                f"{args.runs} rounds, {args.runtime} s per fio run; per-round ratios to bare fio:"
                " median (min-max); CPU: tierdeck's own process, % of one core"
            )
            measure(str(tmpfs), "tmpfs", args.runs, args.runtime, "256M", tmp)
            # The lab's btrfs raid1 cache is 256 MiB per device, and btrfs frees a deleted
            # file's space only at its next commit: a small file, so runs can follow runs.
            measure(str(lab / "mnt" / "cache"), "lab btrfs", args.runs, args.runtime, "64M", tmp)
        finally:
            subprocess.run(["umount", str(tmpfs)], check=False)
            lab_down(lab)


if __name__ == "__main__":
    main()
