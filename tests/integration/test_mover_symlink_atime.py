"""A kill -9 of the engine while it moves a symlink must not make the link look recently
used: with age_basis atime the next run would then keep it on the cache (found while
building bench/mover_soak.py, which counts such links apart from its failures).

The engine reads the link with readlink(2), which sets the link's atime (relatime: its
atime was older than a day), and does not put it back; there is no O_NOATIME for
readlink, and the journal does not keep the source's atime for recovery to restore.
The engine now journals a link's atime and recovery puts it back (backends/mover/recovery
restore_atime).

The child (tests/support/mover_child.py) moves a cache holding one old symlink and is
killed before each of its steps in turn; after recover() the link, still on the cache
or moved, has the atime it had.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from tierdeck.backends.mover.engine import LocalFileMover

from tests.conftest import MountDir
from tests.support.mover_child import kill_when_paused, steps_of_whole
from tests.support.mover_tree import OLD_NS

from ..paths import REPO

pytestmark = pytest.mark.integration  # root: tmpfs mounts

REPO = REPO


def _child(cache: Path, slow: Path, journal: Path, pause_at: int | None) -> subprocess.Popen[str]:
    argv = [sys.executable, "-m", "tests.support.mover_child", str(cache), str(slow),
            str(journal)]  # fmt: skip
    if pause_at is not None:
        argv += ["--pause-at", str(pause_at)]
    return subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            cwd=REPO)  # fmt: skip


def _old_link(cache: Path) -> Path:
    link = cache / "tv" / "latest"
    link.parent.mkdir(exist_ok=True)
    link.symlink_to("../music/track.flac")
    os.utime(link, ns=(OLD_NS, OLD_NS), follow_symlinks=False)
    return link


def test_kill_while_moving_a_symlink_keeps_its_atime(tmpfs_dir: MountDir, tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    journal.mkdir()
    with tmpfs_dir("cache") as cache, tmpfs_dir("slow") as slow:
        _old_link(cache)
        steps = steps_of_whole(_child(cache, slow, journal, None))
        young = []
        for pause_at in range(1, steps + 1):
            for entry in (cache / "tv", slow / "tv"):
                if entry.is_dir():
                    for p in entry.iterdir():
                        p.unlink()
            _old_link(cache)
            # (A later run may end first: it has fewer steps, tv/ exists on slow.)
            line = kill_when_paused(_child(cache, slow, journal, pause_at))
            assert line == f"paused {pause_at}\n" or line.startswith("done"), line
            LocalFileMover(str(journal), verify=False).recover()
            (where,) = [p for p in (cache / "tv/latest", slow / "tv/latest") if os.path.lexists(p)]
            if where.lstat().st_atime_ns != OLD_NS:
                young.append((pause_at, where.parent.parent.name))
        assert young == [], f"link dated today after a kill before step (K, where): {young}"
