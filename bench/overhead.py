"""Does tierdeck measure what plain fio measures, and how much CPU does it burn? (root)

Method. For each target (a tmpfs this script mounts, and the btrfs raid1 "cache" of a
throwaway lab NAS it builds) and each job file below, every round runs the job file
these ways, in an order rotated from round to round (so no way always goes first):

1. plain fio, the reference: ``fio JOBFILE --output-format=json`` with its working
   directory a fresh empty directory on the target (``TARGET/.ovh-ref-N``, removed
   afterwards). No tierdeck option at all: the job file exactly as the user wrote it,
   laid out by fio's own defaults (one file per clone and per ``nrfiles``);
2. plain fio again, the same way: the A/A control. Its ratio to 1 is how far two
   identical runs differ on this machine in the same minute: the noise floor;
3. ``tierdeck bench run --job JOBFILE --target TARGET --json --no-save`` (through
   ``_cli_harness.py``, which also counts tierdeck's own CPU; fio is its child and not
   counted);
4. optionally the live TUI run screen (``_tui_harness.py``: headless Textual, real
   runner, charts and device panel redrawn every second; CPU in the steady state, from
   the first to the last live sample).

A ratio is taken within its round (numerator and denominator ran in the same minute),
then the median and the min-max over rounds are reported. Bandwidth is read + write
bytes/s over the whole file, summed the way fio sums a reporting group (groups that
stonewall one another add their durations): the same formula as tierdeck's summary,
applied to plain fio's JSON here. Goal: every tierdeck median inside the A/A band and
>= 0.98; tierdeck's CPU under 5 % of one core. The A/A band is 1 +- the largest distance
of a single A/A round from 1.0: how far two identical plain runs drift apart here (the
min-max of the A/A ratios need not contain 1.0 itself, so it is not the band).

Why this reference. The previous version of this script compared tierdeck with "exactly
tierdeck's fio command": the job as tierdeck had rewritten it. When tierdeck put every
clone of a job into one shared file (before 0.2), both sides carried the same distortion
and the ratio stayed at 1.0 while a ``numjobs=2`` job ran at half the bandwidth of
plain fio on tmpfs. The reference must be what the user would get without tierdeck.

The job files (``--jobs``; each time_based, so a run lasts --runtime seconds):
one-job; clones-2 and clones-8 (``numjobs`` without a filename: one file per clone);
nrfiles-4; stonewall-2 (seq write, then stonewalled rand read 4K QD32 direct, half the
runtime each); shared-file (``numjobs=2`` with ``filename=``: the clones share it, as in
plain fio); randread-4K (QD32, direct). All writes are buffered 1M sequential, QD8: the
case that showed the shared file on tmpfs. A test file is --file-size on the tmpfs
(sized to the largest job) and 8 MiB on the lab's 256 MiB btrfs raid1, where a deleted
file's space comes back only at the next commit: the target is synced after every run.
Anything a tierdeck run leaves in the target is reported ("left behind") and removed.

Another tierdeck tree: ``--tierdeck-python /other/tree/.venv/bin/python`` runs the
harnesses with that interpreter, so its ``tierdeck`` package is measured (the lab and
the plain fio runs do not depend on it). For the "before" figures of the one-file-per-clone layout:
``--tierdeck-python /work/before/.venv/bin/python --jobs clones-2,clones-8``.

Reproduce (from the checkout, as root; the defaults take about 30 min on 2 cores)::

    sudo .venv/bin/python bench/overhead.py --json-out /tmp/overhead.json
    sudo .venv/bin/python bench/overhead.py --quick          # a short check, ~7 min
    sudo .venv/bin/python bench/overhead.py --targets tmpfs --jobs clones-2 --runs 3
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
MiB = 1 << 20
DIRECTIONS = ("read", "write", "trim")
WAYS = ("plain", "aa", "cli", "tui")
GOAL_RATIO = 0.98
GOAL_CPU_PCT = 5.0


# --------------------------------------------------------------------------- job files


@dataclass(frozen=True)
class Job:
    name: str
    what: str
    sections: str  # fio job sections, after the common [global]
    files: int  # test files fio creates, each of one file size
    reads: bool = False

    def text(self, file_size_mib: int, runtime: int) -> str:
        """The job file. Every job is time-based: runtime means runtime."""
        half = max(1, math.ceil(runtime / 2))
        body = self.sections.format(F=f"{file_size_mib}M", F4=f"{4 * file_size_mib}M", R2=half)
        return (
            f"; bench/overhead.py: {self.what}\n"
            "[global]\nioengine=libaio\nrw=write\nbs=1M\niodepth=8\ndirect=0\n"
            f"size={file_size_mib}M\nruntime={runtime}\ntime_based\n\n{body}"
        )


JOBS: tuple[Job, ...] = (
    Job("one-job", "one job, seq write 1M QD8, buffered", "[seqwrite]\n", 1),
    Job("clones-2", "numjobs=2, no filename: one file per clone", "[seqwrite]\nnumjobs=2\n", 2),
    Job("clones-8", "numjobs=8, no filename: one file per clone", "[seqwrite]\nnumjobs=8\n", 8),
    Job("nrfiles-4", "nrfiles=4: four files of one job", "[seqwrite]\nnrfiles=4\nsize={F4}\n", 4),
    Job(
        "stonewall-2",
        "two jobs, the second stonewalled: seq write 1M, then rand read 4K QD32 direct",
        "[seqwrite]\nruntime={R2}\n\n"
        "[randread]\nstonewall\nrw=randread\nbs=4k\niodepth=32\ndirect=1\nruntime={R2}\n",
        2,
        reads=True,
    ),
    Job(
        "shared-file",
        "numjobs=2 with filename=: both clones share the named file, as in plain fio",
        "[seqwrite]\nnumjobs=2\nfilename=ovh-shared\n",
        1,
    ),
    Job(
        "randread-4K",
        "one job, rand read 4K QD32, O_DIRECT",
        "[randread]\nrw=randread\nbs=4k\niodepth=32\ndirect=1\n",
        1,
        reads=True,
    ),
)


# --------------------------------------------------------------------------- bandwidth


def _aggregate(entries: Sequence[dict[str, Any]], direction: str) -> float:
    """One direction summed over fio job entries the way fio sums a reporting group
    (and tierdeck's summary does): total bytes over the summed durations of the groups,
    a group lasting as long as its longest job. One entry with I/O: fio's own figure."""
    stats = [(e["groupid"], e[direction]) for e in entries]
    with_io = [s for _, s in stats if s.get("io_bytes", 0) or s.get("total_ios", 0)]
    if len(with_io) == 1:
        return float(with_io[0]["bw_bytes"])
    group_runtime: dict[int, int] = {}
    for group, s in stats:
        group_runtime[group] = max(group_runtime.get(group, 0), int(s.get("runtime", 0)))
    runtime_ms = sum(group_runtime.values())
    io_bytes = sum(int(s.get("io_bytes", 0)) for _, s in stats)
    return float(1000 * io_bytes // runtime_ms) if runtime_ms else 0.0


def fio_bandwidth(report: dict[str, Any]) -> tuple[float, dict[str, float]]:
    """Whole file and per job (clones added up), bytes/s, from plain fio's JSON."""
    entries = [e for e in report["jobs"] if e.get("jobname") != "All clients"]
    total = sum(_aggregate(entries, d) for d in DIRECTIONS if entries and d in entries[0])
    per_job: dict[str, list[dict[str, Any]]] = {}
    for e in entries:
        per_job.setdefault(e["jobname"], []).append(e)
    return total, {
        name: sum(_aggregate(es, d) for d in DIRECTIONS if d in es[0])
        for name, es in per_job.items()
    }


# --------------------------------------------------------------------------- ways of running


class RunFailed(Exception):
    pass


@dataclass
class Target:
    label: str
    path: Path
    file_size_mib: int
    fs: str
    refs: itertools.count[int] = field(default_factory=itertools.count)

    def sync(self) -> None:
        # btrfs returns a deleted file's space at its next commit: force it, so the next
        # run's free-space check sees it (a no-op on tmpfs).
        subprocess.run(["sync", "-f", str(self.path)], check=False)

    def entries(self) -> set[str]:
        return set(os.listdir(self.path))


def run_plain(target: Target, jobfile: Path) -> dict[str, Any]:
    """The user's job file with plain fio, in a fresh empty directory on the target."""
    workdir = target.path / f".ovh-ref-{next(target.refs)}"
    workdir.mkdir()
    try:
        proc = subprocess.run(
            ["fio", str(jobfile), "--output-format=json"],
            cwd=workdir,
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            raise RunFailed(f"plain fio failed: {(proc.stderr or proc.stdout)[-1500:]}")
        total, per_job = fio_bandwidth(json.loads(proc.stdout[proc.stdout.index("{") :]))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
        target.sync()
    return {"bw": total, "jobs": per_job}


def run_harness(python: str, script: str, target: Target, jobfile: Path, env: dict[str, str]):
    """A harness under ``python`` (whose tierdeck package is measured). Whatever the run
    leaves in the target is reported and removed: tierdeck should leave nothing."""
    before = target.entries()
    try:
        proc = subprocess.run(
            [python, str(HERE / script), str(target.path), str(jobfile)],
            capture_output=True,
            text=True,
            env=env,
        )
    finally:
        left = sorted(target.entries() - before)
        for name in left:
            path = target.path / name
            shutil.rmtree(path) if path.is_dir() else path.unlink(missing_ok=True)
        target.sync()
    if proc.returncode != 0:
        raise RunFailed(f"{script} failed: {(proc.stderr or proc.stdout)[-1500:]}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    result["left_behind"] = left
    return result


# --------------------------------------------------------------------------- statistics


def spread(values: Sequence[float]) -> dict[str, Any]:
    return {
        "median": statistics.median(values),
        "min": min(values),
        "max": max(values),
        "rounds": list(values),
    }


def fmt(s: dict[str, Any] | None) -> str:
    if s is None:
        return "-"
    return f"{s['median']:.3f} ({s['min']:.2f}-{s['max']:.2f})"


def cpu_pct(runs: Iterable[dict[str, Any]]) -> float:
    return statistics.median(100 * r["cpu_s"] / r["wall_s"] for r in runs if r["wall_s"] > 0)


def noise(aa: dict[str, Any]) -> float:
    """How far a single A/A round strayed from 1.0: the half-width of the band."""
    return float(max(abs(aa["min"] - 1.0), abs(aa["max"] - 1.0)))


def verdict(aa: dict[str, Any], ratio: dict[str, Any] | None) -> bool | None:
    if ratio is None:
        return None
    inside = abs(ratio["median"] - 1.0) <= noise(aa)
    return inside and ratio["median"] >= GOAL_RATIO


def measure(
    target: Target,
    job: Job,
    *,
    runs: int,
    runtime: int,
    with_tui: bool,
    python: str,
    tmp: Path,
    env: dict[str, str],
) -> dict[str, Any]:
    jobfile = tmp / f"{target.label}-{job.name}.fio"
    jobfile.write_text(job.text(target.file_size_mib, runtime))
    ways = [w for w in WAYS if w != "tui" or with_tui]
    results: dict[str, list[dict[str, Any]]] = {w: [] for w in ways}
    steps: dict[str, Callable[[], dict[str, Any]]] = {
        "plain": lambda: run_plain(target, jobfile),
        "aa": lambda: run_plain(target, jobfile),
        "cli": lambda: run_harness(python, "_cli_harness.py", target, jobfile, env),
        "tui": lambda: run_harness(python, "_tui_harness.py", target, jobfile, env),
    }
    for r in range(runs):
        # Rotate the order, so no way of running always goes first (warm caches, the
        # machine's slow minute).
        for way in ways[r % len(ways) :] + ways[: r % len(ways)]:
            results[way].append(steps[way]())
    plain = [x["bw"] for x in results["plain"]]

    def ratios(way: str) -> dict[str, Any] | None:
        if way not in results:
            return None
        return spread([x["bw"] / p for x, p in zip(results[way], plain, strict=True)])

    aa, cli, tui = ratios("aa"), ratios("cli"), ratios("tui")
    assert aa is not None and cli is not None
    row: dict[str, Any] = {
        "target": target.label,
        "fs": target.fs,
        "job": job.name,
        "what": job.what,
        "jobfile": jobfile.read_text(),
        "plain_mib_s": statistics.median(plain) / MiB,
        "aa": aa,
        "cli": cli,
        "cli_cpu_pct": cpu_pct(results["cli"]),
        "tui": tui,
        "tui_cpu_pct": cpu_pct(results["tui"]) if tui is not None else None,
        "goal_cli": verdict(aa, cli),
        "goal_tui": verdict(aa, tui),
        "left_behind": sorted(
            {n for w in ("cli", "tui") for x in results.get(w, ()) for n in x["left_behind"]}
        ),  # fmt: skip
        "raw_mib_s": {w: [x["bw"] / MiB for x in results[w]] for w in ways},
        "raw_cpu_s": {w: [x["cpu_s"] for x in results[w]] for w in ways if w in ("cli", "tui")},
        "raw_wall_s": {w: [x["wall_s"] for x in results[w]] for w in ways if w in ("cli", "tui")},
        "cli_warnings": sorted({w for x in results["cli"] for w in x.get("warnings", ())}),
    }
    # Per job of a multi-job file, when the tierdeck tree reports jobs separately.
    names = list(results["plain"][0]["jobs"])
    if len(names) > 1 and all(x.get("jobs") for x in results["cli"]):
        row["per_job_cli"] = {
            n: spread(
                [
                    c["jobs"][n] / p["jobs"][n]
                    for c, p in zip(results["cli"], results["plain"], strict=True)
                ]
            )  # fmt: skip
            for n in names
        }
    return row


def line(row: dict[str, Any]) -> str:
    if "error" in row:
        return f"{row['target']:<9} {row['job']:<12} FAILED: {row['error']}"
    tui = ""
    if row["tui"] is not None:
        tui = f" | TUI {fmt(row['tui'])} cpu {row['tui_cpu_pct']:.1f}%"
    goals = [g for g in (row["goal_cli"], row["goal_tui"]) if g is not None]
    left = f" | left behind: {', '.join(row['left_behind'])}" if row["left_behind"] else ""
    return (
        f"{row['target']:<9} {row['job']:<12} plain {row['plain_mib_s']:7.0f} MiB/s"
        f" | A/A {fmt(row['aa'])} | CLI/plain {fmt(row['cli'])} cpu {row['cli_cpu_pct']:.1f}%"
        f"{tui} | goal {'met' if all(goals) else 'NOT met'}{left}"
    )


# --------------------------------------------------------------------------- setup


def tierdeck_tree(python: str) -> dict[str, Any]:
    """Which tierdeck the harnesses will import: its source folder and git commit."""
    proc = subprocess.run(
        [python, "-c", "import tierdeck.app.cli as c; print(c.__file__)"],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise SystemExit(f"{python} cannot import tierdeck.app.cli: {proc.stderr.strip()}")
    root = Path(proc.stdout.strip()).resolve().parent.parent
    git = ["git", "-c", f"safe.directory={root}", "-C", str(root)]
    commit = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run([*git, "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True)  # fmt: skip
    return {
        "python": python,
        "tree": str(root),
        "commit": commit.stdout.strip() or None,
        "dirty": bool(dirty.stdout.strip()),
    }


def free_mib(path: Path) -> int:
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize // MiB


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0] if __doc__ else None,
        epilog="See the module docstring (bench/overhead.py) for the method.",
    )
    parser.add_argument("--runs", type=int, default=5, help="rounds per target and job (5)")
    parser.add_argument("--runtime", type=int, default=6, help="seconds per fio run (6)")
    parser.add_argument("--quick", action="store_true", help="a short check: --runs 2 --runtime 3")
    parser.add_argument(
        "--jobs", default=",".join(j.name for j in JOBS), help="comma list (default: all)"
    )
    parser.add_argument("--targets", default="tmpfs,lab", help="comma list of tmpfs, lab")
    parser.add_argument(
        "--tui",
        choices=("one", "all", "off"),
        default="one",
        help="TUI run screen for the first job of each target (one), every job, or none",
    )
    parser.add_argument(
        "--file-size", type=int, default=128, metavar="MIB", help="per test file on tmpfs"
    )
    parser.add_argument(
        "--tierdeck-python",
        default=sys.executable,
        metavar="PATH",
        help="interpreter whose tierdeck package is measured (default: this one)",
    )
    parser.add_argument("--json-out", type=Path, metavar="PATH", help="write results as JSON")
    args = parser.parse_args(argv)
    if args.quick:
        args.runs, args.runtime = 2, 3
    known = {j.name for j in JOBS}
    args.job_list = [j for j in JOBS if j.name in args.jobs.split(",")]
    unknown = set(args.jobs.split(",")) - known
    if unknown or not args.job_list:
        parser.error(f"--jobs: unknown {sorted(unknown)}; choose from {sorted(known)}")
    args.target_list = args.targets.split(",")
    if not set(args.target_list) <= {"tmpfs", "lab"} or not args.target_list:
        parser.error("--targets: tmpfs, lab or both")
    if args.runs < 1 or args.runtime < 2:
        parser.error("--runs >= 1 and --runtime >= 2 (the TUI needs two live samples)")
    return args


LAB_FILE_MIB = 8  # the lab's btrfs raid1 is 256 MiB per device


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    if os.geteuid() != 0:
        raise SystemExit("bench/overhead.py needs root (tmpfs mount and lab NAS)")
    tree = tierdeck_tree(args.tierdeck_python)
    fio_version = subprocess.run(["fio", "--version"], capture_output=True, text=True).stdout
    started = time.time()
    meta = {
        "started_at": started,
        "load_average_start": os.getloadavg(),
        "tierdeck": tree,
        "fio": fio_version.strip(),
        "host": {"kernel": platform.release(), "cpus": os.cpu_count()},
    }
    rows: list[dict[str, Any]] = []
    most_files = max(j.files for j in args.job_list)
    with tempfile.TemporaryDirectory(prefix="tierdeck-overhead-", dir="/var/tmp") as tmp_name:
        tmp = Path(tmp_name)
        env = {**os.environ, "TIERDECK_DATA_DIR": str(tmp / "data")}  # never the user's
        mounted: Path | None = None
        lab: Path | None = None
        try:
            targets: list[Target] = []
            if "tmpfs" in args.target_list:
                mounted = tmp / "tmpfs"
                mounted.mkdir()
                # room for the largest job's files, with a quarter to spare
                size = most_files * args.file_size * 5 // 4 + 64
                subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}M", "tmpfs",
                                str(mounted)], check=True)  # fmt: skip
                targets.append(Target("tmpfs", mounted, args.file_size, "tmpfs"))
            if "lab" in args.target_list:
                from tierdeck.app.machine.lab import lab_up

                lab = tmp / "lab"
                lab_up(lab, throttle=None)
                cache = lab / "mnt" / "cache"
                need = most_files * LAB_FILE_MIB * 2  # copy-on-write: old and new blocks
                if free_mib(cache) < need * 5 // 4:
                    raise SystemExit(f"lab cache has {free_mib(cache)} MiB free, need {need}")
                targets.append(Target("lab", cache, LAB_FILE_MIB, "btrfs raid1 (loops)"))
            print(
                f"{args.runs} rounds x {args.runtime} s per fio run; tierdeck from "
                f"{tree['tree']} ({(tree['commit'] or '?')[:10]}{', dirty' if tree['dirty'] else ''})"
                "\nratios per round to plain fio (the job file run by fio in an empty "
                "directory): median (min-max); cpu: tierdeck's own process, % of one core",
                flush=True,
            )
            for target in targets:
                for i, job in enumerate(args.job_list):
                    with_tui = args.tui == "all" or (args.tui == "one" and i == 0)
                    try:
                        row = measure(target, job, runs=args.runs, runtime=args.runtime,
                                      with_tui=with_tui, python=args.tierdeck_python,
                                      tmp=tmp, env=env)  # fmt: skip
                    except RunFailed as exc:
                        row = {"target": target.label, "job": job.name, "error": str(exc)}
                    rows.append(row)
                    print(line(row), flush=True)
                    if args.json_out is not None:
                        write_report(args.json_out, args, meta, rows, complete=False)
            if args.json_out is not None:
                write_report(args.json_out, args, meta, rows, complete=True)
        finally:
            if mounted is not None:
                subprocess.run(["umount", str(mounted)], check=False)
            if lab is not None:
                from tierdeck.app.machine.lab import lab_down

                lab_down(lab)
    print(summary(rows, started))
    if args.json_out is not None:
        print(f"results written to {args.json_out}")


def summary(rows: Sequence[dict[str, Any]], started: float) -> str:
    measured = [r for r in rows if "error" not in r]
    goals = [g for r in measured for g in (r["goal_cli"], r["goal_tui"]) if g is not None]
    met = len(measured) == len(rows) and all(goals)
    tui = [r["tui_cpu_pct"] for r in measured if r["tui_cpu_pct"] is not None]
    cli = [r["cli_cpu_pct"] for r in measured]
    failed = len(rows) - len(measured)
    return (
        f"goal: every median inside the A/A band and >= {GOAL_RATIO}: "
        f"{'met' if met else 'NOT met'} ({sum(goals)} of {len(goals)}"
        f"{f', {failed} failed' if failed else ''})\n"
        f"goal: tierdeck < {GOAL_CPU_PCT:g} % of a core at 1 Hz (TUI steady state): "
        + (f"{'met' if max(tui) < GOAL_CPU_PCT else 'NOT met'} (max {max(tui):.1f} %)" if tui else "not measured")
        + (f"; whole CLI command incl. start-up {min(cli):.1f}-{max(cli):.1f} %" if cli else "")
        + f"\nload average {' '.join(f'{x:.1f}' for x in os.getloadavg())}; "
        f"took {time.time() - started:.0f} s"
    )  # fmt: skip


def write_report(path: Path, args: argparse.Namespace, meta: dict[str, Any], rows: list[dict[str, Any]], complete: bool) -> None:  # fmt: skip
    """Rewritten after every row, so an interrupted long run keeps what it measured."""
    measured = [r for r in rows if "error" not in r]
    goals = [g for r in measured for g in (r["goal_cli"], r["goal_tui"]) if g is not None]
    report = {
        "schema": "tierdeck.overhead/1",
        **meta,
        "complete": complete,
        "duration_s": time.time() - meta["started_at"],
        "load_average_end": os.getloadavg(),
        "runs": args.runs,
        "runtime_s": args.runtime,
        "goal": {
            "ratio": GOAL_RATIO,
            "cpu_pct": GOAL_CPU_PCT,
            "bandwidth_met": len(measured) == len(rows) and all(goals),
        },
        "results": rows,
    }
    tmp = path.with_name(path.name + ".part")
    tmp.write_text(json.dumps(report, indent=2) + "\n")
    tmp.replace(path)


if __name__ == "__main__":
    main()
