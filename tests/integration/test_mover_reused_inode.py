"""A kill -9 of the mover after a group's sources were unlinked, before its journal went,
then a new file at a source's path on the inode number the unlinked source had: the
next run's recovery must leave both the moved copy and the new file alone.

Recovery used to compare the file at the source's path with the source as read by inode
number first: the same number and other times or size read as "the source changed after
the copy", and the moved copy (the only copy of that file left) was removed. On ext4 (and
most disk filesystems) a freed inode number goes to the next file created in the same
folder, so the new file often has it; tmpfs never reuses one, hence the test's folders
on the test machine's own disk (tmp_path). A unit test
(tests/unit/backends/mover/test_mover_files.py) gives the journal the new file's number
itself, wherever the tests run.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from tierdeck.backends.mover.engine import LocalFileMover
from tierdeck.core.mover import TEMP_PREFIX

from tests.support.mover_child import kill_when_paused
from tests.support.mover_tree import OLD_NS

from ..paths import REPO

pytestmark = pytest.mark.integration  # a child process killed with SIGKILL

ORIGINAL = b"the only copy of this report once its source is unlinked\n" * 300
NEW = b"a new file, written after the move\n"
FILLERS = 500  # free inode numbers below the source's, taken until the new file gets it


def _new_file_on(path: Path, ino: int) -> int:
    """Create ``path`` with NEW, on inode number ``ino`` when the filesystem gives it
    (other free numbers are taken by fillers beside it first); its inode number."""
    for index in range(FILLERS):
        path.write_bytes(NEW)
        got = path.stat().st_ino
        if got == ino:
            return got
        path.rename(path.with_name(f"filler-{index}"))  # keeps the number it took
    path.write_bytes(NEW)
    return path.stat().st_ino


def test_a_new_file_on_a_reused_inode_after_a_kill_keeps_the_moved_copy(tmp_path: Path) -> None:
    cache, slow, journal = tmp_path / "cache", tmp_path / "slow", tmp_path / "journal"
    (cache / "docs").mkdir(parents=True)
    slow.mkdir()
    source = cache / "docs" / "report.txt"
    source.write_bytes(ORIGINAL)
    os.utime(source, ns=(OLD_NS, OLD_NS))
    unlinked_ino = source.stat().st_ino
    argv = [sys.executable, "-m", "tests.support.mover_child", str(cache), str(slow),
            str(journal), "--pause-at-journal-removal"]  # fmt: skip
    child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                             cwd=REPO)  # fmt: skip
    line = kill_when_paused(child)
    assert line.startswith("paused"), line
    moved = slow / "docs" / "report.txt"
    assert not source.exists() and moved.read_bytes() == ORIGINAL
    assert len(os.listdir(journal)) == 1  # the kill left the settled group's journal

    reused = _new_file_on(source, unlinked_ino) == unlinked_ino
    LocalFileMover(str(journal), verify=False).recover()

    assert moved.read_bytes() == ORIGINAL, "recovery removed the moved copy"
    assert source.read_bytes() == NEW, "recovery touched the new file"
    assert os.listdir(journal) == []
    assert [p for p in tmp_path.rglob(f"{TEMP_PREFIX}*")] == []
    if not reused:  # the other half of the case still ran; the unit test has the reuse
        pytest.skip(f"this filesystem gave the new file another inode than {unlinked_ino}")
