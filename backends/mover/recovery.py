"""Finish or undo each move of an interrupted batch, from its journal (mover_journal).

The rules, per journalled move:

- no ``copied`` record: nothing was renamed, so a temp file is a partial copy: removed
  (TEMP_REMOVED); a file at the final path is not ours and is never touched;
- the temp file is there with the recorded inode: the copy is whole but not in place:
  removed, the source stays for the next run (TEMP_REMOVED); only if the source has gone
  meanwhile is the copy put in place instead (FINISHED), being then the only one;
- the final path holds the recorded inode, size and mtime: the copy is in place. If the
  source is as it was after the read, it is unlinked (FINISHED, the sha256 checked first
  when the batch verified); if the source changed since, it is the newer file and the
  copy is removed (UNDONE), but only while the journal says no source of the group may
  be gone yet. Once it says they may (``settling``), a file at the source's path that
  is not the source as read may be a new file that took the unlinked source's path and
  inode number: both it and the copy (then the only one of the moved file) stay
  (FINISHED).

A symlink left on the cache gets back the atime it had when the batch began (readlink
dated it). What recovery changed is made durable (an fsync of each folder it touched) before the
journal goes.
"""

from __future__ import annotations

import contextlib
import os

from ...core.mover import RecoveryAction, RecoveryOutcome
from .file_copy import SourceIdentity, sha256_of
from .journal import CopiedRecord, Journal, JournalEntry, fsync_dir
from .syscalls import rename_noreplace


def recover_journal(journal: Journal) -> dict[int, RecoveryOutcome]:
    """Recover every move of ``journal`` and remove it; the outcome of each move that
    needed an action, by its index in the journal. Raises OSError (the journal stays)."""
    outcomes: dict[int, RecoveryOutcome] = {}
    touched: set[str] = set()
    for index, entry in enumerate(journal.entries):
        settling = index in journal.settling
        action, detail = _recover_entry(entry, journal.copied.get(index), touched, settling)
        if not settling:  # else the file at its path is gone, or may be another's
            restore_atime(entry)
        if action is not None:
            outcomes[index] = RecoveryOutcome(
                rel=entry.rel,
                source=entry.source,
                destination=entry.target,
                action=action,
                detail=detail,
            )
    for folder in sorted(touched):
        fsync_dir(folder)
    journal.remove()
    return outcomes


def restore_atime(entry: JournalEntry) -> None:
    """A source the move leaves on the cache gets back the atime its read took from it
    (else, with age_basis atime, it would look used today and stay there). Only its
    owner or root may set it: a mover that is neither leaves it (it could not read
    with O_NOATIME either)."""
    if entry.atime_ns is None:
        return
    source = _lstat(entry.source)
    if (source is not None and source.st_ino == entry.identity.ino
            and source.st_atime_ns != entry.atime_ns):  # fmt: skip
        with contextlib.suppress(PermissionError):
            os.utime(entry.source, ns=(entry.atime_ns, source.st_mtime_ns),
                     follow_symlinks=False)  # fmt: skip


def _lstat(path: str) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None


def _recover_entry(
    entry: JournalEntry, record: CopiedRecord | None, touched: set[str], settling: bool
) -> tuple[RecoveryAction | None, str]:
    temp = _lstat(entry.temp)
    if record is None:
        if temp is None:
            return None, ""
        os.unlink(entry.temp)
        touched.add(os.path.dirname(entry.temp))
        return RecoveryAction.TEMP_REMOVED, "partial copy removed; the source stays"
    source = _lstat(entry.source)
    final = _lstat(entry.target)
    ours = (record.temp_ino, record.size, record.mtime_ns)
    if final is not None and (final.st_ino, final.st_size, final.st_mtime_ns) == ours:
        if temp is not None and temp.st_ino == record.temp_ino:
            os.unlink(entry.temp)  # the link-then-unlink rename was cut between its steps
            touched.add(os.path.dirname(entry.temp))
        return settle_in_place(entry, record, source, touched, settling=settling)
    if temp is not None and temp.st_ino == record.temp_ino:
        touched.add(os.path.dirname(entry.temp))
        if source is None:
            rename_noreplace(entry.temp, entry.target)
            return RecoveryAction.FINISHED, "the source had gone: the whole copy put in place"
        os.unlink(entry.temp)
        return RecoveryAction.TEMP_REMOVED, "copy not yet in place removed; the source stays"
    return None, ""  # never renamed (or not ours): the source is the only file


def settle_in_place(
    entry: JournalEntry,
    record: CopiedRecord,
    source: os.stat_result | None,
    touched: set[str],
    *,
    check_sha: bool = True,
    settling: bool = False,
) -> tuple[RecoveryAction, str]:
    """The copy is at its final path: unlink the source, or remove the copy when the
    source changed since (or, verifying, the copy's checksum is not the source's).
    ``settling``: the source may have been unlinked already (the journal said so before
    the first unlink), so a file at its path that is not the source as read may be a new
    one, even on the same inode number: the copy is never removed for it."""
    if source is None:
        return RecoveryAction.FINISHED, "already in place; the source was already removed"
    if source.st_ino != record.source_after.ino:
        # The source was unlinked before the crash and a new file has taken its name.
        return RecoveryAction.FINISHED, "already in place; a new file at the source is left alone"
    if settling and SourceIdentity.of(source) != record.source_after:
        # The same inode number is no proof of the same file once the source may have
        # been unlinked: removing the copy could lose the moved file. Both stay.
        return RecoveryAction.FINISHED, "already in place; the file now at the source is not the one copied and is left alone"  # fmt: skip
    if SourceIdentity.of(source) != record.source_after:
        os.unlink(entry.target)
        touched.add(os.path.dirname(entry.target))
        return RecoveryAction.UNDONE, "the source changed after the copy: copy removed"
    if check_sha and record.sha256 is not None and sha256_of(entry.target) != record.sha256:
        os.unlink(entry.target)
        touched.add(os.path.dirname(entry.target))
        return RecoveryAction.UNDONE, "the copy's sha256 differs from the source's: removed"
    os.unlink(entry.source)
    touched.add(os.path.dirname(entry.source))
    return RecoveryAction.FINISHED, "copy in place and verified: source removed"
