"""Files tierdeck writes for its user on the machine it runs on: a saved job file, a
layout, the lab NAS's state. Each is written atomically: a crash or a full disk leaves
the previous file or the new one, never half of one.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from .text_sniff import HEAD_BYTES


def write_atomically(path: Path, text: str) -> None:
    """Temp file in the same folder, fsync it, rename over ``path``, fsync the folder
    (so the rename itself survives a power cut). The temp file never outlives a failure."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


class FileTooLarge(OSError):
    """A file the user named is larger than what tierdeck reads into memory."""


def read_user_file(
    path: Path,
    limit: int,
    *,
    check_head: Callable[[bytes], None] | None = None,
    head_size: int = HEAD_BYTES,
) -> bytes:
    """The bytes of a file the user named (``history import FILE``), at most ``limit``:
    a larger one (a disk image named by mistake) raises FileTooLarge unread.
    ``check_head`` sees the first ``head_size`` bytes before the rest is read, and
    may raise to refuse the file there."""
    with open(path, "rb") as fh:
        data = fh.read(min(head_size, limit + 1))
        if check_head is not None:
            check_head(data)
        if len(data) == head_size:
            try:
                fh.seek(0)  # read again whole: one copy in memory, not head + rest
            except OSError:  # a pipe (<(ssh nas cat out.json)) cannot seek
                data += fh.read(limit + 1 - head_size)
            else:
                data = fh.read(limit + 1)
    if len(data) > limit:
        raise FileTooLarge(f"{path}: larger than {limit // 2**20} MiB")
    return data
