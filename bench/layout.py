"""How fast are the layout tools? Ratios against references run in this session.

1. The create-policy simulator (``core.mergerfs_policy.simulate_all``) on a layout of
   10 pools of 24 branches each (every fifth branch NC, a few with their own
   minfreespace, parents missing on some): policy decisions per second, against a bare
   loop that takes the branch with the most free space once per policy and pool (the
   least any simulator must do), timed in turns in the same process.
2. The compose screen's first paint on the 240-disk recorded host (headless Textual,
   80x24): from pushing it onto the dashboard, whose inventory is loaded, as when a user
   presses ``l``, until it is painted with its workers done; against a screen holding
   one Static opened the same way. Each in a fresh process, in turns; only when
   ``screens/layout/compose.py`` exists.

Goal: compose-screen first paint under 0.5 s.

Usage: .venv/bin/python bench/layout.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/support builds the recorded host

POOLS = 10
BRANCHES = 24
TIB = 2**40


def layout_pools():  # type: ignore[no-untyped-def]
    from tierdeck.core.mergerfs_policy import PolicyBranch
    from tierdeck.core.models import BranchMode

    pools = []
    for pool in range(POOLS):
        branches = []
        for i in range(BRANCHES):
            total = (4 + (i * 7 + pool) % 16) * TIB
            avail = total * ((i * 37 + pool * 11) % 100) // 100
            branches.append(
                PolicyBranch(
                    path=f"/mnt/pool{pool}/disk{i}",
                    mode=BranchMode.NC if i % 5 == 4 else BranchMode.RW,
                    avail_bytes=avail,
                    used_bytes=total - avail,
                    minfreespace_bytes=(50 * 2**30) if i % 7 == 0 else None,
                    missing_dirs=1 if i % 3 == 0 else 0,
                    parent_mtime=1_700_000_000 + i,
                )
            )
        pools.append(tuple(branches))
    return pools


def simulator(rounds: int, calls: int) -> tuple[list[float], list[float], int]:
    """Seconds per decision, simulator and bare loop, per round; and decisions per call."""
    from tierdeck.core.mergerfs_policy import CreatePolicy, simulate_all

    pools = layout_pools()
    policies = list(CreatePolicy)
    size = 8 * 2**30

    def bare() -> None:
        for branches in pools:
            for _ in policies:
                max(branches, key=lambda b: b.avail_bytes)

    def simulated() -> None:
        for branches in pools:
            simulate_all(branches, size)

    decisions = len(pools) * len(policies)
    mine, ref = [], []
    for _ in range(rounds):
        for fn, out in ((simulated, mine), (bare, ref)):
            start = time.perf_counter()
            for _ in range(calls):
                fn()
            out.append((time.perf_counter() - start) / (calls * decisions))
    return mine, ref, decisions


async def _open_in_dashboard(folder: str, mode: str) -> float:
    """Seconds from pushing the screen onto the dashboard (its 240-disk inventory
    loaded, as when a user presses ``l``) until it is shown, its workers done, and
    painted. ``bare``: a screen holding one Static, opened the same way."""
    from textual.screen import Screen
    from textual.widgets import Static
    from tierdeck.app.machine.snapshot import SnapshotStore
    from tierdeck.app.tui.app import TierdeckApp
    from tierdeck.backends.host import RecordedHost
    from tierdeck.screens.layout.compose import ComposeScreen

    class Bare(Screen[None]):
        def compose(self):  # type: ignore[no-untyped-def]
            yield Static("hello")

    app = TierdeckApp(RecordedHost(folder), hotplug=False, snapshots=SnapshotStore(Path(folder)))
    async with app.run_test(size=(80, 24)) as pilot:
        while app.refreshes == 0:  # collected, not kept from an earlier start
            await pilot.pause(0.01)
        await app.workers.wait_for_complete()
        await pilot.pause()
        if app.inventory is None or len(app.inventory.disks) != 240:
            raise SystemExit("the dashboard did not load the 240-disk inventory")
        start = time.perf_counter()
        screen = Bare() if mode == "bare" else ComposeScreen(app.inventory)
        app.push_screen(screen)
        while app.screen is not screen:
            await pilot.pause(0.005)
        await app.workers.wait_for_complete()
        await pilot.pause()
        return time.perf_counter() - start


def first_paints(runs: int, folder: Path) -> tuple[list[float], list[float]]:
    compose, bare = [], []
    for _ in range(runs):
        for mode, out in (("compose", compose), ("bare", bare)):
            proc = subprocess.run(
                [sys.executable, __file__, "--measure", mode, str(folder)],
                capture_output=True,
                text=True,
            )
            if proc.returncode != 0:
                raise SystemExit(f"{mode} failed: {proc.stderr[-800:]}")
            out.append(json.loads(proc.stdout.strip().splitlines()[-1])["inner"])
    return compose, bare


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--measure":
        import asyncio

        inner = asyncio.run(_open_in_dashboard(sys.argv[3], sys.argv[2]))
        print(json.dumps({"inner": inner}))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()

    mine, ref, decisions = simulator(args.runs, 20)
    ratios = sorted(m / r for m, r in zip(mine, ref, strict=True))
    per_s = 1 / statistics.median(mine)
    print(f"simulator: {POOLS} pools x {BRANCHES} branches, {decisions} decisions per layout")
    print(
        f"  vs a bare max-free loop        : {statistics.median(ratios):6.1f}x "
        f"({ratios[0]:.1f}-{ratios[-1]:.1f})"
    )
    print(
        f"  (for scale: {per_s:,.0f} decisions/s; a whole layout "
        f"{statistics.median(mine) * decisions * 1000:.1f} ms)"
    )
    try:
        import tierdeck.screens.layout.compose  # noqa: F401
    except ImportError:
        print("compose screen: not built yet (screens/layout/compose.py)")
        return
    from tests.support.large_host import build_large_host

    with tempfile.TemporaryDirectory(prefix="tierdeck-layout-bench-") as tmp:
        folder = build_large_host(Path(tmp) / "big")
        compose, bare = first_paints(args.runs, folder)
    paint = sorted(c / b for c, b in zip(compose, bare, strict=True))
    print("compose screen opened on the dashboard, 240-disk recorded host (80x24)")
    print(
        f"  vs a bare screen opened so     : {statistics.median(paint):6.2f}x "
        f"({paint[0]:.2f}-{paint[-1]:.2f})"
    )
    print(f"  (for scale: {statistics.median(compose) * 1000:.0f} ms; goal < 500 ms)")


if __name__ == "__main__":
    main()
