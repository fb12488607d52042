"""Time to first paint: the dashboard with an inventory on screen vs a bare Textual app.

Each measurement runs in a fresh process (argv: a mode), so imports and caches of one do
not help the other. Prints JSON for bench/inventory.py.
"""

from __future__ import annotations

import asyncio
import json
import resource
import statistics
import subprocess
import sys
import time


async def bare_app() -> float:
    from textual.app import App, ComposeResult
    from textual.widgets import Static

    class Bare(App[None]):
        def compose(self) -> ComposeResult:
            yield Static("hello")

    start = time.perf_counter()
    app = Bare()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        return time.perf_counter() - start


async def dashboard(folder: str) -> float:
    from tierdeck.app.tui.app import TierdeckApp
    from tierdeck.backends.host import RecordedHost

    start = time.perf_counter()
    app = TierdeckApp(RecordedHost(folder))
    async with app.run_test(size=(80, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        if app.inventory is None or len(app.inventory.disks) != 240:
            raise SystemExit("dashboard did not show the 240-disk inventory")
        return time.perf_counter() - start


def one(mode: str, folder: str) -> None:
    # Imports count: a user waits for them too.
    start = time.perf_counter()
    inner = asyncio.run(bare_app() if mode == "bare" else dashboard(folder))
    total = time.perf_counter() - start
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"inner": inner, "total": total, "rss": rss}))


def main() -> None:
    if len(sys.argv) == 4:
        one(sys.argv[3], sys.argv[1])
        return
    folder, runs = sys.argv[1], int(sys.argv[2])
    results: dict[str, list[dict[str, float]]] = {"bare": [], "dashboard": []}
    for _ in range(runs):
        for mode in ("bare", "dashboard"):
            proc = subprocess.run(
                [sys.executable, __file__, folder, "1", mode],
                capture_output=True, text=True, check=True,
            )  # fmt: skip
            results[mode].append(json.loads(proc.stdout))
    bare = statistics.median(r["total"] for r in results["bare"])
    dash = statistics.median(r["total"] for r in results["dashboard"])
    bare_rss = max(r["rss"] for r in results["bare"])
    dash_rss = max(r["rss"] for r in results["dashboard"])
    print(json.dumps({
        "ratio": dash / bare, "dashboard_s": dash, "bare_s": bare,
        "rss_ratio": dash_rss / bare_rss, "dashboard_rss_kib": dash_rss,
    }))  # fmt: skip


if __name__ == "__main__":
    main()
