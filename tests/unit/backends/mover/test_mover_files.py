"""The mover's engine on real files (tmp_path): every guarantee of the design, one by
one. What needs a filesystem of a given size or state (ENOSPC, read-only) is in
tests/integration/test_mover_engine.py; kill -9 at random points in test_mover_crash.py.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest
from tierdeck.app.mover.progress import MoverProgress, ProgressMeter, step_text
from tierdeck.backends.mover import engine as mover_files
from tierdeck.backends.mover.engine import LocalFileMover, MoveStopped
from tierdeck.backends.mover.journal import Journal
from tierdeck.core.mover import (
    TEMP_PREFIX,
    MoveOutcome,
    MovePhase,
    MoveStep,
    RecoveryAction,
    SkipReason,
    StopReason,
)

from tests.support.mover_tree import OLD_NS, make_tree, planned, snapshot, state_of

ROOT = os.geteuid() == 0


@pytest.fixture
def tiers(tmp_path: Path) -> tuple[Path, Path, Path]:
    cache, slow, journal = tmp_path / "cache", tmp_path / "slow", tmp_path / "journal"
    cache.mkdir()
    slow.mkdir()
    return cache, slow, journal


def move(mover: LocalFileMover, cache: Path, slow: Path, *, open_paths: frozenset[str] = frozenset(),
         cancel: threading.Event | None = None, on_bytes=None) -> tuple[MoveOutcome, ...]:  # type: ignore[no-untyped-def]  # fmt: skip
    return mover.move_batch(planned(cache, slow), open_paths, cancel or threading.Event(),
                            on_bytes or (lambda n: None))  # fmt: skip


def leftovers(*roots: Path) -> list[str]:
    return [str(p) for root in roots for p in root.rglob(f"{TEMP_PREFIX}*")]


@pytest.mark.parametrize("verify", [False, True])
def test_a_tree_moves_whole_with_its_metadata(tiers: tuple[Path, Path, Path], verify: bool) -> None:
    cache, slow, journal = tiers
    make_tree(cache, seed=7)
    if ROOT:
        os.chown(cache / "tv" / "show", 1234, 4321)
        for path in (cache / "tv" / "show").iterdir():
            os.chown(path, 1234, 4321, follow_symlinks=False)
    before = snapshot(cache)
    folders = {
        p.relative_to(cache): p.stat()
        for p in cache.rglob("*")
        if p.is_dir() and not p.is_symlink()
    }
    seen: list[int] = []
    outcomes = move(LocalFileMover(str(journal), verify=verify), cache, slow, on_bytes=seen.append)
    assert all(o.moved for o in outcomes), outcomes
    assert snapshot(slow) == before  # content, mode, owner, atime/mtime ns, xattrs, links, holes
    assert snapshot(cache) == {}
    assert sum(seen) == sum(o.move.file.size for o in outcomes if not o.move.file.is_symlink) - (8 * 2**20 - 4096 * 2)  # fmt: skip
    for rel, st in folders.items():  # folders made with the source's metadata ...
        made = (slow / rel).stat()
        assert (made.st_mode, made.st_uid, made.st_gid, made.st_mtime_ns) == (st.st_mode, st.st_uid, st.st_gid, st.st_mtime_ns)  # fmt: skip
        assert (cache / rel).is_dir()  # ... and the emptied source folders left in place
    assert leftovers(cache, slow) == [] and os.listdir(journal) == []


def test_a_sparse_file_stays_sparse(tiers: tuple[Path, Path, Path]) -> None:
    cache, slow, journal = tiers
    with open(cache / "vm.img", "wb") as fh:
        fh.truncate(64 * 2**20)
        fh.seek(10 * 2**20)
        fh.write(b"x" * 8192)
    move(LocalFileMover(str(journal), verify=False), cache, slow)
    st = (slow / "vm.img").stat()
    assert st.st_size == 64 * 2**20
    assert st.st_blocks * 512 <= 64 * 1024  # a few blocks, not 64 MiB


def test_reading_to_move_does_not_touch_atime(tiers: tuple[Path, Path, Path]) -> None:
    cache, slow, journal = tiers
    (cache / "old.mkv").write_bytes(b"a" * 10_000)
    os.utime(cache / "old.mkv", ns=(OLD_NS, OLD_NS))  # relatime would update it on a read
    cancel = threading.Event()
    with pytest.raises(MoveStopped) as stopped:  # interrupted after the read
        move(LocalFileMover(str(journal), verify=True), cache, slow, cancel=cancel,
             on_bytes=lambda n: cancel.set())  # fmt: skip
    assert stopped.value.reason is StopReason.CANCELLED
    assert (cache / "old.mkv").stat().st_atime_ns == OLD_NS
    move(LocalFileMover(str(journal), verify=True), cache, slow)
    assert (slow / "old.mkv").stat().st_atime_ns == OLD_NS


def test_reading_ahead_dates_nothing_follows_no_link_and_keeps_no_descriptor(
    tiers: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Small sources are read ahead while their group is checked: the atime stays (as
    the copy's own read), a symlink is not followed, a fifo put in a file's place does
    not block, a vanished path is no error, and no descriptor is left open (the next
    batch's open-files check sees this process's too)."""
    cache, slow, journal = tiers
    for index in range(30):
        (cache / f"f{index:02d}").write_bytes(os.urandom(5000))
        os.utime(cache / f"f{index:02d}", ns=(OLD_NS, OLD_NS))
    (cache / "link").symlink_to(cache / "f00")
    os.mkfifo(cache / "fifo")
    prefetched: list[str] = []
    real_prefetch = mover_files.fc.prefetch

    def watched(path: str) -> None:
        prefetched.append(os.path.basename(path))
        real_prefetch(path)

    monkeypatch.setattr(mover_files.fc, "prefetch", watched)
    descriptors = len(os.listdir("/proc/self/fd"))
    for name in ("f00", "link", "fifo", "gone"):
        real_prefetch(str(cache / name))
    assert len(os.listdir("/proc/self/fd")) == descriptors
    assert (cache / "f00").stat().st_atime_ns == OLD_NS
    outcomes = move(LocalFileMover(str(journal), verify=False), cache, slow)
    assert len([o for o in outcomes if o.moved]) == 31  # the fifo stays: a special file
    assert sorted(prefetched) == [f"f{index:02d}" for index in range(30)]  # not the link
    assert all((slow / f"f{index:02d}").stat().st_atime_ns == OLD_NS for index in range(30))
    assert len(os.listdir("/proc/self/fd")) == descriptors


