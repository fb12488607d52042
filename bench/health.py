"""How fast is `tierdeck health --json` on a big NAS? Ratios against a reference run in
this session, and the check that no sleeping disk was woken.

The 240-disk recorded NAS of tests/support/large_host.py (20 raidz2 pools, 10 mergerfs
pools), its disks answering smartctl through a shim on PATH: a POSIX sh script that
writes down the arguments of every call, waits the delay a real call takes, prints a
real smartctl document of the disk's model family (with the disk's own model, serial
and figures) and, for the 60 disks in standby, answers "Device is in STANDBY mode" with
exit status 2 when called with ``-n standby`` (and writes WOKEN down when called
without). Delays: ``--delay`` per device (default 0.1 s: `smartctl -a` sends a SATA disk
a handful of commands, identify, SMART data, thresholds, the error and self-test logs),
``--scan-delay`` for ``--scan-open`` (default 0.24 s: 1 ms per device opened).

Measured, as medians of N paired rounds:

1. `tierdeck health --json` on that NAS (a whole process: start, imports, the
   inventory, 240 smartctl calls, the JSON), wall time: the acceptance is < 1 s.
2. The same as a ratio to the floor of its smartctl part: the same 241 shim calls
   (the scan, then the disks by ``xargs -P`` at tierdeck's bound), run by the shell.
   And to the floor with the scan beside the calls (``&``), as tierdeck now runs
   the disks whose type sysfs makes certain: the shell's best with the same calls.
3. tierdeck's own CPU time (its process alone, from the harness): on a busy machine
   the wall time grows with the load, this does not.

With ``--against REV`` the same harness also runs that revision's tree (``git
archive`` first on PYTHONPATH, its readings kept apart), in the same rounds, order
alternating: this tree's wall and CPU over the revision's.

Then checks that every device call carried ``-n standby`` and a ``-d`` type, and that
no disk in standby was called otherwise (fails loudly if one was).

Prints the lines and appends them, dated, to docs/performance.md (--no-append: not).

Usage: .venv/bin/python bench/health.py [--runs N] [--delay S] [--against REV] [--no-append]
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
sys.path.insert(0, str(HERE.parent))

from tierdeck.backends.smart.collect import MAX_PARALLEL  # noqa: E402

from bench._report import append_run  # noqa: E402
from bench.cli_start import compile_bytecode, extract  # noqa: E402
from tests.support.large_host import (  # noqa: E402
    build_large_host,
    large_host_asleep,
    write_smartctl_answers,
)

DISKS = 240
SHIM = r"""#!/bin/sh
# smartctl as the big NAS answers it (bench/health.py)
d="$SMART_SHIM_DIR"
printf '%s\n' "$*" >> "$d/calls"
case " $* " in
  *" --scan-open "*) sleep "$SMART_SHIM_SCAN_DELAY"; exec cat "$d/scan.json";;
esac
sleep "$SMART_SHIM_DELAY"
for last do :; done
name=${last#/dev/}
if [ -e "$d/asleep.d/$name" ]; then
  case " $* " in *" -n standby "*) cat "$d/standby.json"; exit 2;; esac
  printf 'WOKEN %s\n' "$name" >> "$d/calls"
