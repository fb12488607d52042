"""A kill -9 in the middle of a move must not postpone the files it had read.

The cache is a tmpfs mounted ``strictatime`` (relatime would leave a 30-day-old atime
alone only until the first read of the day, hiding the bug for a day's first run).
The mover child (tests/support/mover_child.py) runs as a user who may write the
folders but owns none of the files, as a mover run by an account other than the
files' owner: the kernel refuses it O_NOATIME (EPERM: neither the owner nor
CAP_FOWNER), so it reads with a plain open, which dates each file it reads. It is
killed (SIGKILL) when it says it reached step K (a condition, never a time); then
the layout's own run, as root, recovers its journal and must move every file the
killed run left, by age, each with its content (sha256), none lost.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from tierdeck.app.layout.files import save_layout
from tierdeck.app.mover.run import MoverOptions, journal_dir, run_mover
from tierdeck.backends.host import LiveHost

from tests.conftest import MountDir
from tests.support.mover_child import kill_when_paused, steps_of_whole
from tests.support.mover_tree import empty, small_disk_layout

from ..paths import REPO

pytestmark = pytest.mark.integration  # root: tmpfs mounts, another uid

MOVER_UID = 4242  # owns nothing here
OLD_NS = 1_600_000_000 * 10**9  # 2020: far older than the layout's min_age_days
FILES = 8
SIZE = 256 * 1024


def _child(cache: Path, slow: Path, journal: Path, pause_at: int | None) -> subprocess.Popen[str]:
    argv = ["setpriv", f"--reuid={MOVER_UID}", f"--regid={MOVER_UID}", "--clear-groups",
            sys.executable, "-B", "-m", "tests.support.mover_child", str(cache), str(slow),
            str(journal), "--group-files", str(FILES)]  # fmt: skip
    if pause_at is not None:
        argv += ["--pause-at", str(pause_at)]
    return subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            cwd=REPO)  # fmt: skip


def _old_files(cache: Path) -> dict[str, str]:
    sums = {}
    for i in range(FILES):
        data = os.urandom(SIZE)
        path = cache / "tv" / f"e{i}.mkv"
        path.parent.mkdir(exist_ok=True)
        path.parent.chmod(0o777)
        path.write_bytes(data)
        path.chmod(0o644)
        os.utime(path, ns=(OLD_NS, OLD_NS))
        sums[f"tv/e{i}.mkv"] = hashlib.sha256(data).hexdigest()
    return sums


def test_a_kill_mid_move_postpones_nothing(
    tmpfs_dir: MountDir, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TIERDECK_DATA_DIR", str(tmp_path / "data"))
    # the mover's user reaches the mounts: every folder from pytest's own temporary root
    # down (a worker of pytest-xdist adds a level of its own)
    for folder in (tmp_path, *tmp_path.parents):
        folder.chmod(folder.stat().st_mode | 0o011)
        if folder.name.startswith("pytest-of-"):
            break
    with tmpfs_dir("cache", opts="strictatime") as cache, tmpfs_dir("slow") as slow:
        for folder in (cache, slow):
            folder.chmod(0o777)
        layout = small_disk_layout(cache, (slow,), tmp_path / "pool", tmp_path / "slowpool")
        layout_path = tmp_path / "media.toml"
        save_layout(layout_path, layout)
        journal = journal_dir(layout_path)
        journal.mkdir(parents=True)
        os.chown(journal, MOVER_UID, MOVER_UID)

        _old_files(cache)
        steps = steps_of_whole(_child(cache, slow, journal, None))
        stuck = []
        for pause_at in (steps // 4, steps // 2, 3 * steps // 4):
            empty(cache, slow)
            sums = _old_files(cache)
            line = kill_when_paused(_child(cache, slow, journal, pause_at))
            assert line == f"paused {pause_at}\n", line

            report = run_mover(LiveHost(), layout, layout_path, MoverOptions(),
                               on_progress=lambda p: None, cancel=threading.Event())  # fmt: skip
            assert report.stopped is None, report.message
            for rel, digest in sums.items():
                places = [p for p in (cache, slow) if (p / rel).exists()]
                assert len(places) == 1, (pause_at, rel, places)  # never lost nor doubled
                assert hashlib.sha256((places[0] / rel).read_bytes()).hexdigest() == digest
                if places[0] == cache:
                    stuck.append((pause_at, rel))
        assert stuck == [], f"left on the cache after a kill before step (K, file): {stuck}"
