"""A mover process to kill: moves every file of a cache folder to a slow folder with
the engine, counting the engine's steps (each call that changes or flushes a file:
open, write, rename, unlink, fsync, syncfs, xattrs, times ...).

    python -m tests.support.mover_child CACHE SLOW JOURNAL [--verify] [--group-files N]
                                        [--pause-at K | --pause-at-journal-removal]

With ``--pause-at K`` it stops before its K-th step, prints ``paused K`` on stdout and
waits (on stdin) to be killed: the killer waits for that line, a condition, never a
time. ``--pause-at-journal-removal`` stops the same way before the step that removes
the first group's journal (its copies in place, its sources unlinked, durably). Without
either (or when the move ends first) it prints ``done STEPS`` and exits 0.
Used by tests/integration/test_mover_crash.py and bench/mover_soak.py.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tierdeck.backends.mover import engine as mover_files
from tierdeck.backends.mover import journal as mover_journal
from tierdeck.backends.mover import recovery as mover_recovery  # imports the engine's modules

from tests.support.mover_tree import planned

# Every os call through which the engine changes or flushes something on disk.
STEPS = ("open", "write", "pwrite", "copy_file_range", "sendfile", "ftruncate", "fsync",
         "rename", "replace", "link", "unlink", "mkdir", "symlink", "chown", "chmod",
         "setxattr", "removexattr", "utime")  # fmt: skip


class Counter:
    def __init__(self, pause_at: int | None, *, at_journal_removal: bool = False) -> None:
        self.steps = 0
        self.pause_at = pause_at
        self.at_journal_removal = at_journal_removal
        # The engine copies in threads: one step at a time, and the pause holds the
        # lock, so every other thread stops at its next step too.
        self.lock = threading.Lock()

    def step(self, name: str = "", args: tuple[Any, ...] = ()) -> None:
        with self.lock:
            self.steps += 1
            removal = (self.at_journal_removal and name == "unlink" and bool(args)
                       and str(args[0]).endswith(mover_journal.SUFFIX))  # fmt: skip
            if self.steps == self.pause_at or removal:
                sys.stdout.write(f"paused {self.steps}\n")
                sys.stdout.flush()
                sys.stdin.read()  # until killed
                os._exit(3)  # the parent closed stdin instead of killing: still no cleanup

    def wrap(self, func: Callable[..., Any], name: str = "") -> Callable[..., Any]:
        def counted(*args: Any, **kwargs: Any) -> Any:
            self.step(name, args)
            return func(*args, **kwargs)

        return counted


def instrument(counter: Counter) -> None:
    for name in STEPS:
        setattr(os, name, counter.wrap(getattr(os, name), name))
    mover_files.syncfs = counter.wrap(mover_files.syncfs)  # type: ignore[attr-defined]
    for module in (mover_files, mover_recovery):
        module.rename_noreplace = counter.wrap(module.rename_noreplace)  # type: ignore[attr-defined]


def steps_of_whole(child: subprocess.Popen[str]) -> int:
    """The steps of an uninterrupted child's move (it prints ``done STEPS``)."""
    out, _ = child.communicate(timeout=60)
    assert child.returncode == 0, out
    return int(out.split()[1])


def kill_when_paused(child: subprocess.Popen[str]) -> str:
    """SIGKILL the child once it says it paused (a condition, never a time); its line,
    ``paused K`` (killed) or ``done STEPS`` (the move ended first: left to exit)."""
    assert child.stdout is not None and child.stdin is not None
    line = child.stdout.readline()  # blocks until the child is at step K, or done
    if line.startswith("paused"):
        os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=30)
    child.stdin.close()
    child.stdout.close()
    return line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("cache", type=Path)
    parser.add_argument("slow", type=Path)
    parser.add_argument("journal")
    parser.add_argument("--verify", action="store_true")
    parser.add_argument("--group-files", type=int, default=mover_files.GROUP_FILES)
    parser.add_argument("--pause-at", type=int)
    parser.add_argument("--pause-at-journal-removal", action="store_true")
    args = parser.parse_args(argv)
    moves = planned(args.cache, args.slow)
    mover_files.GROUP_FILES = args.group_files
    mover = mover_files.LocalFileMover(args.journal, verify=args.verify)
    counter = Counter(args.pause_at, at_journal_removal=args.pause_at_journal_removal)
    instrument(counter)
    mover.move_batch(moves, frozenset(), threading.Event(), lambda n: None)
    sys.stdout.write(f"done {counter.steps}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
