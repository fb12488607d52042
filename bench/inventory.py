"""How fast is the inventory on a big NAS? Ratios against references run in this session.

Builds a recorded host with 240 disks (2 partitions each), 20 ZFS pools (raidz2, 12
disks per vdev) and 10 mergerfs pools, then measures, each as the median of N runs:

1. ``tierdeck inventory --json --recorded DIR`` (a whole CLI process: interpreter start,
   imports, collection, relations, JSON), as a ratio to ``lsblk -J -O --sysroot`` reading
   the very same 240-disk sysfs tree; and ``tierdeck inventory --json`` of this machine's
   own storage as a ratio to ``lsblk -J -O`` here (with the interpreter start-up floor).
2. Time to first paint of the dashboard with that inventory on screen (headless Textual,
   80x24), as a ratio to the first paint of a bare Textual app in the same process.
3. Peak memory (max RSS) of the CLI run and of the dashboard run, as ratios to lsblk's
   and to the bare Textual app's.

Usage: .venv/bin/python bench/inventory.py [--runs N]
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


def first_paint(runs: int, recorded: Path) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, str(HERE / "_first_paint.py"), str(recorded), str(runs)],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float] = json.loads(out.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    tierdeck = [sys.executable, "-m", "tierdeck.app.cli"]
    with tempfile.TemporaryDirectory(prefix="tierdeck-bench-") as tmp:
        folder = build_large_host(Path(tmp) / "big")
        lsblk_folder = Path(tmp) / "big-lsblk"
        shutil.copytree(folder, lsblk_folder, symlinks=True)
        materialise_links_for_lsblk(lsblk_folder)

        lsblk_same, lsblk_same_rss = timed_runs(
            ["lsblk", "-J", "-O", "--sysroot", str(lsblk_folder / "root")], args.runs
        )
        lsblk_here, _ = timed_runs(["lsblk", "-J", "-O"], args.runs)
        live_here, _ = timed_runs([*tierdeck, "inventory", "--json"], args.runs)
        python_floor, _ = timed_runs([sys.executable, "-c", "import tierdeck.app.cli"], args.runs)
        inventory, inventory_rss = timed_runs(
            [*tierdeck, "inventory", "--json", "--recorded", str(folder)], args.runs
        )
        paint = first_paint(args.runs, folder)

    print(f"recorded host: 240 disks, 20 zpools, 10 mergerfs pools; median of {args.runs} runs")
    print("inventory --json (whole CLI process)")
    print(f"  vs lsblk -J -O on the same 240-disk sysfs : {inventory / lsblk_same:5.2f}x")
    print(f"  (for scale: {inventory * 1000:.0f} ms vs {lsblk_same * 1000:.0f} ms)")
    print("inventory --json of this machine's own storage (live) vs lsblk -J -O here")
    print(f"  ratio                                     : {live_here / lsblk_here:5.2f}x")
    print(
        f"  (for scale: {live_here * 1000:.0f} ms vs {lsblk_here * 1000:.0f} ms; starting"
        f" Python and importing tierdeck alone takes {python_floor * 1000:.0f} ms)"
    )
    print("dashboard first paint with the 240-disk inventory on screen (80x24)")
    print(f"  vs a bare Textual app's first paint       : {paint['ratio']:5.2f}x")
    print(f"  (for scale: {paint['dashboard_s'] * 1000:.0f} ms; goal < 1000 ms)")
    print("peak memory (max RSS)")
    print(f"  inventory CLI vs lsblk                    : {inventory_rss / lsblk_same_rss:5.2f}x")
    print(f"  dashboard vs bare Textual app             : {paint['rss_ratio']:5.2f}x")
    print(
        f"  (for scale: CLI {inventory_rss / 1024:.0f} MiB, dashboard"
        f" {paint['dashboard_rss_kib'] / 1024:.0f} MiB)"
    )


if __name__ == "__main__":
    main()
