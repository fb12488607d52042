"""How fast does the mover move? Against ``rsync -a --remove-source-files`` followed by
one ``sync``: the reference a mover that keeps its guarantee (every copy on the disk
before its source is deleted) must be compared with. Timed in turns in this script.

Branches: a cache folder and a slow folder on this machine's disk, each bind-mounted
onto itself (the mover refuses a branch that is not a mountpoint). Before every timed
move the data is copied onto the cache from a pristine set, flushed (sync) and dropped
from the page cache, so each tool reads from the disk as a mover at night would. The layout has a slow pool
(never mounted) for its minfreespace: mergerfs's 4 GiB, or what the work disk can keep
free beside the data (the mover keeps it free on its slow branch).

- tierdeck: ``tierdeck mover run --layout L --min-age-days 0`` in a fresh process (the
  scan, the open-files check of every process, the journal, syncfs durability, the run's
  record in the history: what the systemd timer pays);
- rsync; sync (the reference): rsync -a --remove-source-files, then ``sync -f`` of both
  branches: what rsync costs once its result is on the disk;
- rsync -a --remove-source-files, for scale: it never fsyncs, so when it exits the
  copies may still be only in memory while the sources are gone; no durable mover can
  match it (an earlier goal against it is withdrawn: see the ceiling below);
- rsync -a --fsync --remove-source-files, for scale: rsync made durable per file.

tierdeck runs with a bytecode cache (PYTHONPYCACHEPREFIX in the work folder, filled
before the first round, untimed), as an installed package has its .pyc files: this
checkout runs with PYTHONDONTWRITEBYTECODE=1, which would compile ~80 modules on every
start (~0.1 s) that no installed tierdeck pays.

Data sets: 2,000 small files (1-64 KiB, 40 folders) and 3 large files (128 MiB each).
Printed per set: first the ratio (rsync; sync) time / tierdeck time per round (above
1.0: tierdeck faster), median and range; then the same against the other two for
scale; and the ceiling for any durable mover, rsync time / (rsync; sync) time: what a
mover exactly as fast as plain rsync would score against it. Goal: at least 1.0x
rsync-then-sync for both sets, every guarantee kept.

The ratio lines are also appended to docs/performance.md, as a dated subsection at
the end of the mover's speed section (--no-append: print only).

Usage (root): .venv/bin/python bench/mover.py [--rounds N] [--dir DIR] [--no-append]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

# The report's writer is a sibling script, found from the checkout's root.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench._report import append_run  # noqa: E402

SETS = {
    "2000 small files": lambda rng: [
        (f"d{i % 40:02d}/f{i:04d}", rng.randint(1024, 65536)) for i in range(2000)
    ],  # fmt: skip
    "3 large files": lambda rng: [(f"big/f{i}", 128 * 2**20) for i in range(3)],
}


def make_pristine(folder: Path, files: list[tuple[str, int]], rng: random.Random) -> None:
    block = rng.randbytes(2**20)
    for rel, size in files:
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as fh:
            for offset in range(0, size, len(block)):
                fh.write(block[: min(len(block), size - offset)])
        os.utime(path, (1_600_000_000, 1_600_000_000))


def empty(folder: Path) -> None:
    for entry in folder.iterdir():
        shutil.rmtree(entry) if entry.is_dir() else entry.unlink()


def fresh_cache(pristine: Path, cache: Path, slow: Path) -> None:
    empty(cache)
    empty(slow)
    subprocess.run(["cp", "-a", f"{pristine}/.", str(cache)], check=True)
    subprocess.run(["sync"], check=True)
    Path("/proc/sys/vm/drop_caches").write_text("3\n")


def check_moved(pristine: Path, cache: Path, slow: Path, tool: str) -> None:
    def files(root: Path) -> dict[str, int]:
        return {p.relative_to(root).as_posix(): p.stat().st_size for p in root.rglob("*") if p.is_file()}  # fmt: skip

    if files(slow) != files(pristine) or files(cache):
        raise SystemExit(f"{tool} did not move everything")


def tools(layout: Path, cache: Path, slow: Path) -> dict[str, list[str]]:
    return {
        "tierdeck": [
            sys.executable,
            "-m",
            "tierdeck.app.cli",
            "mover",
            "run",
            "--layout",
            str(layout),
            "--min-age-days",
            "0",
        ],  # fmt: skip
        "rsync": ["rsync", "-a", "--remove-source-files", f"{cache}/", f"{slow}/"],
        "rsync --fsync": [
            "rsync",
            "-a",
            "--fsync",
            "--remove-source-files",
            f"{cache}/",
            f"{slow}/",
        ],  # fmt: skip
        "rsync; sync": [
            "sh",
            "-c",
            'rsync -a --remove-source-files "$1/" "$2/" && sync -f "$1" "$2"',
            "rsync-then-sync",
            str(cache),
            str(slow),
        ],  # fmt: skip
    }


def bytecode_env(work: Path) -> dict[str, str]:
    """The environment of the timed commands, with a bytecode cache for tierdeck's
    modules (compiled here, untimed)."""
    import tierdeck

    env = {**os.environ, "TIERDECK_DATA_DIR": str(work / "data"),
           "PYTHONPYCACHEPREFIX": str(work / "pycache")}  # fmt: skip
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    package = Path(tierdeck.__file__).parent
    folders = [str(package / name) for name in ("app", "backends", "core")]
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(package / "__init__.py"),
                    *folders], check=True, env=env, stdout=subprocess.DEVNULL)  # fmt: skip
    return env


def bench_minfreespace(work: Path) -> int:
    """mergerfs's 4 GiB, or less where the work disk could not keep that much free once
    the largest data set is there three times (pristine, cache, slow): the mover keeps
    minfreespace free on its slow branch and the layout rules refuse a pool whose
    branches have less, so the default would move nothing on a small disk."""
    st = os.statvfs(work)
    need = 3 * max(sum(size for _, size in build(random.Random(10))) for build in SETS.values())
    left = st.f_bavail * st.f_frsize - need
    if left <= 0:
        raise SystemExit(f"{work}: too little free space for the data sets (need {need} bytes)")
    return min(4 * 2**30, left // 2)


def write_layout(path: Path, cache: Path, slow: Path, minfreespace: int) -> None:
    """The recipe's layout over the two branches, with a slow pool (never mounted: the
    mover writes to its branches directly) to carry the bench's minfreespace."""
    from tierdeck.app.layout.files import save_layout
    from tierdeck.core.layout.model import Branch, PoolSpec, default_layout

    layout = default_layout((str(cache),), (Branch(str(slow)),), str(path.parent / "pool"),
                            str(path.parent / "slow-pool"))  # fmt: skip

    def fitted(pool: PoolSpec) -> PoolSpec:
        return replace(pool, options=replace(pool.options, minfreespace_bytes=minfreespace))

    assert layout.slow_pool is not None
    save_layout(path, replace(layout, tiered_pool=fitted(layout.tiered_pool),
                              slow_pool=fitted(layout.slow_pool)))  # fmt: skip


