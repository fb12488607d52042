"""The mover's engine: move files from a cache branch to a slow branch, directly (not
through the mergerfs mount), so that no crash, full disk, cancel or busy file ever
loses one or leaves it in two places.

Per file the order is: journal the intent (fsynced) -> copy to a temp name beside the
final path -> data durable -> journal "copied" -> rename into place (never over an
existing file) -> rename durable -> check the copy and that the source is unchanged ->
unlink the source -> unlink durable -> drop the journal. Durability is per group of
files: one ``syncfs`` of each filesystem for the whole group instead of an fsync per
file, which keeps that order for every file at a fraction of the cost; a group's
unlinks are made durable by the next group's first syncfs (or the run's last), its
journal kept until then.

Crash recovery is backends/mover/recovery.py (the same code also cleans up after a
stop); the journal is backends/mover/journal.py; one file's copy is mover_copy.py.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import stat
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, TypeVar

from ...core.errors import HostError, TierdeckError
from ...core.mover import (
    TEMP_PREFIX,
    MoveOutcome,
    MovePhase,
    MoveStep,
    PlannedMove,
    RecoveryAction,
    RecoveryOutcome,
    SkipReason,
    StopReason,
)
from . import file_copy as fc
from .journal import CopiedRecord, Journal, JournalEntry, JournalUnreadable, pending
from .recovery import recover_journal, restore_atime, settle_in_place
from .syscalls import rename_noreplace, syncfs

if TYPE_CHECKING:  # hashlib loads OpenSSL (~8 ms a start): imported when verifying
    import hashlib

GROUP_FILES = 500  # a group shares its syncfs calls and its journal
GROUP_BYTES = 512 * 2**20  # ... and what a crash makes the next run copy again
# No file of a group lands before the whole group is on the disk: a batch of a few
# hundred files is cut in a few groups, so its files land in steps rather than all at
# its end. By count only: a few big files in one group keep one syncfs (split, 3 x 128
# MiB took 14 % longer here), and their bytes show the progress.
LANDINGS = 4
LEAST_GROUP_FILES = 25
# The run's first group copies with nothing settling beside it: a small one gets the
# pipeline going sooner (2,000 small files: its first 250 took ~0.1 s alone).
FIRST_GROUP_FILES = LEAST_GROUP_FILES

# A small file's data is read ahead while its group is checked (fc.prefetch): during
# the group before's copies, in this thread, which would only wait for them. 2,000
# small files, caches dropped: a group's copies took ~25 ms instead of ~40, the engine
# ~0.38 s instead of ~0.5. Small files only, and a bounded amount a group: a big
# file's copy reads in long runs itself, and reading far ahead would only fill the
# page cache with what may be dropped again before it is copied.
PREFETCH_BYTES = 2**20
PREFETCH_GROUP_BYTES = 64 * 2**20

SETTLE_THREADS = 8
COPY_THREADS = 4
# While the pipeline runs, a thread holding the GIL in a long stretch of Python (a
# group's journal lines, its outcomes, the next group's checks) gives it up after this
# long rather than Python's 5 ms, when another thread asks for it. The copy of a small
# file read ahead is a dozen short calls, each one a wait for the GIL on its return:
# with 5 ms turns, the copy thread was the pipeline's slowest step, waiting behind the
# others' Python (2,000 small files: 31-47 ms a group of 250 beside the next group's
# checks, 19 ms without). 0.1-1 ms turns took 1.08-1.15x less wall time in paired
# rounds, with no more CPU.
GIL_TURN_SECONDS = 0.0002
T = TypeVar("T")
_NO_SPACE = (errno.ENOSPC, errno.EDQUOT)


class MoveStopped(HostError):
    """The run must stop (no space, read-only destination, cancel, an error). Every file
    is whole in one place; ``outcomes`` are the moves this batch settled first."""

    def __init__(
        self, reason: StopReason, detail: str, outcomes: tuple[MoveOutcome, ...] = ()
    ) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail
        self.outcomes = outcomes


class FileMover(Protocol):
    """What the host's ``file_mover`` returns (LocalFileMover on this machine)."""

    def recover(self) -> tuple[RecoveryOutcome, ...]:
        """Finish or undo every journalled move. Raises MoveStopped (journal kept)."""
        ...

    def move_batch(
        self,
        moves: Sequence[PlannedMove],
        open_paths: frozenset[str],
        cancel: threading.Event,
        on_bytes: Callable[[int], None],
        on_outcome: Callable[[MoveOutcome], None] = ...,
        on_step: Callable[[MoveStep], None] = ...,
    ) -> tuple[MoveOutcome, ...]:
        """Move each file (or skip it with a reason), in order, telling ``on_outcome``
        of each as it lands or is skipped (a stop may change it: the result is final),
        and ``on_step`` of each phase a group of files starts. Raises MoveStopped."""
        ...

    def move_batches(
        self,
        batches: Sequence[Sequence[PlannedMove]],
        open_paths: Callable[[], frozenset[str]],
        cancel: threading.Event,
        on_bytes: Callable[[int], None],
        on_outcome: Callable[[MoveOutcome], None] = ...,
        on_step: Callable[[MoveStep], None] = ...,
    ) -> tuple[MoveOutcome, ...]:
        """``move_batch`` of each batch in turn, its open files looked up (``open_paths``)
        just before its first copy, in one pipeline. Raises MoveStopped (a failed look-up
        too, with StopReason.ERROR)."""
        ...


