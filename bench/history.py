"""How fast are the history and compare with 10,000 stored runs? Ratios against references
run in this session.

Builds a history of 10,000 runs (the recorded lab runs of tests/fixtures/bench_screens,
each stretched to a realistic 60-second series: 60 fio samples and 60 per-disk samples
per disk, names and start times spread over years), then measures, each as the median
of N runs in fresh processes:

1. Opening the history screen (headless Textual, 80x24) in a running app, as after
   pressing ``h`` on the dashboard: from the push to the first listing on screen (the
   newest ``screens.history.PAGE`` runs; the last row loads more), against the same
   rows read by ``sqlite3`` alone (the queries the first listing runs: the page and the
   filter menus, as a bare Python process with only the sqlite3 module) and against a
   screen holding one Static opened the same way.
2. Opening a 4-run compare screen the same way: from the push to the table of the four
   runs on screen (read from the store with their fio series, compared, drawn), against
   the same four runs' rows and series read by sqlite3 alone.
3. ``tierdeck history list --json`` (a whole CLI process) on a history of 100 runs
   against ``python -c pass`` and the ``sqlite3`` command-line tool reading the same
   rows (the runs without fio's document, their tags, fio and disk series). Acceptance:
   no more than twice ``python -c pass`` plus the sqlite3 tool's time.
4. ``tierdeck compare A B C D --format json`` (a whole CLI process) on the 10,000-run
   history against ``python -c pass`` and the ``sqlite3`` tool reading the same rows.

Goals: first paint of either screen under 300 ms on this machine (it was 670 ms and
497 ms); the CLI as above. The time for scale is from the push to the screen shown,
imports excluded (the app has them when a user presses the key; start-up is measured
by bench/inventory.py and bench/cli_start.py).

The figures are appended, dated, to docs/performance.md (its history section) unless
``--no-append``.

Usage: .venv/bin/python bench/history.py [--runs N] [--keep DIR] [--no-append]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
# The recorded runs and the history app are test support (tests/), not installed.
sys.path.insert(0, str(HERE.parent))

from tierdeck.app.history.store import DB_NAME as HISTORY_FILE  # noqa: E402
from tierdeck.app.history.store import ENV_DATA_DIR  # noqa: E402

from bench._report import append_run  # noqa: E402

RUNS_IN_HISTORY = 10_000
RUNS_LISTED = 100  # the history `history list --json` prints whole
SECONDS = 60
GOAL_MS = 300
PERFORMANCE_DOC = HERE.parent / "docs" / "performance.md"
SECTION = "## History and compare with 10,000 runs: `bench/history.py`"
RECORDED = ("pool_write", "branch_randrw", "stonewall_step", "pool_buffered", "suite_mixed")
COMPARED = (101, 2502, 5003, 9904)  # four runs of different kinds, spread over the file
# What the store reads (app/history/rows.py LIGHT_COLUMNS): every runs column but fio's
# document, which neither the list nor a comparison reads.
LIGHT = (
    "id, name, status, target_path, target_kind, target_label, target_disks,"
    " target_fs_type, target_mountpoint, preset, started_at, finished_at, error, spec,"
    " env, summary, warnings, job_summaries, file_layout, import_source, content_hash"
)
# The history screen's first listing: a page (and one more, to know there is more), its
# tags, and the filter menus.
LISTING_SQL = (
    f"SELECT {LIGHT} FROM runs WHERE status IN ('ok') ORDER BY started_at DESC, id DESC LIMIT 101",
    "SELECT run_id, tag FROM run_tags WHERE run_id IN"
    " (SELECT id FROM runs WHERE status IN ('ok') ORDER BY started_at DESC, id DESC"
    " LIMIT 101) ORDER BY run_id, pos",
    "SELECT DISTINCT target_path, target_label FROM runs ORDER BY 1, 2",
    "SELECT DISTINCT preset FROM runs WHERE preset IS NOT NULL ORDER BY 1",
)
# `history list --json`: every ok run whole but fio's document.
LIST_JSON_SQL = (
    f"SELECT {LIGHT} FROM runs WHERE status IN ('ok') ORDER BY started_at DESC, id DESC;"
    " SELECT run_id, tag FROM run_tags ORDER BY run_id, pos;"
    " SELECT * FROM samples ORDER BY run_id, seq;"
    " SELECT * FROM device_samples ORDER BY run_id, seq;"
)


def _stretched(result, seconds: int):  # type: ignore[no-untyped-def]
    """The run with its per-second series repeated to ``seconds`` samples, times shifted:
    the shape of a real 60 s run (fio samples at t ~ 1, 2, ...; one disk sample per disk
    per second)."""
    samples = result.series
    series = tuple(
        dataclasses.replace(samples[i % len(samples)], t=i + samples[0].t) for i in range(seconds)
    )
    disks = sorted({d.device for d in result.device_series})
    per_disk = {d: [s for s in result.device_series if s.device == d] for d in disks}
    device_series = tuple(
        dataclasses.replace(per_disk[d][i % len(per_disk[d])], t=float(i + 1))
        for i in range(seconds)
        for d in disks
    )
    return dataclasses.replace(result, series=series, device_series=device_series)


def build_history(path: Path, runs: int = RUNS_IN_HISTORY) -> None:
    from tierdeck.app.history.store import HistoryStore

    from tests.snapshots.apps.bench_data import load_events, result_of

    store = HistoryStore(path)
    bases = [_stretched(result_of(load_events(name)), SECONDS) for name in RECORDED]
    start = 1_600_000_000.0
    for i in range(runs):
        base = bases[i % len(bases)]
        started = start + i * 3_600.0
        store.save(
            dataclasses.replace(
                base,
                id=None,
                name=f"{base.name} #{i + 1}",
                started_at=started,
                finished_at=started + SECONDS,
            )
        )


# -- the measured things, each run in a fresh process (argv: mode, history path) --------


async def _open(make_screen, ready) -> float:  # type: ignore[no-untyped-def]
    """Seconds from pushing ``make_screen()`` onto a running app (tierdeck's stylesheet
    loaded, as after the dashboard) until ``ready(screen)`` and the next paint: what a
    user waits for after pressing the key."""
    from textual.app import App

    class Running(App[None]):
        CSS_PATH = str(HERE.parent / "app" / "tui" / "tierdeck.tcss")

    app = Running()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        start = time.perf_counter()
        screen = make_screen()
        app.push_screen(screen)
        deadline = start + 60
        while not (app.screen is screen and ready(screen)):
            if getattr(screen, "error", None) or time.perf_counter() > deadline:
                raise SystemExit(f"{type(screen).__name__} did not show: {screen.error}")
            await pilot.pause(0.005)
        await pilot.pause()
        return time.perf_counter() - start


async def _history_screen(path: str) -> float:
    from textual.widgets import DataTable
    from tierdeck.app.history.store import HistoryStore
    from tierdeck.screens.history.history import PAGE, HistoryScreen

    seen: list[tuple[int, bool]] = []  # rows listed, more to load

    def listed(screen: HistoryScreen) -> bool:
        if screen.loads > 0 and not seen:
            seen.append((screen.query_one(DataTable).row_count, screen.more))
        return bool(seen)

    def make() -> HistoryScreen:
        return HistoryScreen(store_factory=lambda: HistoryStore(Path(path)))

    took = await _open(make, listed)
    if seen[0] != (min(PAGE, RUNS_IN_HISTORY), True):
        raise SystemExit(f"the history showed {seen[0][0]} runs")
    return took


async def _compare_screen(path: str) -> float:
    """The compare screen until its table shows the four runs (loaded, compared, drawn)."""
    from tierdeck.app.history.store import HistoryStore
    from tierdeck.screens.history.compare import CompareScreen

    def make() -> CompareScreen:
        return CompareScreen(list(COMPARED), store_factory=lambda: HistoryStore(Path(path)))

    return await _open(make, lambda screen: screen.comparison is not None)


async def _bare_app(_path: str) -> float:
    """The reference: a screen holding one Static, opened the same way."""
    from textual.screen import Screen
    from textual.widgets import Static

    class Bare(Screen[None]):
        def compose(self):  # type: ignore[no-untyped-def]
            yield Static("hello")

    return await _open(Bare, lambda screen: True)


def _sqlite_listing(path: str) -> float:
    import sqlite3

    start = time.perf_counter()
    conn = sqlite3.connect(path)
    rows = [conn.execute(sql).fetchall() for sql in LISTING_SQL]
    conn.close()
    if len(rows[0]) != 101:
        raise SystemExit(f"sqlite3 read {len(rows[0])} rows")
    return time.perf_counter() - start


def _sqlite_four(path: str) -> float:
    """What the compare screen reads: the runs but fio's document, tags, fio series."""
    import sqlite3

    start = time.perf_counter()
    conn = sqlite3.connect(path)
    for run_id in COMPARED:
        conn.execute(f"SELECT {LIGHT} FROM runs WHERE id = ?", (run_id,)).fetchall()
        conn.execute("SELECT tag FROM run_tags WHERE run_id = ?", (run_id,)).fetchall()
        conn.execute("SELECT * FROM samples WHERE run_id = ? ORDER BY seq", (run_id,)).fetchall()
    conn.close()
    return time.perf_counter() - start