@pytest.mark.skipif(shutil.which("setfacl") is None, reason="setfacl (package acl) not installed")
def test_acls_are_kept_and_a_default_acl_of_the_destination_not_added(tiers: tuple[Path, Path, Path]) -> None:  # fmt: skip
    cache, slow, journal = tiers
    (cache / "share").mkdir()
    (cache / "share" / "with-acl").write_text("a")
    (cache / "share" / "plain").write_text("b")
    subprocess.run(["setfacl", "-m", "u:nobody:rw", str(cache / "share" / "with-acl")], check=True)
    subprocess.run(["setfacl", "-d", "-m", "u:nobody:rx", str(cache / "share")], check=True)
    (slow / "share").mkdir()  # already there, with a default ACL the files must not inherit
    subprocess.run(["setfacl", "-d", "-m", "g:nogroup:rwx", str(slow / "share")], check=True)
    before = snapshot(cache)
    move(LocalFileMover(str(journal), verify=False), cache, slow)
    assert snapshot(slow) == before

    def acl(path: Path) -> str:
        return subprocess.run(["getfacl", "-cp", str(path)], capture_output=True, text=True, check=True).stdout  # fmt: skip

    assert "user:nobody:rw-" in acl(slow / "share" / "with-acl")
    assert acl(slow / "share" / "plain") == "user::rw-\ngroup::r--\nother::r--\n\n"


