"""How fast tierdeck's CLI starts: against its goals, and this tree against another
revision, paired.

    .venv/bin/python bench/cli_start.py [--against 945c7bc] [--rounds 15] [--no-append]

The goals first, every command in the same rounds as its references, one ratio per
round, the median printed with the spread:

- ``tierdeck --help`` (the installed script, as a user types it) at most 2x ``python
  -c pass``; ``python -c "import click"`` is printed beside it for scale (what any click
  command line pays before its own code).
- ``tierdeck history list --json`` on a history of 100 runs (bench/history.py's runs,
  each a 60-second series) at most 2x ``python -c pass`` plus the ``sqlite3`` tool's
  time reading the same rows.

With ``--against REV``, then, each command (``tierdeck --help``, ``history list --json``
of the same 100 runs, ``bench --help``, ``history --help``, ``layout --help``, ``mover
--help``, each as ``python -m tierdeck.app.cli``) runs in both trees in turn, this one
then the other, round after round, with the same Python: the other revision is a ``git
archive`` of it in a temporary folder put first on PYTHONPATH, its bytecode compiled as
this tree's is. Each tree lists a history of the same 100 runs that its own code built,
so that trees of different history schema versions pair (an older tierdeck refuses a
newer file). Each round gives one ratio (this tree / the other), so a machine that
speeds up or slows down during the run moves both sides of it; the median of the ratios
is printed, with the spread. ``python -c pass`` runs in the same rounds as the floor,
and each tree's median is also printed as a multiple of it. No bare times: this machine
is shared.

Everything printed is appended, dated, to docs/performance.md (its CLI start section)
unless ``--no-append``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
# The history builder and its queries are bench/history.py's (and it needs tests/).
sys.path.insert(0, str(REPO))

from bench._report import append_run  # noqa: E402
from bench.history import LIST_JSON_SQL, RUNS_LISTED, build_history  # noqa: E402

SECTION = "CLI start: `bench/cli_start.py`"
COMMANDS = (
    ("--help",),
    ("history", "list", "--json"),
    ("bench", "--help"),
    ("history", "--help"),
    ("layout", "--help"),
    ("mover", "--help"),
)


def extract(revision: str, into: Path) -> Path:
    """The revision's tree as a "tierdeck" folder under ``into`` (for PYTHONPATH)."""
    package = into / "tierdeck"
    package.mkdir(parents=True)
    archive = into / "tree.tar"
    with archive.open("wb") as out:
        subprocess.run(["git", "-C", str(REPO), "archive", revision], stdout=out, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(package, filter="data")
    return into


def compile_bytecode(folder: Path) -> None:
    """What pip does for an installed package; this checkout may run with
    PYTHONDONTWRITEBYTECODE=1, which would otherwise compile every module on each start."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(folder)], env=env,
                   stdout=subprocess.DEVNULL, check=True)  # fmt: skip


def build_in(tree: Path, data: Path, env: dict[str, str]) -> None:
    """bench/history.py's history of RUNS_LISTED runs under ``data``, built by the code
    of ``tree`` (a checkout whose package ``env`` imports)."""
    data.mkdir(parents=True)
    code = (
        "import sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]);"
        " from bench.history import RUNS_LISTED, build_history;"
        " build_history(Path(sys.argv[2]), RUNS_LISTED)"
    )
    history = data / "history.sqlite3"
    subprocess.run([sys.executable, "-c", code, str(tree), str(history)], env=env, check=True)


def timed(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=True)  # fmt: skip
    return time.perf_counter() - start


def _spread(ratios: list[float]) -> str:
    return f"{statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f})"


def _ms(times: list[float]) -> str:
    return f"{statistics.median(times) * 1000:.0f} ms"


def goals(rounds: int, data: Path) -> list[str]:
    """The two goals' lines, each command paired round by round with its references."""
    python = sys.executable
    script = str(Path(python).with_name("tierdeck"))
    if not Path(script).exists():
        raise SystemExit(f"no tierdeck script beside {python}: run scripts/setup.sh")
    data.mkdir(parents=True)
    history = data / "history.sqlite3"  # the name the CLI looks for under TIERDECK_DATA_DIR
    build_history(history, RUNS_LISTED)
    env = {**os.environ, "TIERDECK_DATA_DIR": str(data)}
    env.pop("COLUMNS", None)  # a pipe, as in a script: click's 80 columns
    sqlite = shutil.which("sqlite3")
    if sqlite is None:
        raise SystemExit("the sqlite3 tool is needed (apt-get install sqlite3)")
    commands = {
        "floor": [python, "-c", "pass"],
        "click": [python, "-c", "import click"],
        "help": [script, "--help"],
        "list": [script, "history", "list", "--json"],
        "sqlite": [sqlite, str(history), LIST_JSON_SQL],
    }
    for argv in commands.values():  # warm the page cache and the bytecode
        timed(argv, env)
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, argv in commands.items():
            times[name].append(timed(argv, env))
    floor = times["floor"]
    help_ratios = [h / f for h, f in zip(times["help"], floor, strict=True)]
    click_ratios = [c / f for c, f in zip(times["click"], floor, strict=True)]
    bounds = [2 * f + q for f, q in zip(floor, times["sqlite"], strict=True)]
    list_ratios = [t / b for t, b in zip(times["list"], bounds, strict=True)]

    def verdict(ratios: list[float], goal: float) -> str:
        return "met" if statistics.median(ratios) <= goal else "NOT met"

    return [
        f"goals: median (min-max) of {rounds} rounds, each command paired with its references",
        f"tierdeck --help vs python -c pass: {_spread(help_ratios)}; goal <= 2x: "
        f"{verdict(help_ratios, 2.0)} ({_ms(times['help'])} vs {_ms(floor)}; "
        f"python -c 'import click' alone: {_spread(click_ratios)})",
        f"tierdeck history list --json, {RUNS_LISTED} runs, vs 2x python -c pass + sqlite3 "
        f"reading the same rows: {_spread(list_ratios)} of the bound; goal <= 1x: "
        f"{verdict(list_ratios, 1.0)} ({_ms(times['list'])} vs 2 x {_ms(floor)} + "
        f"{_ms(times['sqlite'])})",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", help="a git revision to pair with, command by command")
    parser.add_argument("--rounds", type=int, default=15, help="paired rounds (15)")
    parser.add_argument("--no-append", action="store_true", help="print only")
    args = parser.parse_args()
    compile_bytecode(REPO)
    with tempfile.TemporaryDirectory(prefix="tierdeck-cli-start-") as tmp:
        data = Path(tmp) / "data"
        lines = goals(args.rounds, data)
        print("\n".join(lines))
        if args.against is not None:
            lines += against(args.against, args.rounds, Path(tmp) / "other", data)
        if not args.no_append:
            append_run(SECTION, "`bench/cli_start.py`", lines)
            print("appended to docs/performance.md")


def against(revision: str, rounds: int, folder: Path, data: Path) -> list[str]:
    """Each command of COMMANDS, this tree then ``revision``, round by round (printed as
    it goes; the lines returned)."""
    other = extract(revision, folder)
    compile_bytecode(other)
    # This tree is the venv's own install (its editable finder); the other goes first
    # on PYTHONPATH, which Python searches before that finder. This tree reads the
    # goals' history of 100 runs, the other the same runs saved by its own code.
    here_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    here_env["TIERDECK_DATA_DIR"] = str(data)
    other_data = folder / "data"
    other_env = {**here_env, "PYTHONPATH": str(other), "TIERDECK_DATA_DIR": str(other_data)}
    build_in(other / "tierdeck", other_data, other_env)
    python = sys.executable
    lines = [
        f"this tree against {revision}, {rounds} paired rounds; ratio < 1: this tree is faster",
        f"{'command':<32} {'this/other':>11} {'spread':>15} {'this/floor':>11} {'other/floor':>12}",
    ]
    print("\n".join(lines))
    for command in COMMANDS:
        argv = [python, "-m", "tierdeck.app.cli", *command]
        floor_argv = [python, "-c", "pass"]
        for _ in range(2):  # warm the page cache
            timed(argv, here_env)
            timed(argv, other_env)
        ratios, here, there, floor = [], [], [], []
        for _ in range(rounds):
            a = timed(argv, here_env)
            b = timed(argv, other_env)
            f = timed(floor_argv, here_env)
            ratios.append(a / b)
            here.append(a)
            there.append(b)
            floor.append(f)
        floor_median = statistics.median(floor)
        line = (
            f"tierdeck {' '.join(command):<23} {statistics.median(ratios):>11.2f} "
            f"{min(ratios):>7.2f}-{max(ratios):<7.2f} "
            f"{statistics.median(here) / floor_median:>11.1f}x "
            f"{statistics.median(there) / floor_median:>11.1f}x"
        )
        print(line)
        lines.append(line)
    return lines


if __name__ == "__main__":
    main()
