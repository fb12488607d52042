"""kill -9 of the mover at random points, then recovery and a normal run: every file
exactly once, with its original content and metadata, and no temp file left.

The mover is a child process (tests/support/mover_child.py) moving a seeded tree (mixed
sizes, a sparse file, xattrs, a symlink, nested folders) between two tmpfs branches. It
counts the engine's steps (each os call that changes or flushes a file) and stops
before step K, saying so on stdout: the test waits for that line (a condition, never a
time), kills it with SIGKILL, runs ``recover()`` and a normal move, and compares every
file with the snapshot taken before. K is drawn (seeded) from all the steps of a whole
move of that tree, measured by an uninterrupted run of the same child.
"""

from __future__ import annotations

import collections
import os
import random
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from tierdeck.backends.mover.engine import GROUP_FILES, LocalFileMover
from tierdeck.core.mover import TEMP_PREFIX

from tests.conftest import MountDir
from tests.support.mover_tree import empty, make_tree, planned, snapshot

from ..paths import REPO

pytestmark = pytest.mark.integration  # root: tmpfs mounts

ITERATIONS = 25
# (tree seed, verify, files per group): one group, groups of one, and between.
CONFIGS = [(0, False, 1), (1, True, 3), (2, False, GROUP_FILES), (3, True, 1), (4, False, 5)]


def _child(cache: Path, slow: Path, journal: Path, verify: bool, group: int,
           pause_at: int | None) -> subprocess.Popen[str]:  # fmt: skip
    argv = [sys.executable, "-m", "tests.support.mover_child", str(cache), str(slow),
            str(journal), "--group-files", str(group)]  # fmt: skip
    if verify:
        argv.append("--verify")
    if pause_at is not None:
        argv += ["--pause-at", str(pause_at)]
    return subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            cwd=REPO)  # fmt: skip


def _steps_of_a_whole_move(cache: Path, slow: Path, journal: Path, config: tuple[int, bool, int]) -> int:  # fmt: skip
    seed, verify, group = config
    make_tree(cache, seed)
    child = _child(cache, slow, journal, verify, group, None)
    out, _ = child.communicate(timeout=60)
    assert child.returncode == 0, out
    empty(cache, slow)
    return int(out.split()[1])


def test_kill_9_at_random_points_loses_nothing(tmpfs_dir: MountDir, tmp_path: Path) -> None:
    rng = random.Random(20240610)
    journal = tmp_path / "journal"
    actions: collections.Counter[str] = collections.Counter()
    with tmpfs_dir("cache") as cache, tmpfs_dir("slow") as slow:
        steps = {c: _steps_of_a_whole_move(cache, slow, journal, c) for c in CONFIGS}
        for iteration in range(ITERATIONS):
            config = CONFIGS[iteration % len(CONFIGS)]
            seed, verify, group = config
            make_tree(cache, seed)
            before = snapshot(cache)
            pause_at = rng.randint(1, steps[config])
            child = _child(cache, slow, journal, verify, group, pause_at)
            assert child.stdout is not None
            line = child.stdout.readline()  # blocks until the child is at step K
            assert line == f"paused {pause_at}\n", line
            os.kill(child.pid, signal.SIGKILL)
            child.wait(timeout=30)
            assert child.returncode == -signal.SIGKILL
            child.stdin.close()  # type: ignore[union-attr]
            child.stdout.close()

            mover = LocalFileMover(str(journal), verify=verify)
            actions.update(r.action.value for r in mover.recover())
            left = mover.move_batch(planned(cache, slow), frozenset(), threading.Event(),
                                    lambda n: None)  # fmt: skip
            assert all(o.moved for o in left), (pause_at, [o for o in left if not o.moved])
            where = f"iteration {iteration}, killed before step {pause_at} of {steps[config]}"
            assert snapshot(slow) == before, where
            assert snapshot(cache) == {}, where
            assert [p for p in (*cache.rglob("*"), *slow.rglob("*")) if p.name.startswith(TEMP_PREFIX)] == [], where  # fmt: skip
            assert os.listdir(journal) == [], where
            empty(cache, slow)
    # the kills landed on both sides of the rename, not only before any copy
    assert actions["temp-removed"] and actions["finished"], actions
