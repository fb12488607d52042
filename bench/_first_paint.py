"""Time to first paint: the dashboard with an inventory on screen vs a bare Textual app.

Each measurement runs in a fresh process (argv: folder, runs, mode), so imports and
caches of one do not help the other. Modes:

- ``bare``: a Textual app holding one Static;
- ``warm``: tierdeck's dashboard with the host's inventory kept from an earlier start
  (the usual start): until the kept 240 disks are on screen;
- ``cold``: no inventory kept (the first start on a machine): until the skeleton is on
  screen (``skeleton``), and until the collected 240 disks are (the figure reported).

Prints JSON for bench/inventory.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

DISKS = 240


def cpu_seconds() -> float:
    """This process's CPU time so far (all its threads): what a paint cost, whatever
    else the shared machine was doing meanwhile."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def bare_app(start: float) -> dict[str, float]:
    from rich.console import RenderableType
    from textual.app import App, ComposeResult
    from textual.screen import Screen
    from textual.widgets import Static

    painted: list[float] = []
    cpu: list[float] = []

    class Bare(App[None]):
        def compose(self) -> ComposeResult:
            yield Static("hello")

        def _display(self, screen: Screen[object], renderable: RenderableType | None) -> None:
            super()._display(screen, renderable)
            if renderable is not None and screen.query(Static):
                painted.append(time.perf_counter() - start)
                cpu.append(cpu_seconds())

    app = Bare()
    async with app.run_test(size=(80, 24)) as pilot:
        while not painted:
            await pilot.pause(0.01)
        return {"painted": painted[0], "cpu": cpu[0]}


async def dashboard(folder: str, mode: str, start: float) -> dict[str, float]:
    from rich.console import RenderableType
    from textual.screen import Screen
    from tierdeck.app.tui import app as app_module
    from tierdeck.app.tui.app import TierdeckApp
    from tierdeck.backends.host import RecordedHost
    from tierdeck.widgets.dashboard.disk_table import DiskTable

    out: dict[str, float] = {}

    class Probed(TierdeckApp):
        """Notes the first frame the compositor renders with the disk table laid out
        with rows in it (headless, nothing is written to a terminal: the frame is what
        one would show)."""

        # A subclass reads its CSS beside its own module: point it at the app's.
        CSS_PATH = [
            os.path.join(os.path.dirname(app_module.__file__), p) for p in TierdeckApp.CSS_PATH
        ]

        def _display(self, screen: Screen[object], renderable: RenderableType | None) -> None:
            super()._display(screen, renderable)
            if renderable is None or "painted" in out:
                return
            tables = screen.query(DiskTable)
            if not tables or tables.first().region.height <= 2:  # not laid out with rows
                return
            now = time.perf_counter() - start
            if self.inventory is None:
                out.setdefault("skeleton", now)
            elif mode == "warm" or self.refreshes:
                out["painted"] = now
                out["cpu"] = cpu_seconds()
                out["fresh_first"] = float(mode == "warm" and self.refreshes > 0)

    app = Probed(RecordedHost(folder), hotplug=False)
    async with app.run_test(size=(80, 24)) as pilot:
        while "painted" not in out:
            await pilot.pause(0.01)
        if app.inventory is None or len(app.inventory.disks) != DISKS:
            raise SystemExit("dashboard did not show the 240-disk inventory")
        if out["fresh_first"]:
            raise SystemExit("the fresh collection landed before the kept inventory was shown")
    return out


def one(mode: str, folder: str) -> None:
    # Imports count: a user waits for them too.
    start = time.perf_counter()
    inner = asyncio.run(bare_app(start) if mode == "bare" else dashboard(folder, mode, start))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({**inner, "total": inner["painted"], "rss": rss}))


def keep_inventory(folder: str) -> None:
    """The kept inventory a warm start finds: what one collection leaves."""
    from tierdeck.app.machine.inventory import collect_inventory
    from tierdeck.app.machine.snapshot import SnapshotStore
    from tierdeck.app.tui.app import safe_problems
    from tierdeck.backends.host import RecordedHost

    host = RecordedHost(folder)
    inv = collect_inventory(host)
    SnapshotStore().save(host.identity, inv, safe_problems(inv))