Figures = dict[str, dict[str, list[float]]]  # per data set, per tool: one per round


def measure(rounds: int, work: Path, minfreespace: int) -> tuple[Figures, Figures]:
    """Wall times and CPU times (user + system, the tool's processes) per round."""
    cache, slow, pristine_root = work / "cache", work / "slow", work / "pristine"
    layout = work / "bench.toml"
    results: Figures = {}
    cpu: Figures = {}
    env = bytecode_env(work)
    for folder in (cache, slow):
        folder.mkdir()
        subprocess.run(["mount", "--bind", str(folder), str(folder)], check=True)
    try:
        write_layout(layout, cache, slow, minfreespace)
        commands = tools(layout, cache, slow)
        for name, build in SETS.items():
            rng = random.Random(10)
            pristine = pristine_root / name.replace(" ", "-")
            make_pristine(pristine, build(rng), rng)
            times: dict[str, list[float]] = {tool: [] for tool in commands}
            used: dict[str, list[float]] = {tool: [] for tool in commands}
            order = list(commands)
            for _ in range(rounds):
                for tool in order:
                    fresh_cache(pristine, cache, slow)
                    before = _children_cpu()
                    start = time.perf_counter()
                    subprocess.run(commands[tool], check=True, env=env, stdout=subprocess.DEVNULL)
                    times[tool].append(time.perf_counter() - start)
                    used[tool].append(_children_cpu() - before)
                    check_moved(pristine, cache, slow, tool)
                order = order[1:] + order[:1]  # alternate who goes first
            results[name] = times
            cpu[name] = used
            shutil.rmtree(pristine)
    finally:
        for folder in (cache, slow):
            subprocess.run(["umount", str(folder)], check=False)
    return results, cpu


