"""The mover on the lab NAS (issue 10): cache = the btrfs raid1, slow = the slow pool's
branches (ext4 hdd0, xfs hdd1). Each test works in a fresh sub-tree of every branch
(the layout's branches are those sub-folders), checks every file's content before and
after, and removes its sub-trees.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import shutil
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from tierdeck.app.layout.files import save_layout
from tierdeck.app.mover.run import MoverOptions, MoverProgress, MoverReport, run_mover
from tierdeck.backends.host import LiveHost
from tierdeck.core.layout.model import Branch, Layout, default_layout
from tierdeck.core.mover import TEMP_PREFIX, CacheUsage, MoveReason, SkipReason, StopReason

pytestmark = pytest.mark.integration  # root, the lab NAS

MIB = 1024**2
DAY = 86400


@dataclasses.dataclass
class Lab:
    cache: Path
    slow: tuple[Path, Path]
    layout: Layout
    layout_path: Path

    def places(self, rel: str) -> list[Path]:
        return [b / rel for b in (self.cache, *self.slow) if os.path.lexists(b / rel)]

    def run(self, **kw: object) -> MoverReport:
        return self.run_with(lambda p: None, **kw)

    def run_with(self, on_progress: object, **kw: object) -> MoverReport:
        save_layout(self.layout_path, self.layout)
        return run_mover(LiveHost(), self.layout, self.layout_path, MoverOptions(**kw),  # type: ignore[arg-type]
                         on_progress=on_progress, cancel=threading.Event())  # type: ignore[arg-type]  # fmt: skip


@pytest.fixture
def lab(lab_nas: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Lab]:
    monkeypatch.setenv("TIERDECK_DATA_DIR", str(tmp_path / "data"))
    sub = f"mover-{uuid.uuid4().hex[:8]}"
    mnt = lab_nas / "mnt"
    branches = [mnt / "cache" / sub, mnt / "hdd0" / sub, mnt / "hdd1" / sub]
    for b in branches:
        b.mkdir()
    layout = default_layout(
        (str(branches[0]),),
        (Branch(str(branches[1])), Branch(str(branches[2]))),
        str(tmp_path / "tiered"),
        str(tmp_path / "slow"),
    )
    pool = layout.slow_pool
    assert pool is not None
    options = dataclasses.replace(pool.options, minfreespace_bytes=MIB)
    layout = dataclasses.replace(layout, slow_pool=dataclasses.replace(pool, options=options))
    # The lab's small cache disk holds less than mergerfs's default 4G: the minfreespace
    # rule (every mover run checks it) would refuse the tiered pool's.
    tiered = dataclasses.replace(layout.tiered_pool.options, minfreespace_bytes=MIB)
    layout = dataclasses.replace(
        layout, tiered_pool=dataclasses.replace(layout.tiered_pool, options=tiered)
    )
    try:
        yield Lab(branches[0], (branches[1], branches[2]), layout, tmp_path / "lab.toml")
    finally:
        for b in branches:
            shutil.rmtree(b, ignore_errors=True)


def put(lab: Lab, rel: str, size: int, stamp: float) -> str:
    path = lab.cache / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    data = os.urandom(size)
    path.write_bytes(data)
    os.utime(path, (stamp, stamp))
    return hashlib.sha256(data).hexdigest()


def sha(path: Path) -> str:
    # O_NOATIME: checking a cached file must not make it young (relatime would).
    fd = os.open(path, os.O_RDONLY | os.O_NOATIME)
    with os.fdopen(fd, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def assert_once_and_whole(lab: Lab, sums: dict[str, str]) -> None:
    for rel, digest in sums.items():
        found = lab.places(rel)
        assert len(found) == 1, f"{rel} in {found}"
        assert sha(found[0]) == digest, rel
    for b in (lab.cache, *lab.slow):
        temps = [p for p in b.rglob("*") if p.name.startswith(TEMP_PREFIX)]
        assert not temps


def test_age_policy_moves_exactly_the_old_files(lab: Lab) -> None:
    now = time.time()
    old = {
        f"tv/s1/e{i}.mkv": put(lab, f"tv/s1/e{i}.mkv", 2 * MIB, now - 40 * DAY) for i in range(4)
    }
    young = {f"new/{i}": put(lab, f"new/{i}", MIB, now - DAY / 2) for i in range(3)}
    mtime_old = put(lab, "read/today", MIB, now - 40 * DAY)
    os.utime(lab.cache / "read/today", (now, now - 40 * DAY))  # read today, written long ago
    report = lab.run()
    assert report.ok, report.message
    assert sorted(o.move.file.rel for o in report.outcomes if o.moved) == sorted(old)
    for rel in old:
        assert lab.places(rel)[0].is_relative_to(lab.slow[0].parent.parent)
        assert not (lab.cache / rel).exists()
    for rel in young:
        assert lab.places(rel) == [lab.cache / rel]
    assert lab.places("read/today") == [lab.cache / "read/today"]  # atime basis
    assert_once_and_whole(lab, {**old, **young, "read/today": mtime_old})


def test_watermark_policy_moves_the_oldest_until_below_low(lab: Lab) -> None:
    now = time.time()
    sums = {f"f{i:02}": put(lab, f"f{i:02}", 8 * MIB, now - 3600 * (20 - i)) for i in range(10)}
    os.sync()
    fs = os.statvfs(lab.cache)
    use = CacheUsage(
        str(lab.cache), (fs.f_blocks - fs.f_bfree) * fs.f_frsize, fs.f_bavail * fs.f_frsize
    )
    total = use.used_bytes + use.avail_bytes
    # Low watermark: 3.5 files' worth below today's fill, so exactly the 4 oldest go.
    low = int((use.used_bytes - 28 * MIB) * 100 / total)
    high = int(use.fill_pct) - 1
    assert 0 <= low < high, (low, high, use)
    need = use.bytes_above(low)
    expected = 4 if 24 * MIB < need <= 32 * MIB else -(-need // (8 * MIB))
    mover = dataclasses.replace(lab.layout.mover, min_age_days=30, fill_high_pct=high,
                                fill_low_pct=low)  # fmt: skip
    lab.layout = dataclasses.replace(lab.layout, mover=mover)
    report = lab.run()
    assert report.ok, report.message
    moved = sorted(o.move.file.rel for o in report.outcomes if o.moved)
    assert moved == [f"f{i:02}" for i in range(expected)]
    assert all(o.move.reason is MoveReason.FILL for o in report.outcomes)
    assert_once_and_whole(lab, sums)


def test_open_file_skipped_then_moved_once_closed(lab: Lab) -> None:
    old = time.time() - 40 * DAY
    sums = {"held.bin": put(lab, "held.bin", MIB, old), "free.bin": put(lab, "free.bin", MIB, old)}
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys; f = open(sys.argv[1], 'rb'); sys.stdin.read()",
         str(lab.cache / "held.bin")],
        stdin=subprocess.PIPE,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 10
        while not any(str(lab.cache / "held.bin") == f for f in _open_by(holder.pid)):
            assert time.monotonic() < deadline, "the holder never opened the file"
            time.sleep(0.05)
        report = lab.run()
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(10)
    assert [(o.move.file.rel, o.skip) for o in report.skipped] == [("held.bin", SkipReason.OPEN)]
    assert report.files_moved == 1
    assert lab.places("held.bin") == [lab.cache / "held.bin"]
    report = lab.run()
    assert report.files_moved == 1 and report.ok
    assert_once_and_whole(lab, sums)
    assert not (lab.cache / "held.bin").exists()


def _open_by(pid: int) -> list[str]:
    fd_dir = f"/proc/{pid}/fd"
    out = []
    for fd in os.listdir(fd_dir):
        try:
            out.append(os.readlink(f"{fd_dir}/{fd}"))
        except OSError:
            pass
    return out


def test_file_appended_during_the_move_stays_on_the_cache(lab: Lab) -> None:
    old = time.time() - 40 * DAY
    original = put(lab, "growing.log", 96 * MIB, old)  # several seconds at the HDD throttle
    target = lab.cache / "growing.log"
    appended: list[bytes] = []
    stop = threading.Event()

    def appender() -> None:
        while not stop.is_set():
            chunk = os.urandom(512)
            with target.open("ab") as f:
                f.write(chunk)
            appended.append(chunk)
            stop.wait(0.05)

    worker = threading.Thread(target=appender)

    def on_progress(p: MoverProgress) -> None:
        if p.bytes_done > 0 and not worker.is_alive() and not stop.is_set():
            worker.start()

    try:
        report = lab.run_with(on_progress)
    finally:
        stop.set()
        if worker.is_alive():
            worker.join()
    assert appended, "the move finished before the appender started"
    assert report.files_moved == 0
    (skip,) = report.skipped
    assert skip.skip in (SkipReason.CHANGED, SkipReason.OPEN)
    assert lab.places("growing.log") == [target]
    data = target.read_bytes()
    assert hashlib.sha256(data[: 96 * MIB]).hexdigest() == original
    assert data[96 * MIB :] == b"".join(appended)
    assert_once_and_whole(lab, {})


def test_slow_tier_filling_up_mid_run_stops_with_nothing_lost(
    lab: Lab, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Batches of two files: the filler starts once the first batch is in, and the
    # batches after it find the slow tier full.
    monkeypatch.setattr("tierdeck.app.mover.run.BATCH_FILES", 2)
    old = time.time() - 40 * DAY
    sums = {f"f{i:02}": put(lab, f"f{i:02}", 6 * MIB, old) for i in range(16)}
    fillers = [b / "filler" for b in lab.slow]
    started = threading.Event()

    def fill() -> None:
        for path in fillers:
            with path.open("wb") as f:
                try:
                    while True:
                        f.write(b"\xff" * MIB)
                except OSError:
                    pass

    def on_progress(p: MoverProgress) -> None:
        if p.files_done >= 2 and not started.is_set():
            started.set()
            fill()  # from the ticker thread: the move goes on meanwhile

    report = lab.run_with(on_progress)
    for path in fillers:
        path.unlink(missing_ok=True)
    assert started.is_set()
    assert report.stopped is StopReason.NO_SPACE, report.message
    assert "no space" in report.message.lower() or "stopped" in report.message
    assert report.files_moved < len(sums)
    assert_once_and_whole(lab, sums)
    # The next run, with room again, moves the rest.
    left = sum(1 for r in sums if (lab.cache / r).exists())
    report = lab.run()
    assert report.ok and report.files_moved == left, report.message
    assert_once_and_whole(lab, sums)
    assert not [r for r in sums if (lab.cache / r).exists()]
