"""The mover's engine against a destination that fills up or is read-only (tmpfs
mounts, so root): the run stops with the reason, the groups already moved are moved,
every other file whole on the cache, no temp file, an empty journal."""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path

import pytest
from tierdeck.backends.mover import engine as mover_files
from tierdeck.backends.mover.engine import LocalFileMover, MoveStopped
from tierdeck.core.mover import TEMP_PREFIX, StopReason

from tests.conftest import MountDir
from tests.support.mover_tree import planned, snapshot

pytestmark = pytest.mark.integration  # root: tmpfs mounts


def _cache(tmp_path: Path, sizes: dict[str, int]) -> Path:
    cache = tmp_path / "cache"
    for rel, size in sizes.items():
        (cache / rel).parent.mkdir(parents=True, exist_ok=True)
        (cache / rel).write_bytes(os.urandom(size))
    return cache


def test_a_full_destination_stops_the_run_and_loses_nothing(
    tmpfs_dir: MountDir, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(mover_files, "GROUP_FILES", 1)
    cache = _cache(tmp_path, {"a/f0": 300_000, "a/f1": 300_000, "b/f2": 600_000, "b/f3": 1000})
    before = snapshot(cache)
    journal = tmp_path / "journal"
    with tmpfs_dir("slow", size="1m") as slow:
        with pytest.raises(MoveStopped) as stopped:
            LocalFileMover(str(journal), verify=False).move_batch(
                planned(cache, slow), frozenset(), threading.Event(), lambda n: None)  # fmt: skip
        assert stopped.value.reason is StopReason.NO_SPACE
        assert "No space left" in stopped.value.detail and "b/f2" in stopped.value.detail
        assert [(o.move.file.rel, o.moved) for o in stopped.value.outcomes] == [
            ("a/f0", True), ("a/f1", True)]  # fmt: skip
        moved = snapshot(slow)
        assert moved == {k: before[k] for k in ("a/f0", "a/f1")}
        assert snapshot(cache) == {k: before[k] for k in ("b/f2", "b/f3")}
        assert not [p for p in slow.rglob("*") if p.name.startswith(TEMP_PREFIX)]
        assert os.listdir(journal) == []


def test_a_read_only_destination_stops_the_run(tmpfs_dir: MountDir, tmp_path: Path) -> None:
    cache = _cache(tmp_path, {"f": 1000, "d/g": 2000})
    before = snapshot(cache)
    journal = tmp_path / "journal"
    with tmpfs_dir("slow") as slow:
        subprocess.run(["mount", "-o", "remount,ro", str(slow)], check=True, timeout=30)
        with pytest.raises(MoveStopped) as stopped:
            LocalFileMover(str(journal), verify=False).move_batch(
                planned(cache, slow), frozenset(), threading.Event(), lambda n: None)  # fmt: skip
        assert stopped.value.reason is StopReason.READ_ONLY
        assert stopped.value.outcomes == ()
        assert snapshot(cache) == before and list(slow.iterdir()) == []
        assert os.listdir(journal) == []