def _children_cpu() -> float:
    """User + system time of the waited-for child processes so far: a run's own work,
    which a busy machine's load moves much less than its wall time."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


REFERENCE = "rsync; sync"
FOR_SCALE = ("rsync", "rsync --fsync")
DOC = Path(__file__).resolve().parent.parent / "docs" / "performance.md"
DOC_SECTION = "## Mover: speed against rsync: `bench/mover.py`"


def ratio_line(label: str, references: list[float], tierdeck: list[float]) -> str:
    ratios = [r / t for r, t in zip(references, tierdeck, strict=True)]
    return (f"  vs {label:<14}: {statistics.median(ratios):5.2f}x "
            f"(range {min(ratios):.2f}-{max(ratios):.2f}; above 1: tierdeck faster)")  # fmt: skip


def report_lines(results: Figures, cpu: Figures | None = None) -> list[str]:
    """Per data set: the goal's ratio (against rsync; sync) first, then the others, and
    the CPU each used when ``cpu`` is given."""
    lines: list[str] = []
    for name, times in results.items():
        lines.append(f"{name}:")
        lines.append(
            ratio_line(REFERENCE, times[REFERENCE], times["tierdeck"]) + "  <- goal >= 1.0x"
        )
        lines.extend(ratio_line(ref, times[ref], times["tierdeck"]) for ref in FOR_SCALE)
        # The best a mover exactly as fast as plain rsync could score against the
        # reference: rsync's own work plus one flush at the end.
        ceiling = [r / d for r, d in zip(times["rsync"], times[REFERENCE], strict=True)]
        lines.append(f"  ceiling for a durable mover (rsync / rsync; sync): "
                     f"{statistics.median(ceiling):5.2f}x (range {min(ceiling):.2f}-{max(ceiling):.2f})")  # fmt: skip
        scale = ", ".join(f"{tool} {statistics.median(t):.2f} s" for tool, t in times.items())
        lines.append(f"  (for scale, medians: {scale})")
        if cpu is not None:
            used = ", ".join(
                f"{tool} {statistics.median(t):.2f} s" for tool, t in cpu[name].items()
            )
            lines.append(f"  (CPU, user + system, medians: {used})")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="rounds per data set (median)")
    parser.add_argument("--dir", default="/var/tmp", help="a folder on the disk to measure")
    parser.add_argument("--no-append", action="store_true",
                        help=f"print only; do not append the figures to {DOC.name}")  # fmt: skip
    args = parser.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("bench/mover.py needs root (bind mounts, drop_caches)")
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="tierdeck-mover-bench.", dir=args.dir) as work:
        minfreespace = bench_minfreespace(Path(work))
        results, cpu = measure(args.rounds, Path(work), minfreespace)
    title = (f"mover throughput against rsync then sync, {args.rounds} alternating rounds, "
             f"caches dropped (minfreespace {minfreespace / 2**30:.1f} GiB)")  # fmt: skip
    lines = report_lines(results, cpu)
    print(title)
    print("\n".join(lines))
    if not args.no_append:
        heading = f"`bench/mover.py`, {args.rounds} rounds, tree {_commit()}"
        append_run(DOC_SECTION.removeprefix("## "), heading, [title, *lines], DOC, load=load)
        print(f"appended to {DOC}")


def _commit() -> str:
    found = subprocess.run(["git", "-C", str(DOC.parent), "describe", "--always", "--dirty"],
                           capture_output=True, text=True, check=False)  # fmt: skip
    return found.stdout.strip() or "unknown"


if __name__ == "__main__":
    main()
