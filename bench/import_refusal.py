"""How fast, and in how much memory, is a file that is not fio output refused?

``tierdeck history import FILE`` of 50 MB of random bytes (a disk image or an archive
named by mistake), as a whole CLI process with its own empty history, against two
references run the same way in fresh processes:

- ``python -c pass``: the interpreter alone;
- reading the same file once (``open(FILE, "rb").read()``): what any reader of the
  whole file must pay.

Each figure is the median of N runs: wall time (s) and peak RSS (MiB) from
bench/_maxrss.py, and the ratio of the import to each reference.

Usage: .venv/bin/python bench/import_refusal.py [--runs N] [--mb SIZE]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _measure(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of one fresh process."""
    proc = subprocess.run(
        [sys.executable, str(HERE / "_maxrss.py"), *argv],
        capture_output=True,
        text=True,
        env=env,
    )
    wall, rss_kib = proc.stderr.strip().splitlines()[-1].split()
    return float(wall), int(rss_kib) / 1024


def _median(argv: list[str], env: dict[str, str], runs: int) -> tuple[float, float]:
    figures = [_measure(argv, env) for _ in range(runs)]
    return statistics.median(f[0] for f in figures), statistics.median(f[1] for f in figures)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--mb", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "random.bin"
        path.write_bytes(random.Random(13).randbytes(args.mb * 10**6))
        env = {**os.environ, "TIERDECK_DATA_DIR": str(Path(tmp) / "data")}
        cli = "from tierdeck.app.cli import main; main()"
        tierdeck = [sys.executable, "-c", cli, "history", "import", str(path)]
        cases = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "read the file once": [
                sys.executable,
                "-c",
                f"open({str(path)!r}, 'rb').read()",
            ],
            "tierdeck history import": tierdeck,
        }
        figures = {name: _median(argv, env, args.runs) for name, argv in cases.items()}
        check = subprocess.run(tierdeck, capture_output=True, text=True, env=env)
    print(f"{args.mb} MB of random bytes, median of {args.runs} fresh processes")
    for name, (wall, rss) in figures.items():
        print(f"  {name:<26} {wall:7.3f} s  {rss:8.1f} MiB")
    wall, rss = figures["tierdeck history import"]
    for name in ("python -c pass", "read the file once"):
        ref_wall, ref_rss = figures[name]
        print(f"  import / {name:<17} time x{wall / ref_wall:.2f}  memory x{rss / ref_rss:.2f}")
    print(f"  exit status {check.returncode}: {check.stderr.strip()}")


if __name__ == "__main__":
    main()