def test_what_is_not_moved_says_why_and_stays(tiers: tuple[Path, Path, Path]) -> None:
    cache, slow, journal = tiers
    (cache / "a").write_text("linked")
    os.link(cache / "a", cache / "b")
    os.mkfifo(cache / "fifo")
    (cache / "busy").write_text("open")
    (cache / "dup").write_text("cache version")
    (slow / "dup").write_text("slow version, not ours")
    (cache / "gone").write_text("x")
    moves = planned(cache, slow)
    (cache / "gone").unlink()
    outcomes = LocalFileMover(str(journal), verify=False).move_batch(
        moves, frozenset({str(cache / "busy")}), threading.Event(), lambda n: None)  # fmt: skip
    assert {o.move.file.rel: o.skip for o in outcomes} == {
        "a": SkipReason.HARD_LINK, "b": SkipReason.HARD_LINK, "busy": SkipReason.OPEN,
        "dup": SkipReason.EXISTS, "fifo": SkipReason.SPECIAL, "gone": SkipReason.VANISHED,
    }  # fmt: skip
    assert (slow / "dup").read_text() == "slow version, not ours"
    assert sorted(p.name for p in slow.iterdir()) == ["dup"]
    assert sorted(p.name for p in cache.iterdir()) == ["a", "b", "busy", "dup", "fifo"]


def test_a_file_written_during_the_copy_stays_on_the_cache(tiers: tuple[Path, Path, Path]) -> None:
    cache, slow, journal = tiers
    (cache / "growing.log").write_bytes(b"x" * 100_000)

    def append(_: int) -> None:
        with open(cache / "growing.log", "ab") as fh:
            fh.write(b"more")

    [outcome] = move(LocalFileMover(str(journal), verify=False), cache, slow, on_bytes=append)
    assert outcome.skip is SkipReason.CHANGED and not outcome.moved
    assert (cache / "growing.log").stat().st_size == 100_004
    assert list(slow.iterdir()) == [] and os.listdir(journal) == []


def _write_after_the_rename(
    monkeypatch: pytest.MonkeyPatch, source: Path, *, then_crash: bool = False
) -> None:
    """Each rename into place is followed by a write to ``source`` (and a crash)."""
    real_rename = mover_files.rename_noreplace

    def rename_then_write(old: str, new: str) -> None:
        real_rename(old, new)
        with open(source, "a") as fh:
            fh.write(" and more")
        if then_crash:
            raise Crash

    monkeypatch.setattr(mover_files, "rename_noreplace", rename_then_write)


