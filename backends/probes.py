"""A real write in a directory, to learn what it accepts before fio is started there."""

from __future__ import annotations

import contextlib
import mmap
import os
import posixpath

PROBE_BYTES = 4096  # a multiple of every logical block size (512, 4096)


def probe_write(directory: str, name: str, *, direct: bool) -> OSError | None:
    """Create ``name`` in ``directory`` and write one aligned 4 KiB block (with O_DIRECT
    when ``direct``); always remove it. The error, or None.

    A real open is the only reliable test: mergerfs accepts O_DIRECT at open() and fails
    the write when its branch does not, ramfs fails the open."""
    path = posixpath.join(directory, name)
    # O_NOFOLLOW | O_EXCL after removing a stale probe: as root in a shared directory, a
    # planted symlink under our name must never make us write somewhere else.
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    if direct:
        flags |= os.O_DIRECT
    buffer = mmap.mmap(-1, PROBE_BYTES)  # page-aligned and zeroed, as O_DIRECT needs
    try:
        _unlink_quietly(path)
        fd = os.open(path, flags, 0o600)
        try:
            os.write(fd, buffer)
        finally:
            os.close(fd)
    except OSError as exc:
        return exc
    finally:
        buffer.close()
        _unlink_quietly(path)  # ramfs creates the file before refusing O_DIRECT
    return None


def _unlink_quietly(path: str) -> None:
    # EROFS or EACCES here are reported by the probe itself when they matter
    with contextlib.suppress(OSError):
        os.unlink(path)