MODES = {
    "history": _history_screen,
    "compare": _compare_screen,
    "bare": _bare_app,
    "sqlite-listing": _sqlite_listing,
    "sqlite-four": _sqlite_four,
}


def _one(mode: str, path: str) -> None:
    import asyncio
    import inspect

    measure = MODES[mode]
    inner = asyncio.run(measure(path)) if inspect.iscoroutinefunction(measure) else measure(path)
    print(json.dumps({"inner": inner}))


def inner_times(mode: str, path: Path, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        proc = subprocess.run(
            [sys.executable, __file__, "--measure", mode, str(path)],
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            raise SystemExit(f"{mode} failed: {proc.stderr[-800:]}")
        out.append(json.loads(proc.stdout.strip().splitlines()[-1])["inner"])
    return out


def process_times(argv: list[str], runs: int, env: dict[str, str] | None = None) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.run(argv, capture_output=True, text=True, env=env)
        out.append(time.perf_counter() - start)
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed: {proc.stderr[-800:]}")
    return out


def _ratio_line(label: str, mine: list[float], ref: list[float]) -> str:
    ratios = sorted(m / r for m, r in zip(mine, ref, strict=True))
    return f"  {label:<44}: {statistics.median(ratios):6.2f}x ({ratios[0]:.2f}-{ratios[-1]:.2f})"


def _ms(times: list[float]) -> float:
    return statistics.median(times) * 1000


def _acceptance(label: str, mine: list[float], floor: list[float], tool: list[float]) -> str:
    """Whether ``mine`` <= 2 x ``floor`` + ``tool``, round by round (the medians too)."""
    bounds = [2 * f + t for f, t in zip(floor, tool, strict=True)]
    ratios = sorted(m / b for m, b in zip(mine, bounds, strict=True))
    verdict = "met" if statistics.median(ratios) <= 1.0 else "NOT met"
    return (
        f"  {label}: {_ms(mine):.0f} ms vs 2 x {_ms(floor):.0f} + {_ms(tool):.0f} ="
        f" {statistics.median(bounds) * 1000:.0f} ms: {statistics.median(ratios):.2f}x of the"
        f" bound ({ratios[0]:.2f}-{ratios[-1]:.2f}): {verdict}"
    )


def _ensure(path: Path, runs: int) -> None:
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        began = time.perf_counter()
        build_history(path, runs)
        print(f"built {runs} runs in {time.perf_counter() - began:.0f} s: {path}")
    # Open it once as tierdeck does, so a schema migration is not measured.
    from tierdeck.app.history.store import HistoryStore

    HistoryStore(path)


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--measure":
        _one(sys.argv[2], sys.argv[3])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--keep", type=Path, help="build (or reuse) the histories here")
    parser.add_argument(
        "--no-append", action="store_true", help="do not append the figures to the doc"
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="tierdeck-history-bench-", dir="/dev/shm") as tmp:
        # The file name the CLI finds under TIERDECK_DATA_DIR.
        path = (args.keep or Path(tmp)) / HISTORY_FILE
        listed = (args.keep or Path(tmp)) / f"{RUNS_LISTED}-runs" / HISTORY_FILE
        _ensure(path, RUNS_IN_HISTORY)
        _ensure(listed, RUNS_LISTED)
        history, listing, bare = [], [], []
        compare, four = [], []
        floor, cli, sqlite_cli, list_json, sqlite_list = [], [], [], [], []
        ids = [str(i) for i in COMPARED]
        in_list = ", ".join(ids)
        sqlite_argv = [
            "sqlite3",
            str(path),
            f"SELECT {LIGHT} FROM runs WHERE id IN ({in_list});"
            f" SELECT run_id, tag FROM run_tags WHERE run_id IN ({in_list});"
            f" SELECT * FROM samples WHERE run_id IN ({in_list}) ORDER BY run_id, seq;",
        ]
        cli_argv = [sys.executable, "-m", "tierdeck.app.cli", "compare", *ids, "--format", "json"]
        list_argv = [sys.executable, "-m", "tierdeck.app.cli", "history", "list", "--json"]
        sqlite_list_argv = ["sqlite3", str(listed), LIST_JSON_SQL]
        env_big = {**os.environ, ENV_DATA_DIR: str(path.parent)}
        env_listed = {**os.environ, ENV_DATA_DIR: str(listed.parent)}
        for _ in range(args.runs):  # interleaved, so each ratio pairs the same minute
            history += inner_times("history", path, 1)
            listing += inner_times("sqlite-listing", path, 1)
            bare += inner_times("bare", path, 1)
            compare += inner_times("compare", path, 1)
            four += inner_times("sqlite-four", path, 1)
            floor += process_times([sys.executable, "-c", "pass"], 1)
            cli += process_times(cli_argv, 1, env=env_big)
            sqlite_cli += process_times(sqlite_argv, 1)
            list_json += process_times(list_argv, 1, env=env_listed)
            sqlite_list += process_times(sqlite_list_argv, 1)
        lines = [
            f"history of {RUNS_IN_HISTORY} runs x {SECONDS} s series; median of {args.runs}",
            "history screen, first listing on screen (80x24)",
            _ratio_line("vs the same rows read by sqlite3 alone", history, listing),
            _ratio_line("vs a bare screen opened the same way", history, bare),
            f"  (for scale: {_ms(history):.0f} ms; goal < {GOAL_MS} ms:"
            f" {'met' if _ms(history) < GOAL_MS else 'NOT met'})",
            "compare screen with 4 runs, first paint (80x24)",
            _ratio_line("vs the 4 runs' rows read by sqlite3 alone", compare, four),
            _ratio_line("vs a bare screen opened the same way", compare, bare),
            f"  (for scale: {_ms(compare):.0f} ms; goal < {GOAL_MS} ms:"
            f" {'met' if _ms(compare) < GOAL_MS else 'NOT met'})",
            f"tierdeck history list --json, {RUNS_LISTED} runs (whole process)",
            _ratio_line("vs python -c pass", list_json, floor),
            _ratio_line("vs the sqlite3 tool reading the same rows", list_json, sqlite_list),
            _acceptance("<= 2x python -c pass + sqlite3", list_json, floor, sqlite_list),
            "tierdeck compare 4 runs --format json (whole process)",
            _ratio_line("vs python -c pass", cli, floor),
            _ratio_line("vs the sqlite3 tool reading the same rows", cli, sqlite_cli),
            _acceptance("<= 2x python -c pass + sqlite3", cli, floor, sqlite_cli),
        ]
        print("\n".join(lines))
        if not args.no_append:
            append_run(SECTION.removeprefix("## "), "`bench/history.py`", lines, PERFORMANCE_DOC)
            print(f"appended to {PERFORMANCE_DOC}")


if __name__ == "__main__":
    main()