def test_a_source_changed_after_the_rename_keeps_the_source(
    tiers: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check just before the unlink: the copy in place is removed, the source kept."""
    cache, slow, journal = tiers
    (cache / "doc.txt").write_text("first")
    _write_after_the_rename(monkeypatch, cache / "doc.txt")
    [outcome] = move(LocalFileMover(str(journal), verify=False), cache, slow)
    assert outcome.skip is SkipReason.CHANGED
    assert (cache / "doc.txt").read_text() == "first and more"
    assert list(slow.iterdir()) == [] and os.listdir(journal) == []


def test_a_destination_file_appearing_during_the_copy_is_not_replaced(
    tiers: tuple[Path, Path, Path],
) -> None:
    cache, slow, journal = tiers
    (cache / "race").write_text("ours")
    [outcome] = move(LocalFileMover(str(journal), verify=False), cache, slow,
                     on_bytes=lambda n: (slow / "race").write_text("theirs"))  # fmt: skip
    assert outcome.skip is SkipReason.EXISTS
    assert (slow / "race").read_text() == "theirs" and (cache / "race").read_text() == "ours"
    assert leftovers(slow) == []


def test_a_copy_that_reads_back_wrong_stops_the_run(
    tiers: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    cache, slow, journal = tiers
    (cache / "x").write_text("data")
    monkeypatch.setattr(mover_files.fc, "sha256_of", lambda path: "0" * 64)
    with pytest.raises(MoveStopped) as stopped:
        move(LocalFileMover(str(journal), verify=True), cache, slow)
    assert stopped.value.reason is StopReason.ERROR and "sha256" in stopped.value.detail
    assert (cache / "x").read_text() == "data"
    assert list(slow.iterdir()) == [] and os.listdir(journal) == []


def test_cancel_keeps_the_groups_already_moved(
    tiers: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    cache, slow, journal = tiers
    monkeypatch.setattr(mover_files, "GROUP_FILES", 2)
    for index in range(6):
        (cache / f"f{index}").write_bytes(b"z" * 1000)
    cancel = threading.Event()
    counted: list[int] = []

    def after_three(n: int) -> None:
        counted.append(n)
        if len(counted) == 3:  # f2, in the second group, while the first one settles
            # A cancel seen before the first group's sources go undoes that group too:
            # wait for them (the copies of this group do not block that settle).
            deadline = time.monotonic() + 30
            while any((cache / f).exists() for f in ("f0", "f1")) and time.monotonic() < deadline:
                time.sleep(0.005)
            cancel.set()

    with pytest.raises(MoveStopped) as stopped:
        move(LocalFileMover(str(journal), verify=False), cache, slow, cancel=cancel, on_bytes=after_three)  # fmt: skip
    assert stopped.value.reason is StopReason.CANCELLED
    assert [o.move.file.rel for o in stopped.value.outcomes if o.moved] == ["f0", "f1"]
    assert sorted(p.name for p in slow.iterdir()) == ["f0", "f1"]
    assert sorted(p.name for p in cache.iterdir()) == ["f2", "f3", "f4", "f5"]
    assert os.listdir(journal) == []


def test_one_copy_failing_halts_the_others_and_each_file_stays_once(
    tiers: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Copies run in threads: the first failure (here ENOSPC on the 10th file) stops the
    rest, and the group is undone only once no thread still writes."""
    cache, slow, journal = tiers
    for index in range(40):
        (cache / f"d{index % 4}").mkdir(exist_ok=True)
        (cache / f"d{index % 4}" / f"f{index:02d}").write_bytes(os.urandom(5000))
    before = snapshot(cache)
    real_copy = mover_files.fc.copy_data
    calls: list[int] = []
    lock = threading.Lock()

    def copy_data(*args: object, **kwargs: object) -> None:
        with lock:
            calls.append(1)
            failing = len(calls) == 10
        if failing:
            raise OSError(28, "No space left on device")
        real_copy(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(mover_files.fc, "copy_data", copy_data)
    with pytest.raises(MoveStopped) as stopped:
        move(LocalFileMover(str(journal), verify=False), cache, slow)
    assert stopped.value.reason is StopReason.NO_SPACE
    assert stopped.value.outcomes == ()  # nothing of the group was renamed
    assert len(calls) < 40  # the queued copies did not start
    assert snapshot(cache) == before and leftovers(cache, slow) == []
    assert [p for p in slow.rglob("*") if p.is_file()] == [] and os.listdir(journal) == []


def test_a_failed_settle_in_the_background_stops_the_next_group_too(
    tiers: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A group's sources are unlinked while the next group copies: when that unlink
    fails, the next group is undone as after a crash, and each file is once."""
    cache, slow, journal = tiers
    monkeypatch.setattr(mover_files, "GROUP_FILES", 2)
    for index in range(6):
        (cache / f"f{index}").write_bytes(os.urandom(3000))
    before = snapshot(cache)
    real_settle = mover_files.settle_in_place

    def settle_fails_once(*args: object, **kwargs: object) -> tuple[RecoveryAction, str]:
        if not failed:
            failed.append(1)
            raise OSError(5, "Input/output error")
        return real_settle(*args, **kwargs)  # type: ignore[arg-type]

    failed: list[int] = []
    monkeypatch.setattr(mover_files, "settle_in_place", settle_fails_once)
    with pytest.raises(MoveStopped) as stopped:
        move(LocalFileMover(str(journal), verify=False), cache, slow)
    assert stopped.value.reason is StopReason.ERROR
    moved = {o.move.file.rel for o in stopped.value.outcomes if o.moved}
    assert moved <= {"f0", "f1", "f2", "f3"}  # never the third group
    on_cache, on_slow = snapshot(cache), snapshot(slow)
    assert set(on_cache) | set(on_slow) == set(before) and not set(on_cache) & set(on_slow)
    assert {**on_cache, **on_slow} == before
    assert set(on_slow) == moved and leftovers(cache, slow) == [] and os.listdir(journal) == []


def test_a_failed_copy_also_undoes_the_group_journalled_while_it_copied(
    tiers: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The next group of a batch is checked and journalled while one copies: when that
    copy fails, the journalled group is undone too (its journal gone), each file once."""
    cache, slow, journal = tiers
    monkeypatch.setattr(mover_files, "GROUP_FILES", 2)
    for index in range(6):
        (cache / f"f{index}").write_bytes(os.urandom(3000))
    before = snapshot(cache)
    real_copy, real_create = mover_files.fc.copy_data, mover_files.Journal.create
    calls: list[int] = []
    journals: list[int] = []
    third_journalled = threading.Event()

    def copy_data(*args: object, **kwargs: object) -> None:
        calls.append(1)
        if len(calls) == 3:  # the second group's first copy fails once the third is journalled
            assert third_journalled.wait(10)
            raise OSError(5, "Input/output error")
        real_copy(*args, **kwargs)  # type: ignore[arg-type]

    def create(*args: object) -> mover_files.Journal:
        journals.append(1)
        journal = real_create(*args)  # type: ignore[arg-type]
        if len(journals) == 3:
            third_journalled.set()
        return journal

    monkeypatch.setattr(mover_files.fc, "copy_data", copy_data)
    monkeypatch.setattr(mover_files.Journal, "create", create)
    monkeypatch.setattr(mover_files, "COPY_THREADS", 1)
    with pytest.raises(MoveStopped) as stopped:
        move(LocalFileMover(str(journal), verify=False), cache, slow)
    assert stopped.value.reason is StopReason.ERROR
    assert {o.move.file.rel for o in stopped.value.outcomes if o.moved} == {"f0", "f1"}
    on_cache, on_slow = snapshot(cache), snapshot(slow)
    assert set(on_slow) == {"f0", "f1"} and {**on_cache, **on_slow} == before
    assert leftovers(cache, slow) == [] and os.listdir(journal) == []


class Crash(BaseException):
    """Stands for kill -9: nothing after it runs, no handler sees it."""


@pytest.mark.parametrize(
    ("where", "action", "on_cache", "on_slow"),
    [
        ("copy_data", RecoveryAction.TEMP_REMOVED, True, False),  # half a copy
        ("record_copied", RecoveryAction.TEMP_REMOVED, True, False),  # whole, not journalled
        ("rename_noreplace", RecoveryAction.TEMP_REMOVED, True, False),  # journalled, not renamed
        ("settle_in_place", RecoveryAction.FINISHED, False, True),  # renamed, source still there
    ],
)
def test_recovery_after_a_crash_leaves_each_file_once(
    tiers: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch,
    where: str, action: RecoveryAction, on_cache: bool, on_slow: bool,
) -> None:  # fmt: skip
    cache, slow, journal = tiers
    (cache / "dir").mkdir()
    (cache / "dir" / "movie.mkv").write_bytes(os.urandom(300_000))
    os.utime(cache / "dir" / "movie.mkv", ns=(OLD_NS, OLD_NS))
    before = snapshot(cache)

    def crash(*args: object, **kwargs: object) -> None:
        raise Crash

    target = mover_files.Journal if where == "record_copied" else mover_files
    target = mover_files.fc if where == "copy_data" else target
    monkeypatch.setattr(target, where, crash)
    with pytest.raises(Crash):
        move(LocalFileMover(str(journal), verify=True), cache, slow)
    monkeypatch.undo()
    assert len(os.listdir(journal)) == 1
    [recovered] = LocalFileMover(str(journal), verify=True).recover()
    assert recovered.action is action and recovered.rel == "dir/movie.mkv"
    assert os.listdir(journal) == [] and leftovers(cache, slow) == []
    assert snapshot(cache) == (before if on_cache else {})
    assert snapshot(slow) == (before if on_slow else {})


def test_recovery_never_touches_a_destination_file_that_is_not_ours(
    tiers: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    cache, slow, journal = tiers
    (cache / "name").write_text("ours")

    def theirs_then_crash(*args: object, **kwargs: object) -> None:
        (slow / "name").write_text("theirs")
        raise Crash

    monkeypatch.setattr(mover_files.fc, "copy_data", theirs_then_crash)
    with pytest.raises(Crash):
        move(LocalFileMover(str(journal), verify=False), cache, slow)
    monkeypatch.undo()
    LocalFileMover(str(journal), verify=False).recover()
    assert (slow / "name").read_text() == "theirs" and (cache / "name").read_text() == "ours"
    assert leftovers(slow) == []


def _give_the_journal_the_inode_of(journal: Path, path: Path) -> None:
    """The journal's record of the source after the read now names ``path``'s inode
    number: what a disk filesystem does when it gives a freed number to the next file
    created (tmpfs never reuses one), on any filesystem the tests run on."""
    [name] = os.listdir(journal)
    lines = (journal / name).read_text().splitlines()
    for number, line in enumerate(lines[1:], 1):
        record = json.loads(line)
        if "copied" in record:
            for copied in record["copied"].values():
                copied["source_after"][0] = path.lstat().st_ino
            lines[number] = json.dumps(record)
    (journal / name).write_text("\n".join(lines) + "\n")


def test_a_new_file_at_the_source_path_after_a_crash_is_left_alone_with_the_copy(
    tiers: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A crash after the group's sources were unlinked, before its journal went; then a
    new file at the source's path, on the inode number the source had: it is no source
    that changed after the copy, and the moved copy is the only one of its file."""
    cache, slow, journal = tiers
    (cache / "doc.txt").write_text("moved")
    os.utime(cache / "doc.txt", ns=(OLD_NS, OLD_NS))

    def crash(*args: object, **kwargs: object) -> None:
        raise Crash

    monkeypatch.setattr(mover_files.Journal, "remove", crash)
    with pytest.raises(Crash):
        move(LocalFileMover(str(journal), verify=True), cache, slow)
    monkeypatch.undo()
    assert not (cache / "doc.txt").exists() and len(os.listdir(journal)) == 1
    (cache / "doc.txt").write_text("new, after the move")
    _give_the_journal_the_inode_of(journal, cache / "doc.txt")
    new = state_of(cache / "doc.txt")
    LocalFileMover(str(journal), verify=True).recover()
    assert (slow / "doc.txt").read_text() == "moved"
    assert state_of(cache / "doc.txt") == new  # not even its atime touched
    assert os.listdir(journal) == [] and leftovers(cache, slow) == []


def test_a_source_changed_before_any_unlink_still_wins_after_a_crash(
    tiers: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The copy in place, the source written to, then the crash, before the group
    journalled that its sources may go: the source is the newer file and the copy is
    removed, as the live check before each unlink does."""
    cache, slow, journal = tiers
    (cache / "doc.txt").write_text("first")
    _write_after_the_rename(monkeypatch, cache / "doc.txt", then_crash=True)
    with pytest.raises(Crash):
        move(LocalFileMover(str(journal), verify=False), cache, slow)
    monkeypatch.undo()
    [recovered] = LocalFileMover(str(journal), verify=False).recover()
    assert recovered.action is RecoveryAction.UNDONE
    assert (cache / "doc.txt").read_text() == "first and more"
    assert list(slow.iterdir()) == [] and os.listdir(journal) == []


def _steps(monkeypatch: pytest.MonkeyPatch, cache: Path, journal: Path) -> list[str]:
    """The steps that order a group's durability, as they happen: each source unlink
    (with whether every journal then held its ``settling`` line), each syncfs, and the
    journal's own flush and removal."""
    events: list[str] = []
    real_unlink, real_syncfs = os.unlink, mover_files.syncfs
    real_flush, real_remove = Journal.flush, Journal.remove

    def unlink(path: str | Path, *args: object, **kwargs: object) -> None:
        if Path(path).parent == cache:
            texts = [(journal / name).read_text() for name in os.listdir(journal)]
            events.append(f"unlink after settling={all('settling' in t for t in texts)}")
        real_unlink(path, *args, **kwargs)  # type: ignore[arg-type]

    def flush(self: Journal) -> None:
        events.append("flush")
        real_flush(self)

    def remove(self: Journal) -> None:
        events.append("remove")
        real_remove(self)

    monkeypatch.setattr(mover_files.os, "unlink", unlink)
    monkeypatch.setattr(
        mover_files, "syncfs", lambda fd: (events.append("syncfs"), real_syncfs(fd))
    )
    monkeypatch.setattr(Journal, "flush", flush)
    monkeypatch.setattr(Journal, "remove", remove)
    return events


@pytest.mark.parametrize("journal_apart", [False, True])
def test_the_journal_says_the_sources_may_go_durably_before_the_first_goes(
    tiers: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch, journal_apart: bool
) -> None:
    """Before the first source is unlinked the journal's ``settling`` line is written and
    flushed: by the renames' syncfs when the journal shares a branch's filesystem, by a
    flush of its own when it does not (here made to look apart)."""
    cache, slow, journal = tiers
    for name in ("a", "b"):
        (cache / name).write_text(name)
    events = _steps(monkeypatch, cache, journal)
    if journal_apart:
        monkeypatch.setattr(Journal, "device", lambda self: -1)
    outcomes = move(LocalFileMover(str(journal), verify=False), cache, slow)
    assert all(o.moved for o in outcomes)
    first = events.index("unlink after settling=True")
    assert "unlink after settling=False" not in events
    before = events[:first]
    # copies, then renames durable (the line with them), then the unlinks
    assert before == ["syncfs", "syncfs", "flush"] if journal_apart else ["syncfs", "syncfs"]
    assert events.count("flush") == (1 if journal_apart else 0)


def test_a_groups_journal_goes_only_after_a_syncfs_made_its_unlinks_durable(
    tiers: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A group's unlinks ride on the next group's first syncfs (or the run's last): its
    journal is removed only after one, and none is left when the run ends."""
    cache, slow, journal = tiers
    monkeypatch.setattr(mover_files, "GROUP_FILES", 2)
    monkeypatch.setattr(mover_files, "FIRST_GROUP_FILES", 2)
    monkeypatch.setattr(mover_files, "LEAST_GROUP_FILES", 2)
    for index in range(6):
        (cache / f"f{index}").write_text(str(index))
    events = _steps(monkeypatch, cache, journal)
    outcomes = move(LocalFileMover(str(journal), verify=False), cache, slow)
    assert all(o.moved for o in outcomes) and os.listdir(journal) == []
    unlinks = [i for i, e in enumerate(events) if e.startswith("unlink")]
    assert events.count("remove") == 3 and len(unlinks) == 6
    for at, event in enumerate(events):
        if event == "remove":  # a syncfs since the last unlink before it
            assert "syncfs" in events[max(i for i in unlinks if i < at) : at], events
    # three groups, two syncfs each, and one at the end for the last group's unlinks
    assert events.count("syncfs") == 7, events


def test_an_unreadable_journal_stops_recovery(tiers: tuple[Path, Path, Path]) -> None:
    _, _, journal = tiers
    journal.mkdir()
    (journal / "0123.journal").write_text("not json")
    with pytest.raises(MoveStopped) as stopped:
        LocalFileMover(str(journal), verify=False).recover()
    assert stopped.value.reason is StopReason.ERROR and "0123.journal" in stopped.value.detail


def test_paths_that_leave_their_branch_are_refused(tiers: tuple[Path, Path, Path]) -> None:
    cache, slow, journal = tiers
    (cache / "x").write_text("x")
    [good] = planned(cache, slow)
    for rel in ("../x", "/etc/passwd", "a//b", "./x"):
        bad = type(good)(type(good.file)(str(cache), rel, 1, 0, 0), str(slow), good.reason)
        with pytest.raises(ValueError):
            LocalFileMover(str(journal), verify=False).move_batch([bad], frozenset(), threading.Event(), lambda n: None)  # fmt: skip


@pytest.mark.skipif(not ROOT, reason="owner needs root")
def test_owner_is_kept(tiers: tuple[Path, Path, Path]) -> None:
    cache, slow, journal = tiers
    (cache / "o").write_text("x")
    os.chown(cache / "o", 4242, 4343)
    os.chmod(cache / "o", 0o4750)  # set-uid survives the chown
    move(LocalFileMover(str(journal), verify=False), cache, slow)
    st = state_of(slow / "o")
    assert (st.uid, st.gid, st.mode & 0o7777) == (4242, 4343, 0o4750)


def test_each_file_is_told_as_it_lands_or_is_skipped(tiers: tuple[Path, Path, Path]) -> None:
    # The run's progress counts files from these calls (a batch holds many groups):
    # each file once, the open one as a skip, each moved one already on the slow side.
    cache, slow, journal = tiers
    for name in ("a", "b", "c", "d", "busy"):
        (cache / name).write_bytes(os.urandom(4096))
    told: list[tuple[str, bool, bool]] = []

    def landed(o: MoveOutcome) -> None:
        told.append((o.move.file.rel, o.moved, (slow / o.move.file.rel).exists()))

    outcomes = LocalFileMover(str(journal), verify=False).move_batch(
        planned(cache, slow), frozenset({str(cache / "busy")}), threading.Event(),
        lambda n: None, landed)  # fmt: skip
    assert sorted(told) == sorted((o.move.file.rel, o.moved, o.moved) for o in outcomes)
    assert ("busy", False, False) in told and len(told) == 5


def test_the_progress_says_the_group_syncs_before_any_file_lands(
    tiers: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A group's copies are made durable together before any of them lands: for the
    # seconds a big group's syncfs takes, the run must say so, not look stalled.
    cache, slow, journal = tiers
    for name in ("a", "b", "c", "busy"):
        (cache / name).write_bytes(os.urandom(5000))
    moves = planned(cache, slow)
    meter = ProgressMeter(moves, lambda p: None, 1.0)
    during: list[MoverProgress] = []
    real_syncfs = mover_files.syncfs

    def watched_syncfs(fd: int) -> None:
        during.append(meter.snapshot())
        real_syncfs(fd)

    monkeypatch.setattr(mover_files, "syncfs", watched_syncfs)
    LocalFileMover(str(journal), verify=False).move_batch(
        moves, frozenset({str(cache / "busy")}), threading.Event(), meter.on_bytes,
        meter.on_outcome, meter.on_step)  # fmt: skip
    first = during[0]  # the copies' data written out: bytes copied, no file landed
    assert first.step == MoveStep(MovePhase.SYNCING, 3, 15000)
    assert (first.files_done, first.files_skipped, first.bytes_done) == (0, 1, 15000)
    assert first.eta_seconds is None and first.current is None  # not "eta 0s", no "now:"
    assert step_text(first.step) == "syncing 3 files (15K) to disk…"
    end = meter.snapshot()
    assert (end.files_done, end.step) == (3, first.step)  # until the batch ends


def test_a_batch_of_a_hundred_files_lands_in_steps_not_all_at_its_end(
    tiers: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each group is made durable whole before any of its files lands: one group of 100
    # files would leave "0/100 files" until its end. In four groups, files have landed
    # while later groups still sync.
    cache, slow, journal = tiers
    for index in range(100):
        (cache / f"f{index:03d}").write_bytes(os.urandom(100))
    moves = planned(cache, slow)
    meter = ProgressMeter(moves, lambda p: None, 1.0)
    landed_at_sync: list[int] = []
    real_syncfs = mover_files.syncfs

    def watched_syncfs(fd: int) -> None:
        landed_at_sync.append(meter.snapshot().files_done)
        real_syncfs(fd)

    monkeypatch.setattr(mover_files, "syncfs", watched_syncfs)
    outcomes = LocalFileMover(str(journal), verify=False).move_batch(
        moves, frozenset(), threading.Event(), meter.on_bytes, meter.on_outcome, meter.on_step)  # fmt: skip
    assert all(o.moved for o in outcomes) and len(outcomes) == 100
    assert {n for n in landed_at_sync if 0 < n < 100} >= {25, 50, 75}
    assert meter.snapshot().files_done == 100


def test_with_verify_the_wait_says_the_copies_are_read_back_too(
    tiers: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    cache, slow, journal = tiers
    (cache / "a").write_bytes(os.urandom(2048))
    moves = planned(cache, slow)
    meter = ProgressMeter(moves, lambda p: None, 1.0)
    during: list[MoverProgress] = []
    real_syncfs = mover_files.syncfs
    monkeypatch.setattr(mover_files, "syncfs",
                        lambda fd: (during.append(meter.snapshot()), real_syncfs(fd)))  # fmt: skip
    LocalFileMover(str(journal), verify=True).move_batch(
        moves, frozenset(), threading.Event(), meter.on_bytes, meter.on_outcome, meter.on_step)  # fmt: skip
    assert during[0].step == MoveStep(MovePhase.VERIFYING, 1, 2048) and during[0].waiting_on_disk
    assert step_text(during[0].step) == "syncing 1 file (2.0K) to disk and verifying…"
