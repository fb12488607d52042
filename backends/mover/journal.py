"""The mover's journal: what a batch is about to do, written and fsynced before the
first byte reaches a destination, so that after a crash (kill -9, power cut) recovery
knows every temp name to remove and every copy that may be finished.

One file per batch in the journal folder, JSON lines:

1. the intent, written atomically (temp, fsync, rename, fsync of the folder): for each
   move its source, final path, temp name and the source's identity;
2. after the copies are durable, the ``copied`` line (appended, fsynced): for each copy
   fit to be renamed into place, the temp file's inode, size and mtime, the source's
   identity after the read, and the sha256 when verifying. Renames happen only after
   this line is durable, so a final path without it in the journal is not the mover's;
3. after the renames, the ``settling`` line (appended; durable with the renames, before
   the first source is unlinked): the moves whose sources may be gone from here on.
   Once a source is unlinked, a new file may take its path and even its inode number
   (disk filesystems hand a freed number to the next file created), and nothing on the
   disk tells it from the source changed after the copy: recovery never removes the copy
   of a settling move. Before this line no source was unlinked by the mover, so a file
   at a source's path is the source (or a user's file that replaced it) and, changed,
   wins over the copy.

A torn ``copied`` or ``settling`` line (the crash hit the append) reads as absent, which
is right: nothing was renamed, or no source unlinked, yet.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...core.errors import HostError
from ..localfiles import write_atomically
from .file_copy import SourceIdentity

FORMAT = "tierdeck.mover-journal/1"
SUFFIX = ".journal"


class JournalUnreadable(HostError):
    """A file in the journal folder is not a mover journal: nothing is guessed from it."""


@dataclass(frozen=True)
class JournalEntry:
    rel: str
    source: str  # absolute path on the cache branch
    target: str  # absolute final path on the slow branch
    temp: str  # absolute temp path beside target
    identity: SourceIdentity  # the source when the batch began
    # The source's atime before the copy: readlink dates a link, and a file read without
    # O_NOATIME (EPERM: neither its owner nor CAP_FOWNER) is dated too; recovery puts
    # it back on a source that stays on the cache, else a kill -9 makes every file it
    # had read look used today (with age_basis atime, a day's postponement for each).
    atime_ns: int | None = None


@dataclass(frozen=True)
class CopiedRecord:
    temp_ino: int
    size: int
    mtime_ns: int  # as the destination stores it
    source_after: SourceIdentity  # the source after the read (atime put back: new ctime)
    sha256: str | None = None


@dataclass
class Journal:
    path: str
    entries: tuple[JournalEntry, ...]
    copied: dict[int, CopiedRecord] = field(default_factory=dict)
    settling: frozenset[int] = frozenset()  # the moves whose sources may be unlinked

    @classmethod
    def create(cls, journal_dir: str, entries: tuple[JournalEntry, ...]) -> Journal:
        os.makedirs(journal_dir, mode=0o700, exist_ok=True)
        path = os.path.join(journal_dir, f"{os.urandom(16).hex()}{SUFFIX}")  # a uuid4's bits
        intent = {"format": FORMAT, "entries": [_entry_dict(e) for e in entries]}
        write_atomically(Path(path), json.dumps(intent) + "\n")
        return cls(path, entries)

    def record_copied(self, records: dict[int, CopiedRecord]) -> None:
        self._append({"copied": {str(i): _copied_dict(r) for i, r in records.items()}})
        self.copied = dict(records)

    def record_settling(self, indexes: frozenset[int]) -> None:
        """The moves whose sources are about to be unlinked; not durable yet: the caller
        makes it so (``flush``, or a syncfs of the journal's filesystem) before the first
        unlink."""
        self._append({"settling": sorted(indexes)}, durable=False)
        self.settling = indexes

    def flush(self) -> None:
        """What was appended, on the disk (an fsync reaches the file by any descriptor)."""
        fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def device(self) -> int:
        return os.stat(self.path).st_dev

    def _append(self, line: dict[str, Any], *, durable: bool = True) -> None:
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(line) + "\n")
            fh.flush()
            if durable:
                os.fsync(fh.fileno())

    def remove(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        fsync_dir(os.path.dirname(self.path))

    @classmethod
    def load(cls, path: str) -> Journal:
        try:
            with open(path, encoding="utf-8") as fh:
                lines = fh.read().split("\n")
            intent = json.loads(lines[0])
            if intent.get("format") != FORMAT:
                raise ValueError(f"format {intent.get('format')!r}")
            entries = tuple(_entry(e) for e in intent["entries"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise JournalUnreadable(f"mover journal {path} is unreadable: {exc}") from exc
        copied: dict[int, CopiedRecord] = {}
        settling = frozenset[int]()
        for line in lines[1:]:
            try:
                record = json.loads(line)
                if "settling" in record:
                    settling = frozenset(int(i) for i in record["settling"])
                else:
                    copied = {int(i): _copied(r) for i, r in record["copied"].items()}
            except (ValueError, KeyError, TypeError, AttributeError):
                continue  # torn by the crash: as if never written
        return cls(path, entries, copied, settling)


def pending(journal_dir: str) -> list[str]:
    """Journals left by batches that did not finish, oldest name first; stray temp files
    of an intent write that never completed are removed."""
    try:
        names = sorted(os.listdir(journal_dir))
    except FileNotFoundError:
        return []
    found = []
    for name in names:
        path = os.path.join(journal_dir, name)
        if name.endswith(SUFFIX) and not name.startswith("."):
            found.append(path)
        elif name.startswith(".") and SUFFIX in name:  # write_atomically's temp
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
    return found


def fsync_dir(path: str) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _identity_list(identity: SourceIdentity) -> list[int]:
    return [identity.ino, identity.size, identity.mtime_ns, identity.ctime_ns]


def _identity(values: Any) -> SourceIdentity:
    ino, size, mtime_ns, ctime_ns = (int(v) for v in values)
    return SourceIdentity(ino, size, mtime_ns, ctime_ns)


def _entry_dict(entry: JournalEntry) -> dict[str, Any]:
    raw: dict[str, Any] = {"rel": entry.rel, "source": entry.source, "target": entry.target,
                           "temp": entry.temp, "identity": _identity_list(entry.identity)}  # fmt: skip
    if entry.atime_ns is not None:
        raw["atime_ns"] = entry.atime_ns
    return raw


def _entry(raw: dict[str, Any]) -> JournalEntry:
    atime = raw.get("atime_ns", raw.get("link_atime_ns"))  # symlinks only, before
    return JournalEntry(str(raw["rel"]), str(raw["source"]), str(raw["target"]),
                        str(raw["temp"]), _identity(raw["identity"]),
                        None if atime is None else int(atime))  # fmt: skip


def _copied_dict(record: CopiedRecord) -> dict[str, Any]:
    return {"temp_ino": record.temp_ino, "size": record.size, "mtime_ns": record.mtime_ns,
            "source_after": _identity_list(record.source_after), "sha256": record.sha256}  # fmt: skip


def _copied(raw: dict[str, Any]) -> CopiedRecord:
    sha = raw.get("sha256")
    return CopiedRecord(int(raw["temp_ino"]), int(raw["size"]), int(raw["mtime_ns"]),
                        _identity(raw["source_after"]), str(sha) if sha else None)  # fmt: skip