def stop_reason(exc: OSError) -> StopReason:
    if exc.errno in _NO_SPACE:
        return StopReason.NO_SPACE
    if exc.errno == errno.EROFS:
        return StopReason.READ_ONLY
    return StopReason.ERROR


class LocalFileMover:
    """Moves files on this machine; journals in ``journal_dir``; ``verify`` adds a
    sha256 of the source (as read) against the copy read back from the disk."""

    def __init__(self, journal_dir: str, *, verify: bool = False) -> None:
        self.journal_dir = journal_dir
        self.verify = verify

    def recover(self) -> tuple[RecoveryOutcome, ...]:
        found: list[RecoveryOutcome] = []
        for path in pending(self.journal_dir):
            try:
                found.extend(recover_journal(Journal.load(path)).values())
            except JournalUnreadable as exc:
                raise MoveStopped(StopReason.ERROR, str(exc), ()) from exc
            except OSError as exc:
                detail = f"recovering the moves of {path}: {_describe(exc)}"
                raise MoveStopped(stop_reason(exc), detail, ()) from exc
        return tuple(found)

    def move_batch(
        self,
        moves: Sequence[PlannedMove],
        open_paths: frozenset[str],
        cancel: threading.Event,
        on_bytes: Callable[[int], None],
        on_outcome: Callable[[MoveOutcome], None] = lambda o: None,
        on_step: Callable[[MoveStep], None] = lambda s: None,
    ) -> tuple[MoveOutcome, ...]:
        return self.move_batches([moves], lambda: open_paths, cancel, on_bytes, on_outcome,
                                 on_step)  # fmt: skip

    def move_batches(
        self,
        batches: Sequence[Sequence[PlannedMove]],
        open_paths: Callable[[], frozenset[str]],
        cancel: threading.Event,
        on_bytes: Callable[[int], None],
        on_outcome: Callable[[MoveOutcome], None] = lambda o: None,
        on_step: Callable[[MoveStep], None] = lambda s: None,
    ) -> tuple[MoveOutcome, ...]:
        done: list[MoveOutcome] = []
        folders: list[tuple[str, os.stat_result]] = []
        opened = frozenset[str]()
        pools: _Pools

        def plan(moves: list[PlannedMove], first: bool) -> _Planned:
            nonlocal opened
            try:
                if first:  # looked up after the batch before was copied
                    opened = _look_up(open_paths)
                group = _Group(self, moves, opened, cancel, on_bytes, folders, on_outcome,
                               on_step, pools)  # fmt: skip
                group.plan()
            except MoveStopped as stop:
                return _Planned(None, stop)
            return _Planned(group, None)

        def plan_ahead(box: list[_Planned], moves: list[PlannedMove]) -> None:
            try:
                box.append(plan(moves, False))
            except BaseException as exc:  # raised where its group comes (Crash in the tests)
                box.append(_Planned(None, None, exc))

        try:
            # A group is made durable and its sources unlinked in the background while
            # the next group copies (both wait on the disk): what rsync gets from its
            # sender unlinking while its receiver writes, and what lets a batch be cut
            # in several groups, landing in steps, at little cost. Each group keeps its
            # own journal and order of steps; only their durations overlap. The next
            # batch's first group copies while the last group of the one before settles
            # (one pipeline for the run, not one per batch: 2,000 small files, 2 batches,
            # had ~0.15 s with only one of the two at work at each batch's end).
            # The next group of the same batch is checked and journalled (its fsyncs)
            # while this one copies, in this thread, which would only wait for the copy
            # threads: ~12 ms of every group's 60 off the path (2,000 small files). Not a
            # batch's first group: its open files are looked up once the batch before
            # has copied.
            specs = list(_batch_groups(batches))
            landed = _Landed()
            try:
                with (
                    _short_gil_turns(),
                    ThreadPoolExecutor(1, thread_name_prefix="mover-settle") as background,
                    _Pools(landed) as pools,
                ):
                    settling: Future[list[MoveOutcome]] | None = None
                    waiting: _Group | None = None
                    ahead: _Planned | None = None
                    for number, (group, first) in enumerate(specs):
                        planned = ahead if ahead is not None else plan(group, first)
                        ahead = None
                        if planned.error is not None:
                            raise planned.error
                        batch, stopped = planned.group, planned.stop
                        following = specs[number + 1] if number + 1 < len(specs) else None
                        if batch is not None:
                            box: list[_Planned] = []
                            try:
                                if following is not None and not following[1]:
                                    batch.copy(functools.partial(plan_ahead, box, following[0]))
                                else:
                                    batch.copy()
                            except MoveStopped as stop:
                                stopped = stop
                            ahead = box[0] if box else None
                        if waiting is not None and settling is not None and not settling.done():
                            waiting.step()  # the copies are done: what is left is the disk
                        earlier, failed = _join(settling)
                        settling = None
                        done.extend(earlier)
                        if failed is not None and stopped is None and batch is not None:
                            stopped = batch.undo(failed.reason, failed.detail)
                        if stopped is not None:
                            later = ahead.undo(stopped.reason, stopped.detail) if ahead else ()
                            raise MoveStopped(stopped.reason, stopped.detail,
                                              (*done, *stopped.outcomes, *later)) from stopped  # fmt: skip
                        assert batch is not None
                        waiting = batch
                        batch.step()
                        settling = background.submit(batch.finish)
                    earlier, failed = _join(settling)
                    done.extend(earlier)
                    if failed is not None:
                        raise MoveStopped(failed.reason, failed.detail, tuple(done)) from failed
            except Exception:
                with contextlib.suppress(OSError):  # else the next run's recovery does it
                    landed.flush()
                raise
            try:
                landed.flush()  # the last groups' unlinks durable, their journals gone
            except OSError as exc:
                detail = f"{_describe(exc)} (making the last unlinks durable)"
                raise MoveStopped(stop_reason(exc), detail, tuple(done)) from exc
        finally:
            _set_folder_times(folders)
        return tuple(done)


