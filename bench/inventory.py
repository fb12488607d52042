"""How fast is the inventory on a big NAS? Ratios against references run in this session.

Builds a recorded host with 240 disks (2 partitions each), 20 ZFS pools (raidz2, 12
disks per vdev) and 10 mergerfs pools, then measures, each as the median of N runs:

1. Time to first paint of the dashboard with that inventory on screen (headless Textual,
   80x24: the first frame the compositor renders with the disk table laid out), as a
   ratio to the first paint of a bare Textual app, paired round by round: **warm** (the
   inventory kept from an earlier start, what a user sees every time but the first) and
   **cold** (nothing kept: a skeleton first, then the collected inventory). Wall time and
   CPU time (the process's own, whatever the shared machine did meanwhile).
2. ``tierdeck inventory --json --recorded DIR`` (a whole CLI process) as a ratio to
   ``lsblk -J -O --sysroot`` reading the very same 240-disk sysfs tree; ``tierdeck
   inventory --json`` of this machine as a ratio to ``lsblk -J -O`` here and to ``python
   -c pass`` (the floor of any Python command); ``tierdeck --help`` against that floor.
3. Peak memory (max RSS) of the CLI run and of the dashboard run.

Prints the lines and appends them, dated, to docs/performance.md (--no-append: not).
The CLI runs as installed (the ``tierdeck`` script beside this Python, bytecode compiled
first, untimed, as pip does for an installed package).

Usage: .venv/bin/python bench/inventory.py [--runs N] [--no-append]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
# The builders are test/dev support (tests/support), not installed: import them from here.
sys.path.insert(0, str(HERE.parent))

from bench._report import append_run  # noqa: E402
from bench.cli_start import compile_bytecode, extract  # noqa: E402
from tests.support.large_host import build_large_host  # noqa: E402


def materialise_links_for_lsblk(folder: Path) -> None:
    """lsblk needs real symlinks (and /sys/dev/block); recordings keep links as data."""
    meta = json.loads((folder / "host.json").read_text())
    root = folder / "root"
    for path, target in meta.get("links", {}).items():
        local = root / path.lstrip("/")
        local.parent.mkdir(parents=True, exist_ok=True)
        if not local.is_symlink():
            os.symlink(target, local)
    dev_block = root / "sys/dev/block"
    dev_block.mkdir(parents=True, exist_ok=True)
    for dev in (root / "sys/devices").rglob("dev"):
        link = dev_block / dev.read_text().strip()
        if not link.is_symlink():
            os.symlink(os.path.relpath(dev.parent, dev_block), link)


def timed_runs(argv: list[str], runs: int) -> tuple[float, int]:
    """Median wall time (s) and max RSS (KiB) of a command over ``runs`` runs."""
    times = []
    peak = 0
    for _ in range(runs):
        proc = subprocess.run(
            [sys.executable, str(HERE / "_maxrss.py"), *argv], capture_output=True, text=True
        )
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed: {proc.stderr[-500:]}")
        elapsed, rss = proc.stderr.strip().splitlines()[-1].split()
        times.append(float(elapsed))
        peak = max(peak, int(rss))
    return statistics.median(times), peak


def first_paint(runs: int, recorded: Path, before: Path | None) -> dict[str, float]:
    env = {**os.environ, **({"BEFORE_TREE": str(before)} if before else {})}
    out = subprocess.run(
        [sys.executable, str(HERE / "_first_paint.py"), str(recorded), str(runs)],
        capture_output=True,
        text=True,
        env=env,
    )
    if out.returncode != 0:
        raise SystemExit(f"first paint failed: {out.stderr[-800:]}")
    result: dict[str, float] = json.loads(out.stdout)
    return result


def paired(a: list[str], b: list[str], runs: int) -> tuple[float, float, float, float]:
    """Medians of a and b, and the median and max of the ratios a/b taken pair by pair."""
    ta, tb, ratios = [], [], []
    for _ in range(runs):
        one, _ = timed_runs(a, 1)
        two, _ = timed_runs(b, 1)
        ta.append(one)
        tb.append(two)
        ratios.append(one / two)
    return statistics.median(ta), statistics.median(tb), statistics.median(ratios), max(ratios)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--no-append", action="store_true", help="print only")
    parser.add_argument(
        "--against", help="a git revision whose dashboard paints in the same rounds"
    )
    args = parser.parse_args()
    compile_bytecode(HERE.parent)
    tierdeck = [str(Path(sys.executable).parent / "tierdeck")]
    floor = [sys.executable, "-c", "pass"]
    with tempfile.TemporaryDirectory(prefix="tierdeck-bench-") as tmp:
        before = extract(args.against, Path(tmp) / "before") if args.against else None
        if before is not None:
            compile_bytecode(before)
        folder = build_large_host(Path(tmp) / "big")
        lsblk_folder = Path(tmp) / "big-lsblk"
        shutil.copytree(folder, lsblk_folder, symlinks=True)
        materialise_links_for_lsblk(lsblk_folder)
        paint = first_paint(args.runs, folder, before)
        lsblk_same, lsblk_same_rss = timed_runs(
            ["lsblk", "-J", "-O", "--sysroot", str(lsblk_folder / "root")], args.runs
        )
        inventory, inventory_rss = timed_runs(
            [*tierdeck, "inventory", "--json", "--recorded", str(folder)], args.runs
        )
        live, lsblk_here, live_lsblk, _ = paired(
            [*tierdeck, "inventory", "--json"], ["lsblk", "-J", "-O"], args.runs
        )
        _, floor_s, live_floor, _ = paired([*tierdeck, "inventory", "--json"], floor, args.runs)
        helped, _, help_floor, help_max = paired([*tierdeck, "--help"], floor, args.runs)
        # The command-line library alone: what any click CLI pays before its own code.
        _, click_s, help_click, _ = paired(
            [*tierdeck, "--help"], [sys.executable, "-c", "import click"], args.runs
        )

    def ms(seconds: float) -> str:
        return f"{seconds * 1000:.0f} ms"

    lines = [
        f"recorded host: 240 disks, 20 zpools, 10 mergerfs pools; median of {args.runs} runs",
        "dashboard first paint with the 240-disk inventory on screen (80x24), vs a bare "
        "Textual app's first paint (paired)",
        f"  warm (inventory kept)  : {paint['warm_ratio']:5.2f}x wall "
        f"({paint['warm_range'][0]:.2f}-{paint['warm_range'][1]:.2f}), "
        f"{paint['warm_cpu_ratio']:.2f}x CPU; {ms(paint['warm_s'])} vs {ms(paint['bare_s'])}",
        f"  cold (nothing kept)    : {paint['cold_ratio']:5.2f}x wall "
        f"({paint['cold_range'][0]:.2f}-{paint['cold_range'][1]:.2f}), "
        f"{paint['cold_cpu_ratio']:.2f}x CPU; {ms(paint['cold_s'])} "
        f"(its skeleton at {ms(paint['skeleton_s'])})",
        *(
            [
                f"  {args.against} (the tree before, nothing kept): {paint['before_ratio']:5.2f}x "
                f"wall, {paint['before_cpu_ratio']:.2f}x CPU; {ms(paint['before_s'])}; warm now / "
                f"it {paint['warm_vs_before']:.2f}",
                f"  {args.against} warm (the same kept inventory): {paint['before_warm_ratio']:5.2f}x "
                f"wall, {paint['before_warm_cpu_ratio']:.2f}x CPU; {ms(paint['before_warm_s'])}; "
                "warm now / it, paired by round: median "
                f"{statistics.median(paint['warm_vs_before_warm']):.2f} (rounds "
                f"{', '.join(f'{r:.2f}' for r in paint['warm_vs_before_warm'])}); cold now / it "
                f"{paint['cold_vs_before']:.2f}",
            ]
            if before
            else []
        ),  # fmt: skip
        "  goal: warm < 400 ms and <= 2x the bare app",
        f"inventory --json --recorded (whole CLI process) vs lsblk -J -O --sysroot on the "
        f"same tree: {inventory / lsblk_same:5.2f}x ({ms(inventory)} vs {ms(lsblk_same)})",
        f"inventory --json of this machine vs lsblk -J -O here: {live_lsblk:5.2f}x "
        f"({ms(live)} vs {ms(lsblk_here)}); vs python -c pass: {live_floor:.2f}x",
        f"tierdeck --help vs python -c pass: {help_floor:.2f}x (max {help_max:.2f}; "
        f"{ms(helped)} vs {ms(floor_s)}); goal <= 2x; vs python -c 'import click' "
        f"({ms(click_s)}): {help_click:.2f}x",
        f"peak memory: inventory CLI {inventory_rss / lsblk_same_rss:.2f}x lsblk's; dashboard "
        f"warm {paint['warm_rss_kib'] / paint['bare_rss_kib']:.2f}x the bare app's "
        f"({paint['warm_rss_kib'] / 1024:.0f} MiB)",
    ]
    print("\n".join(lines))
    if not args.no_append:
        append_run("Inventory: `bench/inventory.py`", "Measured", lines)


if __name__ == "__main__":
    main()
