"""``tierdeck bench run --hosts A,B`` against what an admin types without it:
``tierdeck --host A bench run ...`` then ``tierdeck --host B bench run ...``, paired.

    .venv/bin/python bench/fleet_bench.py [--rounds 3] [--runtime 2] [--no-append]

Two hosts of their own on this machine (network namespaces joined by veth pairs, each
with its own sshd: tests/support/netns.py), named in a hosts.toml. Both sides run the
same job file, one host after the other, and store their runs. Per round, the two
sides in alternating order:

- bandwidth: each host's figure from ``--hosts`` over its figure from ``--host``
  (the median over hosts), and an A/A control: a second ``--host`` pair over the first;
- time: the wall time of the one ``--hosts`` command over the two ``--host`` commands
  together (connections, inventories, the comparison at the end).

Medians of the rounds are printed. Run as root.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests.support, as bench/remote.py does

from bench._report import append_run  # noqa: E402
from tests.support.netns import NsHost, ns_hosts  # noqa: E402

CLI = [sys.executable, "-m", "tierdeck.app.cli"]
JOB = "[w]\nrw=write\nbs=1M\nsize=64M\nnumjobs=2\nioengine=psync\n"
INDEXES = (71, 72)  # apart from the tests' namespaces


def _common(job: Path, runtime: int) -> list[str]:
    return ["--job", str(job), "--runtime", str(runtime), "--direct", "0", "--json"]


def fleet_run(
    hosts: list[NsHost], env: dict[str, str], job: Path, runtime: int
) -> tuple[list[int], float]:
    targets = [a for h in hosts for a in ("--target", f"{h.name}:{h.folder}")]
    argv = [*CLI, "bench", "run", "--hosts", ",".join(h.name for h in hosts), *targets,
            *_common(job, runtime)]  # fmt: skip
    started = time.monotonic()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
    took = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(f"tierdeck --hosts failed: {done.stderr}")
    runs = [json.loads(line) for line in done.stdout.splitlines()]
    return [r["summary"]["write"]["bw_bytes"] for r in runs], took


def host_runs(
    hosts: list[NsHost], env: dict[str, str], job: Path, runtime: int
) -> tuple[list[int], float]:
    figures = []
    started = time.monotonic()
    for h in hosts:
        argv = [*CLI, "--host", h.name, "bench", "run", "--target", str(h.folder),
                *_common(job, runtime)]  # fmt: skip
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            raise SystemExit(f"tierdeck --host failed: {done.stderr}")
        figures.append(json.loads(done.stdout)["summary"]["write"]["bw_bytes"])
    return figures, time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runtime", type=int, default=2)
    parser.add_argument("--no-append", action="store_true", help="print only")
    args = parser.parse_args()
    from tierdeck.app.fleet.config import FleetHost, save_fleet

    ratios, controls, times = [], [], []
    with tempfile.TemporaryDirectory(prefix="tierdeck-bench-fleet-") as tmp:
        base = Path(tmp)
        with ns_hosts(INDEXES, base) as hosts:
            config = base / "config"
            save_fleet(tuple(FleetHost(h.name, h.name) for h in hosts), config / "hosts.toml")
            env = {**os.environ, "HOME": str(hosts[0].lab.home),
                   "TIERDECK_DATA_DIR": str(base / "data"), "TIERDECK_CONFIG_DIR": str(config)}  # fmt: skip
            env.pop("SSH_AUTH_SOCK", None)
            job = base / "job.fio"
            job.write_text(JOB)
            fleet_run(hosts, env, job, args.runtime)  # warm-up, both sides
            host_runs(hosts, env, job, args.runtime)
            for round_no in range(args.rounds):
                if round_no % 2 == 0:
                    hand, hand_s = host_runs(hosts, env, job, args.runtime)
                    ours, ours_s = fleet_run(hosts, env, job, args.runtime)
                else:
                    ours, ours_s = fleet_run(hosts, env, job, args.runtime)
                    hand, hand_s = host_runs(hosts, env, job, args.runtime)
                again, _ = host_runs(hosts, env, job, args.runtime)
                ratios.append(statistics.median(o / h for o, h in zip(ours, hand, strict=True)))
                controls.append(statistics.median(a / h for a, h in zip(again, hand, strict=True)))
                times.append(ours_s / hand_s)
    lines = [
        f"2 hosts (network namespaces), one after the other, job: write 1M x2 clones, "
        f"{args.runtime} s, {args.rounds} rounds",
        f"tierdeck --hosts / tierdeck --host per host, bandwidth: median "
        f"{statistics.median(ratios):.3f} (rounds {', '.join(f'{r:.3f}' for r in ratios)})",
        f"A/A --host / --host: median {statistics.median(controls):.3f} "
        f"(rounds {', '.join(f'{r:.3f}' for r in controls)})",
        f"wall time, one --hosts command / two --host commands: median "
        f"{statistics.median(times):.3f} (rounds {', '.join(f'{r:.3f}' for r in times)})",
    ]
    print("\n".join(lines))
    if not args.no_append:
        append_run("Fleet comparison: `bench/fleet_bench.py`", "bench/fleet_bench.py", lines)


if __name__ == "__main__":
    main()