fi
exec cat "$d/disks/$name.json"
"""


def prepare(work: Path, delay: float, scan_delay: float) -> tuple[Path, dict[str, str]]:
    recording = build_large_host(work / "nas", disks=DISKS)
    answers = write_smartctl_answers(work / "smart", disks=DISKS)
    asleep = answers / "asleep.d"
    asleep.mkdir()
    for name in (answers / "asleep").read_text().split():
        (asleep / name).touch()
    bin_dir = work / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "smartctl"
    shim.write_text(SHIM)
    shim.chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "SMART_SHIM_DIR": str(answers),
        "SMART_SHIM_DELAY": str(delay),
        "SMART_SHIM_SCAN_DELAY": str(scan_delay),
        # each round keeps its readings (as `tierdeck health` does): in a history of the
        # bench's own, never the user's
        "TIERDECK_DATA_DIR": str(work / "data"),
    }
    return recording, env


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, str, str]:
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:3])} failed ({proc.returncode}): {proc.stderr[-800:]}")
    return elapsed, proc.stdout, proc.stderr


def _cpu(stderr: str) -> float:
    """The harness's last line: ``cpu SECONDS`` of its own process."""
    return float(stderr.strip().splitlines()[-1].split()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--delay", type=float, default=0.1)
    parser.add_argument("--scan-delay", type=float, default=0.24)
    parser.add_argument("--no-append", action="store_true")
    parser.add_argument("--against", help="a git revision run in the same rounds, paired")
    args = parser.parse_args()
    compile_bytecode(HERE.parent)
    with tempfile.TemporaryDirectory(prefix="tierdeck-health-bench-") as tmp:
        work = Path(tmp)
        recording, env = prepare(work, args.delay, args.scan_delay)
        before_env = None
        if args.against:
            before = extract(args.against, work / "before")
            compile_bytecode(before)
            before_env = {**env, "PYTHONPATH": str(before),
                          "TIERDECK_DATA_DIR": str(work / "data-before")}  # fmt: skip
        calls = work / "smart" / "calls"
        health = [sys.executable, str(HERE / "_health_harness.py"), str(recording)]
        names = " ".join(sorted(p.stem for p in (work / "smart" / "disks").iterdir()))
        floor = ["sh", "-c", "smartctl --json --scan-open >/dev/null; printf '%s\\n' " + names
                 + f" | xargs -P {MAX_PARALLEL} -I@ smartctl --json -n standby -a -d sat /dev/@"
                 " >/dev/null; true"]  # fmt: skip
        # the scan beside the calls (every disk here is SATA: tierdeck reads them early)
        beside = ["sh", "-c", floor[2].replace("--scan-open >/dev/null;", "--scan-open >/dev/null &")
                  .replace("; true", "; wait; true")]  # fmt: skip
        assert beside[2].count("&") == 1 and "; wait; true" in beside[2], beside[2]
        walls, floors, ratios, cpus = [], [], [], []
        beside_ratios: list[float] = []
        pair_walls, pair_cpus = [], []
        report = ""
        timed(health, env)  # untimed: the page cache and the recording's first read
        if before_env is not None:
            timed(health, before_env)
        for round_ in range(args.runs):
            if before_env is not None and round_ % 2:
                then, _, then_err = timed(health, before_env)
            calls.unlink(missing_ok=True)
            wall, report, err = timed(health, env)
            seen = calls.read_text().splitlines()
            if before_env is not None and not round_ % 2:
                then, _, then_err = timed(health, before_env)
            if before_env is not None:
                pair_walls.append(wall / then)
                pair_cpus.append(_cpu(err) / _cpu(then_err))
            base, _, _ = timed(floor, env)
            overlapped, _, _ = timed(beside, env)
            beside_ratios.append(wall / overlapped)
            walls.append(wall)
            floors.append(base)
            ratios.append(wall / base)
            cpus.append(_cpu(err))
        doc = json.loads(report)
        woken = [line for line in seen if line.startswith("WOKEN")]
        device_calls = [
            line for line in seen if "--scan-open" not in line and not line.startswith("WOKEN")
        ]
        bad = [c for c in device_calls if " -n standby " not in f" {c} " or " -d " not in f" {c} "]
        asleep = sum(1 for d in doc["disks"] if d["state"] == "asleep")
        if woken or bad or len(device_calls) != DISKS or asleep != len(large_host_asleep(DISKS)):
            raise SystemExit(f"standby check failed: woken {woken[:3]}, calls without -n standby "
                             f"or -d {bad[:3]}, {len(device_calls)} device calls, {asleep} asleep")  # fmt: skip
    load = os.getloadavg()[0]
    lines = [
        f"tierdeck health --json, {DISKS}-disk recorded NAS, smartctl shim {args.delay:.2f} s per "
        f"device ({args.scan_delay:.2f} s scan), bound {MAX_PARALLEL}, {args.runs} rounds:",
        f"  wall: {statistics.median(walls):.2f} s median (max {max(walls):.2f} s; goal < 1 s)",
        f"  / the same smartctl calls by sh and xargs -P {MAX_PARALLEL}: "
        f"{statistics.median(ratios):.2f}x (spread {min(ratios):.2f}-{max(ratios):.2f}; "
        f"floor {statistics.median(floors):.2f} s)",
        f"  / the same with the scan beside the calls: {statistics.median(beside_ratios):.2f}x "
        f"(spread {min(beside_ratios):.2f}-{max(beside_ratios):.2f})",
        f"  tierdeck's own CPU (its process, not smartctl's): {statistics.median(cpus):.2f} s median",
        f"  standby: {asleep} disks asleep, none woken; all {len(device_calls)} device calls "
        "with -n standby and -d",
    ]
    if args.against:
        lines.append(
            f"  this tree / {args.against}, paired: wall {statistics.median(pair_walls):.2f}x "
            f"(spread {min(pair_walls):.2f}-{max(pair_walls):.2f}), own CPU "
            f"{statistics.median(pair_cpus):.2f}x (spread {min(pair_cpus):.2f}-{max(pair_cpus):.2f})"
        )
    print("\n".join(lines))
    if not args.no_append:
        append_run("Disk health: `bench/health.py`", "Measured", lines, load=load)


if __name__ == "__main__":
    main()