def main() -> None:
    if len(sys.argv) == 4:
        one(sys.argv[3], sys.argv[1])
        return
    folder, runs = sys.argv[1], int(sys.argv[2])
    # BEFORE_TREE: another revision's tree (a folder holding "tierdeck"), whose dashboard
    # runs in the same rounds: "before" with no kept inventory (a cold start), and
    # "before_warm" with the same kept inventory as "warm" (same snapshot format), so a
    # change of the usual start is measured against the tree before it, round by round.
    before = os.environ.get("BEFORE_TREE")
    modes = (
        ("bare", "warm", "cold", "before", "before_warm") if before else ("bare", "warm", "cold")
    )
    results: dict[str, list[dict[str, float]]] = {mode: [] for mode in modes}
    with tempfile.TemporaryDirectory(prefix="tierdeck-paint-") as cache:
        env = {**os.environ, "TIERDECK_CACHE_DIR": cache}
        os.environ["TIERDECK_CACHE_DIR"] = cache
        keep_inventory(folder)
        kept = os.path.join(cache, "inventory")
        for _ in range(runs):
            for mode in modes:
                # A cold start has nothing kept; a warm one the snapshot made above.
                cold = mode in ("cold", "before")
                env["TIERDECK_CACHE_DIR"] = os.path.join(cache, "none") if cold else cache
                old = mode.startswith("before") and before
                run_env = {**env, "PYTHONPATH": before} if old else env
                kind = "cold" if cold else "warm"
                proc = subprocess.run(
                    [sys.executable, __file__, folder, "1", "bare" if mode == "bare" else kind],
                    capture_output=True, text=True, env=run_env,
                )  # fmt: skip
                if proc.returncode != 0:
                    raise SystemExit(f"{mode}: {proc.stderr[-800:]}")
                results[mode].append(json.loads(proc.stdout.strip().splitlines()[-1]))
        if not os.listdir(kept):
            raise SystemExit("no inventory was kept")

    def med(mode: str, key: str = "total") -> float:
        # A cold run whose collection beat the skeleton's first frame has no skeleton.
        return statistics.median([r[key] for r in results[mode] if key in r] or [float("nan")])

    def ratio(mode: str, key: str = "total") -> list[float]:
        # Paired by round: the same minute of this shared machine's load.
        pairs = zip(results[mode], results["bare"], strict=True)
        return sorted(m[key] / b[key] for m, b in pairs)

    print(json.dumps({
        "bare_s": med("bare"), "warm_s": med("warm"), "cold_s": med("cold"),
        "skeleton_s": med("cold", "skeleton"),
        "warm_ratio": statistics.median(ratio("warm")),
        "warm_range": [ratio("warm")[0], ratio("warm")[-1]],
        "cold_ratio": statistics.median(ratio("cold")),
        "cold_range": [ratio("cold")[0], ratio("cold")[-1]],
        "warm_cpu_ratio": statistics.median(ratio("warm", "cpu")),
        "cold_cpu_ratio": statistics.median(ratio("cold", "cpu")),
        "bare_rss_kib": max(r["rss"] for r in results["bare"]),
        "warm_rss_kib": max(r["rss"] for r in results["warm"]),
        "cold_rss_kib": max(r["rss"] for r in results["cold"]),
        **({
            "before_s": med("before"), "before_ratio": statistics.median(ratio("before")),
            "before_cpu_ratio": statistics.median(ratio("before", "cpu")),
            "warm_vs_before": statistics.median(
                w["total"] / b["total"] for w, b in zip(results["warm"], results["before"], strict=True)
            ),
            "before_warm_s": med("before_warm"),
            "before_warm_ratio": statistics.median(ratio("before_warm")),
            "before_warm_cpu_ratio": statistics.median(ratio("before_warm", "cpu")),
            "warm_vs_before_warm": sorted(
                w["total"] / b["total"]
                for w, b in zip(results["warm"], results["before_warm"], strict=True)
            ),
            "cold_vs_before": statistics.median(
                c["total"] / b["total"] for c, b in zip(results["cold"], results["before"], strict=True)
            ),
        } if before else {}),
    }))  # fmt: skip


if __name__ == "__main__":
    main()
