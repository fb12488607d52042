"""The Linux calls the mover needs that Python's os module lacks: ``syncfs`` (one
flush of a whole filesystem for a batch of files, instead of an fsync per file),
``renameat2(RENAME_NOREPLACE)`` (rename that refuses to replace a file already there)
and ``sync_file_range`` (start writing a copied range now, so that the flush finds
little left to write). Through glibc via ctypes, with portable fallbacks.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
from typing import Any

AT_FDCWD = -100
RENAME_NOREPLACE = 1
SYNC_FILE_RANGE_WRITE = 2


@functools.cache
def _libc() -> Any:
    return ctypes.CDLL(None, use_errno=True)


def syncfs(fd: int) -> None:
    """Flush every dirty page and inode of the filesystem holding ``fd``. Raises OSError
    with the writeback error (Linux >= 5.8 reports them). Without syncfs in libc, falls
    back to sync(), which is slower but as durable."""
    func = getattr(_libc(), "syncfs", None)
    if func is None:
        os.sync()
        return
    if func(fd) != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))


def rename_noreplace(source: str, target: str) -> None:
    """Rename ``source`` to ``target`` atomically, raising FileExistsError when target
    exists. Where the filesystem lacks RENAME_NOREPLACE (EINVAL), a hard link (which
    never replaces) then an unlink of the source does the same, with a moment in which
    both names exist: callers recognise their file by its inode."""
    func = getattr(_libc(), "renameat2", None)
    if func is not None:
        result = func(AT_FDCWD, os.fsencode(source), AT_FDCWD, os.fsencode(target),
                      RENAME_NOREPLACE)  # fmt: skip
        if result == 0:
            return
        code = ctypes.get_errno()
        if code == errno.EEXIST:
            raise FileExistsError(code, os.strerror(code), target)
        if code not in (errno.EINVAL, errno.ENOSYS):
            raise OSError(code, os.strerror(code), source)
    os.link(source, target, follow_symlinks=False)
    os.unlink(source)


def start_writeback(fd: int, offset: int, count: int) -> None:
    """Ask the kernel to start writing ``count`` bytes at ``offset`` of ``fd`` to the
    disk, without waiting: the read of the next chunk and this write overlap. Only a
    head start: durability still comes from syncfs. Ignored where unavailable."""
    func = getattr(_libc(), "sync_file_range", None)
    if func is not None:
        func(fd, ctypes.c_int64(offset), ctypes.c_int64(count), SYNC_FILE_RANGE_WRITE)
