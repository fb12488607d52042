"""How fast tierdeck's CLI starts: this tree against another revision, paired.

    .venv/bin/python bench/cli_start.py --against 945c7bc [--rounds 15]

For each command (``tierdeck --help``, ``bench --help``, ``history --help``, ``layout
--help``, ``mover --help``) both trees run in turn, this one then the other, round after
round, with the same Python: the other revision is a ``git archive`` of it in a temporary
folder put first on PYTHONPATH. Each round gives one ratio (this tree / the other), so a
machine that speeds up or slows down during the run moves both sides of it; the median of
the ratios is printed, with the spread. ``python -c pass`` runs in the same rounds as the
floor, and each tree's median is also printed as a multiple of it. No bare times: this
machine is shared.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
COMMANDS = (
    ("--help",),
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


def timed(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=True)  # fmt: skip
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", required=True, help="the git revision to pair with")
    parser.add_argument("--rounds", type=int, default=15, help="paired rounds (15)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tierdeck-cli-start-") as tmp:
        other = extract(args.against, Path(tmp))
        # This tree is the venv's own install (its editable finder); the other goes first
        # on PYTHONPATH, which Python searches before that finder.
        here_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        other_env = {**os.environ, "PYTHONPATH": str(other)}
        python = sys.executable
        print(f"this tree against {args.against}, {args.rounds} paired rounds; "
              "ratio < 1: this tree starts faster")  # fmt: skip
        print(f"{'command':<22} {'this/other':>11} {'spread':>15} {'this/floor':>11} "
              f"{'other/floor':>12}")  # fmt: skip
        for command in COMMANDS:
            argv = [python, "-m", "tierdeck.app.cli", *command]
            floor_argv = [python, "-c", "pass"]
            for _ in range(2):  # warm the page cache and the bytecode of both trees
                timed(argv, here_env)
                timed(argv, other_env)
            ratios, here, there, floor = [], [], [], []
            for _ in range(args.rounds):
                a = timed(argv, here_env)
                b = timed(argv, other_env)
                f = timed(floor_argv, here_env)
                ratios.append(a / b)
                here.append(a)
                there.append(b)
                floor.append(f)
            floor_median = statistics.median(floor)
            print(f"tierdeck {' '.join(command):<13} {statistics.median(ratios):>11.2f} "
                  f"{min(ratios):>7.2f}-{max(ratios):<7.2f} "
                  f"{statistics.median(here) / floor_median:>11.1f}x "
                  f"{statistics.median(there) / floor_median:>11.1f}x")  # fmt: skip


if __name__ == "__main__":
    main()