@contextlib.contextmanager
def _short_gil_turns() -> Iterator[None]:
    """The interpreter's switch interval at GIL_TURN_SECONDS while the pipeline runs,
    put back after it."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(min(before, GIL_TURN_SECONDS))
    try:
        yield
    finally:
        sys.setswitchinterval(before)


class _Pools:
    """What the run's groups share: the copy and unlink threads, started once (a pool
    per group started 12 threads 9 times for 2,000 small files, each start a wait for
    the new thread), and the settled groups whose unlinks wait for a syncfs."""

    def __init__(self, landed: _Landed) -> None:
        self.copiers = ThreadPoolExecutor(COPY_THREADS, thread_name_prefix="mover-copy")
        self.settlers = ThreadPoolExecutor(SETTLE_THREADS, thread_name_prefix="mover-unlink")
        self.landed = landed

    def __enter__(self) -> _Pools:
        return self

    def __exit__(self, *exc: object) -> None:
        self.copiers.shutdown()
        self.settlers.shutdown()


class _Landed:
    """Settled groups (copies in place, sources unlinked) whose unlinks are not durable
    yet: their syncfs is the next group's first (or the run's last), one syncfs fewer
    a group, and their journals go only once it is done, as the order of steps asks.
    A journal kept that long is safe to replay: it says the group's sources may be
    gone (``settling``), so a recovery never takes a new file at a source's path for
    the source changed after the copy. Used from one thread at a time (the settle
    thread, then the run's once the settles are joined)."""

    def __init__(self) -> None:
        self.journals: list[Journal] = []
        self.paths: set[str] = set()  # the branches whose filesystems hold the unlinks

    def add(self, journal: Journal, paths: set[str]) -> None:
        self.journals.append(journal)
        self.paths |= paths

    def synced(self) -> None:
        """A syncfs of every path in ``paths`` has just completed: the journals go."""
        for journal in self.journals:
            journal.remove()
        self.journals, self.paths = [], set()

    def flush(self) -> None:
        """The run's end: their syncfs, then their journals removed."""
        if self.journals:
            sync_filesystems(self.paths)
            self.synced()


def sync_filesystems(paths: set[str], journal: Journal | None = None) -> None:
    """One syncfs per filesystem holding one of ``paths``, and what ``journal`` was
    given since its last fsync (free when it shares one of their filesystems)."""
    synced: set[int] = set()  # two branches on one filesystem: one syncfs
    for path in sorted(paths):
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            device = os.fstat(fd).st_dev
            if device not in synced:
                syncfs(fd)
                synced.add(device)
        finally:
            os.close(fd)
    if journal is not None and journal.device() not in synced:
        journal.flush()


def _wait_all(futures: Sequence[Future[T]]) -> list[T | BaseException]:
    """Every future's result or exception, once all are done (none still running)."""
    wait(futures)
    results: list[T | BaseException] = []
    for future in futures:
        exc = future.exception()
        results.append(future.result() if exc is None else exc)
    return results


@dataclass(frozen=True)
class _Planned:
    """A group checked and journalled, or the stop its check or journal met."""

    group: _Group | None
    stop: MoveStopped | None
    error: BaseException | None = None  # not a stop: raised when the group's turn comes

    def undo(self, reason: StopReason, detail: str) -> tuple[MoveOutcome, ...]:
        """The run stops before this group copied: its journal gone, its outcomes (skips)."""
        if self.group is not None:
            return self.group.undo(reason, detail).outcomes
        return self.stop.outcomes if self.stop is not None else ()


def _join(
    settling: Future[list[MoveOutcome]] | None,
) -> tuple[list[MoveOutcome], MoveStopped | None]:
    """A background settle's outcomes, and its stop if it stopped (outcomes included)."""
    if settling is None:
        return [], None
    try:
        return settling.result(), None
    except MoveStopped as stop:
        return list(stop.outcomes), stop


def _look_up(open_paths: Callable[[], frozenset[str]]) -> frozenset[str]:
    """The open files now; a failed look-up stops the run (no file is moved unchecked)."""
    try:
        return open_paths()
    except (TierdeckError, OSError) as exc:
        raise MoveStopped(StopReason.ERROR, f"looking up open files: {exc}", ()) from exc


def _batch_groups(
    batches: Sequence[Sequence[PlannedMove]],
) -> Iterator[tuple[list[PlannedMove], bool]]:
    """Each batch's groups, in order, each with whether it is its batch's first."""
    for number, moves in enumerate(batches):
        for place, group in enumerate(_groups(moves, first_small=number == 0)):
            yield group, place == 0


def _groups(
    moves: Sequence[PlannedMove], *, first_small: bool = False
) -> Iterator[list[PlannedMove]]:
    most_files = min(GROUP_FILES, max(LEAST_GROUP_FILES, -(-len(moves) // LANDINGS)))
    limit = min(most_files, FIRST_GROUP_FILES) if first_small else most_files
    group: list[PlannedMove] = []
    size = 0
    for move in moves:
        if group and (len(group) >= limit or size + move.file.size > GROUP_BYTES):
            yield group
            group, size, limit = [], 0, most_files
        group.append(move)
        size += move.file.size
    if group:
        yield group


def _as_prefix(path: str) -> str:
    """``path`` ready for a relative path to be appended: os.path.join's result."""
    return path if path.endswith("/") else path + "/"


class _Prefixes(dict[str, str]):
    """Paths as prefixes (``make`` of each), made on first use."""

    def __init__(self, make: Callable[[str], str]) -> None:
        super().__init__()
        self.make = make

    def __missing__(self, path: str) -> str:
        self[path] = prefix = self.make(path)
        return prefix


def _set_folder_times(folders: list[tuple[str, os.stat_result]]) -> None:
    # Last: every file renamed into a folder changed its mtime.
    for path, st in reversed(folders):
        with contextlib.suppress(OSError):
            fc.set_times(path, st)


def _describe(exc: OSError) -> str:
    return f"{exc.filename}: {exc.strerror}" if exc.filename else str(exc)


class _Halt:
    """The run's cancel flag, or this group's own stop after a failed copy."""

    def __init__(self, cancel: threading.Event) -> None:
        self.cancel = cancel
        self.stopped = threading.Event()

    def is_set(self) -> bool:
        return self.stopped.is_set() or self.cancel.is_set()

    def stop(self) -> None:
        self.stopped.set()


_NOT_A_NAME = frozenset(("", ".", ".."))


def check_move(move: PlannedMove, checked: set[tuple[str, str]] | None = None) -> None:
    """Refuse a move whose paths could leave its branches (a caller's bug). ``checked``
    holds the pairs of branches found fine already (a batch has a few for many files)."""
    rel = move.file.rel
    if rel.startswith("/") or not _NOT_A_NAME.isdisjoint(rel.split("/")) or "\0" in rel:
        raise ValueError(f"not a plain relative path: {rel!r}")
    pair = (move.file.branch, move.destination)
    if checked is not None and pair in checked:
        return
    src, dst = os.path.normpath(move.file.branch), os.path.normpath(move.destination)
    if not (os.path.isabs(src) and os.path.isabs(dst)) or src == dst:
        raise ValueError(f"branches must be two absolute paths: {src!r} -> {dst!r}")
    if checked is not None:
        checked.add(pair)


@dataclass
class _Copy:
    """One move of a group from its journal entry to its outcome."""

    index: int  # in the journal
    position: int  # in the group's moves
    move: PlannedMove
    entry: JournalEntry
    before: os.stat_result
    record: CopiedRecord | None = None
    renamed: bool = False
    sha256: str | None = None
    read_ahead: bool = False  # its data asked into the page cache while it was checked


@dataclass
class _Group:
    mover: LocalFileMover
    moves: list[PlannedMove]
    open_paths: frozenset[str]
    cancel: threading.Event
    on_bytes: Callable[[int], None]
    folders: list[tuple[str, os.stat_result]]
    on_outcome: Callable[[MoveOutcome], None]
    on_step: Callable[[MoveStep], None]
    pools: _Pools
    outcomes: dict[int, MoveOutcome] = field(default_factory=dict)
    current: str = ""
    journal: Journal | None = None
    copies: list[_Copy] = field(default_factory=list)

    def plan(self) -> None:
        """The group checked and journalled (fsynced); nothing written to a destination
        yet. Raises MoveStopped (nothing to undo)."""
        self.copies = self._precheck()
        if not self.copies:
            return
        try:
            self.journal = Journal.create(self.mover.journal_dir,
                                          tuple(c.entry for c in self.copies))  # fmt: skip
        except OSError as exc:
            detail = f"writing the mover's journal: {_describe(exc)}"
            raise MoveStopped(stop_reason(exc), detail, tuple(self._ordered())) from exc

    def copy(self, meanwhile: Callable[[], None] = lambda: None) -> None:
        """The planned copies to temp names (not durable yet: ``finish`` does the rest);
        ``meanwhile`` runs in this thread while the copy threads work (it must not
        raise). Raises MoveStopped (the group undone, as after a crash)."""
        if self.journal is None:  # nothing left to copy
            meanwhile()
            return
        self.step(MovePhase.COPYING)
        self._guarded(lambda journal, copies: self._copy_all(self._make_folders(copies),
                                                              meanwhile))  # fmt: skip

    def finish(self) -> list[MoveOutcome]:
        """The copies durable and in place, their sources unlinked, durably; the journal
        dropped."""
        if self.journal is not None:
            self._guarded(self._place_and_settle)
        return self._ordered()

    def undo(self, reason: StopReason, detail: str) -> MoveStopped:
        """Stop after ``prepare`` (another group failed): finish or undo each move."""
        if self.journal is None:
            return MoveStopped(reason, detail, tuple(self._ordered()))
        return self._abort(self.journal, self.copies, reason, detail)

    def _guarded(self, step: Callable[[Journal, list[_Copy]], None]) -> None:
        assert self.journal is not None
        try:
            step(self.journal, self.copies)
        except fc.Cancelled:
            raise self._abort(
                self.journal, self.copies, StopReason.CANCELLED, "cancelled"
            ) from None
        except OSError as exc:
            detail = f"{_describe(exc)} (while moving {self.current})"
            raise self._abort(self.journal, self.copies, stop_reason(exc), detail) from exc

    def step(self, phase: MovePhase | None = None) -> None:
        """Told from the run's thread only, so the steps arrive in order: ``phase``, or
        the wait for the disk once the copies are written."""
        if phase is None:
            phase = MovePhase.VERIFYING if self.mover.verify else MovePhase.SYNCING
            copies = [c for c in self.copies if c.record is not None]
        else:
            copies = self.copies
        if copies:
            self.on_step(MoveStep(phase, len(copies), sum(c.before.st_size for c in copies)))

    def _ordered(self) -> list[MoveOutcome]:
        return [self.outcomes[i] for i in sorted(self.outcomes)]

    def _skip(self, index: int, reason: SkipReason, detail: str = "") -> None:
        self.outcomes[index] = outcome = MoveOutcome(self.moves[index], False, reason, detail)
        self.on_outcome(outcome)

    def _precheck(self) -> list[_Copy]:
        token = os.urandom(6).hex()  # uuid4's own source, without uuid's imports
        # Each branch as the start of a path, found once: os.path.join checks its
        # arguments at every call, three a file (check_move leaves no rel absolute).
        prefixes = _Prefixes(_as_prefix)
        # once per branch: realpath lstats every level of it
        real_prefixes = _Prefixes(lambda branch: _as_prefix(os.path.realpath(branch)))
        checked: set[tuple[str, str]] = set()
        copies: list[_Copy] = []
        ahead = PREFETCH_GROUP_BYTES
        for index, move in enumerate(self.moves):
            if self.cancel.is_set():
                raise MoveStopped(StopReason.CANCELLED, "cancelled", tuple(self._ordered()))
            check_move(move, checked)
            branch, rel = move.file.branch, move.file.rel
            source = prefixes[branch] + rel
            target = prefixes[move.destination] + rel
            try:
                st = os.lstat(source)
            except FileNotFoundError:
                self._skip(index, SkipReason.VANISHED)
                continue
            if not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):
                self._skip(index, SkipReason.SPECIAL, stat.filemode(st.st_mode))
            elif st.st_nlink > 1:
                self._skip(index, SkipReason.HARD_LINK, f"{st.st_nlink} links: not moved")
            elif source in self.open_paths or real_prefixes[branch] + rel in self.open_paths:
                self._skip(index, SkipReason.OPEN)
            elif os.path.lexists(target):
                self._skip(index, SkipReason.EXISTS, target)
            else:
                temp = os.path.join(os.path.dirname(target), f"{TEMP_PREFIX}{token}.{index}")
                entry = JournalEntry(rel, source, target, temp,
                                     fc.SourceIdentity.of(st), st.st_atime_ns)  # fmt: skip
                copy = _Copy(len(copies), index, move, entry, st)
                copies.append(copy)
                if stat.S_ISREG(st.st_mode) and 0 < st.st_size <= min(PREFETCH_BYTES, ahead):
                    fc.prefetch(source)
                    copy.read_ahead = True
                    ahead -= st.st_size
        return copies

    def _place_and_settle(self, journal: Journal, copies: list[_Copy]) -> None:
        live = [c for c in copies if c.record is not None]
        landed = self.pools.landed
        # The copies durable, and with them the unlinks of the groups settled before
        self._sync({c.move.destination for c in live} | landed.paths)
        landed.synced()
        self._verify_and_recheck(live)
        live = [c for c in live if c.record is not None]
        if self.cancel.is_set():
            raise fc.Cancelled
        journal.record_copied({c.index: c.record for c in live if c.record is not None})
        for copy in live:
            self.current = copy.move.file.rel
            try:
                rename_noreplace(copy.entry.temp, copy.entry.target)
                copy.renamed = True
            except FileExistsError:
                os.unlink(copy.entry.temp)
                restore_atime(copy.entry)
                self._outcome(copy, SkipReason.EXISTS, "appeared during the copy")
        renamed = [c for c in copies if c.renamed]
        if renamed:
            # Once a source is unlinked, a new file may take its path and inode number:
            # the journal says so before the first unlink, so that a recovery never
            # takes such a file for the source changed after the copy and removes the
            # copy. Durable with the renames: their syncfs, or a flush of its own.
            journal.record_settling(frozenset(c.index for c in renamed))
        self._sync({c.move.destination for c in renamed}, journal if renamed else None)
        self._settle(renamed)
        # The unlinks (and any copy removed) durable before the journal goes: at the
        # next group's first syncfs, or the run's end.
        landed.add(journal, {c.move.file.branch for c in renamed}
                   | {c.move.destination for c in renamed})  # fmt: skip

    def _outcome(self, copy: _Copy, skip: SkipReason | None, detail: str = "") -> None:
        self.outcomes[copy.position] = outcome = MoveOutcome(copy.move, skip is None, skip, detail)
        self.on_outcome(outcome)

    def _make_folders(self, copies: list[_Copy]) -> list[_Copy]:
        """The folders above each copy, in order, in this thread; the copies that have
        theirs."""
        known: set[str] = set()
        ready: list[_Copy] = []
        for copy in copies:
            if self.cancel.is_set():
                raise fc.Cancelled
            file = copy.move.file
            self.current = file.rel
            try:
                made = fc.make_parents(file.branch, copy.move.destination, file.rel, known)
            except NotADirectoryError as exc:
                self._outcome(copy, SkipReason.EXISTS, f"{exc.filename} is not a folder")
                continue
            self.folders.extend(made)
            ready.append(copy)
        return ready

    def _copy_all(self, copies: list[_Copy], meanwhile: Callable[[], None]) -> None:
        """The copies in COPY_THREADS threads: a file's copy not read ahead is mostly
        waiting (a cold read, the inode's creation) and the waits overlap. The first
        failure halts the others (before their next file or chunk) and is raised only
        once every thread has stopped, so none still writes a temp file when the group
        is undone."""
        halt = _Halt(self.cancel)

        def copy_one(copy: _Copy) -> None:
            if halt.is_set():
                raise fc.Cancelled
            try:
                if stat.S_ISLNK(copy.before.st_mode):
                    self._copy_symlink(copy)
                else:
                    self._copy_file(copy, halt)
            except BaseException:
                if not halt.is_set():
                    self.current = copy.move.file.rel
                halt.stop()
                raise

        def copy_slice(part: list[_Copy]) -> None:
            for copy in part:
                copy_one(copy)

        # One slice per thread, not one task per file: a task's queue and wake-ups
        # cost about as much CPU as a small file's copy. The files read ahead go in one
        # slice: their data is in the page cache (or on its way), so their copies are a
        # dozen short calls each with little to wait on, and more threads only hand the
        # GIL to each other between those calls (2,000 small files: ~0.06 s of CPU).
        # The others (big files, or beyond the read-ahead's share) wait on the disk and
        # overlap in the remaining threads.
        fast = [c for c in copies if c.read_ahead]
        slow = [c for c in copies if not c.read_ahead]
        threads = COPY_THREADS - 1 if fast else COPY_THREADS
        slices = [fast, *(slow[i::threads] for i in range(threads))]
        futures = [self.pools.copiers.submit(copy_slice, part) for part in slices if part]
        try:
            meanwhile()
        except BaseException:
            halt.stop()  # this thread interrupted: the queued copies do not start
            _wait_all(futures)
            raise
        # Crash in the tests stands for kill -9: a failure like any other
        failures = [r for r in _wait_all(futures) if isinstance(r, BaseException)]
        if failures:
            raise next((f for f in failures if not isinstance(f, fc.Cancelled)), failures[0])

    def _copy_symlink(self, copy: _Copy) -> None:
        entry = copy.entry
        try:
            link = os.readlink(entry.source)
        except (FileNotFoundError, OSError) as exc:
            self._outcome(copy, SkipReason.VANISHED if exc.errno == errno.ENOENT
                          else SkipReason.CHANGED, str(exc))  # fmt: skip
            return
        os.symlink(link, entry.temp)
        fc.copy_owner_mode_xattrs(entry.source, entry.temp, copy.before)
        fc.set_times(entry.temp, copy.before)
        after = os.lstat(entry.source)
        if fc.SourceIdentity.of(after) != entry.identity or os.readlink(entry.source) != link:
            os.unlink(entry.temp)
            self._outcome(copy, SkipReason.CHANGED, "the link changed during the copy")
            return
        written = os.lstat(entry.temp)
        copy.record = CopiedRecord(written.st_ino, written.st_size, written.st_mtime_ns,
                                   fc.SourceIdentity.of(after))  # fmt: skip

    def _copy_file(self, copy: _Copy, halt: fc.Flag) -> None:
        entry = copy.entry
        try:
            src, noatime = fc.open_source(entry.source)
        except FileNotFoundError:
            self._outcome(copy, SkipReason.VANISHED)
            return
        except OSError as exc:
            if exc.errno != errno.ELOOP:  # a symlink took its place since the lstat
                raise
            self._outcome(copy, SkipReason.CHANGED, "replaced by a symlink")
            return
        try:
            st = os.fstat(src)
            if fc.SourceIdentity.of(st) != entry.identity:
                self._outcome(copy, SkipReason.CHANGED, "changed before the copy")
                return
            hasher = None
            if self.mover.verify:
                import hashlib

                hasher = hashlib.sha256()
            try:
                written = self._write_temp(src, st, entry.temp, hasher, halt)
            finally:
                if not noatime:  # the read may have set it: put it back, even on a stop
                    with contextlib.suppress(PermissionError):
                        os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns))
            after = os.fstat(src)
        finally:
            os.close(src)
        same = (after.st_size, after.st_mtime_ns) == (st.st_size, st.st_mtime_ns)
        if not same or (noatime and after.st_ctime_ns != st.st_ctime_ns):
            os.unlink(entry.temp)
            self._outcome(copy, SkipReason.CHANGED, "written to during the copy")
            return
        copy.sha256 = hasher.hexdigest() if hasher is not None else None
        copy.record = CopiedRecord(written.st_ino, written.st_size, written.st_mtime_ns,
                                   fc.SourceIdentity.of(after), copy.sha256)  # fmt: skip

    def _write_temp(
        self, src: int, st: os.stat_result, temp: str, hasher: hashlib._Hash | None,
        halt: fc.Flag,
    ) -> os.stat_result:  # fmt: skip
        """The temp file written whole with the source's metadata; its stat."""
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        out = os.open(temp, flags, 0o600)
        try:
            fc.copy_data(src, out, st.st_size, sparse=fc.is_sparse(st), hasher=hasher,
                         cancel=halt, on_bytes=self.on_bytes)  # fmt: skip
            fc.copy_owner_mode_xattrs(src, out, st)
            fc.set_times(out, st)
            return os.fstat(out)
        finally:
            os.close(out)

    def _sync(self, branches: set[str], journal: Journal | None = None) -> None:
        sync_filesystems(branches, journal)

    def _verify_and_recheck(self, copies: list[_Copy]) -> None:
        """The durable copies read back (verify), and each source unchanged since."""
        for copy in copies:
            self.current = copy.move.file.rel
            if copy.sha256 is not None and fc.sha256_of(copy.entry.temp) != copy.sha256:
                raise OSError(errno.EIO, "the copy read back differs from the source (sha256)",
                              copy.entry.temp)  # fmt: skip
            assert copy.record is not None
            try:
                now = fc.SourceIdentity.of(os.lstat(copy.entry.source))
            except FileNotFoundError:
                now = None
            if now != copy.record.source_after:
                os.unlink(copy.entry.temp)
                copy.record = None
                self._outcome(copy, SkipReason.CHANGED, "changed after the copy")

    def _settle(self, copies: list[_Copy]) -> None:
        """Check each copy in place and unlink its source. In threads: an unlink on ext4
        with discard costs ~0.5 ms of waiting, and they overlap (2,000: 1.1 -> 0.4 s)."""
        touched: set[str] = set()

        def settle(copy: _Copy) -> tuple[RecoveryAction, str]:
            assert copy.record is not None
            try:
                source: os.stat_result | None = os.lstat(copy.entry.source)
            except FileNotFoundError:
                source = None
            return settle_in_place(copy.entry, copy.record, source, touched, check_sha=False)

        def settle_slice(part: list[_Copy]) -> list[tuple[_Copy, tuple[RecoveryAction, str]]]:
            return [(copy, settle(copy)) for copy in part]

        slices = [copies[i::SETTLE_THREADS] for i in range(SETTLE_THREADS)]
        parts = _wait_all([self.pools.settlers.submit(settle_slice, part) for part in slices])
        for part in parts:
            if isinstance(part, BaseException):
                raise part
        settled = [done for part in parts if not isinstance(part, BaseException) for done in part]
        for copy, (action, detail) in settled:
            if action is RecoveryAction.FINISHED:
                self._outcome(copy, None)
            else:
                self._outcome(copy, SkipReason.CHANGED, detail)

    def _abort(
        self, journal: Journal, copies: list[_Copy], reason: StopReason, detail: str
    ) -> MoveStopped:
        """Stop: finish or undo what the group did, as after a crash."""
        try:
            recovered = recover_journal(journal)
        except OSError as exc:
            detail += f"; cleanup failed ({_describe(exc)}): the next run finishes it"
            recovered = {}
        for copy in copies:
            done = recovered.get(copy.index)
            if done is not None and done.action is RecoveryAction.FINISHED:
                self._outcome(copy, None, done.detail)
            elif done is not None and done.action is RecoveryAction.UNDONE:
                self._outcome(copy, SkipReason.CHANGED, done.detail)
        return MoveStopped(reason, detail, tuple(self._ordered()))
