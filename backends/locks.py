"""Machine-wide locks: one benchmark per target across every tierdeck process (the CLI
in one terminal, the TUI in another). An flock on a file in /run/lock, released by the
kernel when the holder dies, so a crash never leaves a target locked.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import posixpath
from collections.abc import Iterator

from ..core.errors import HostError

try:  # CPython's own SHA-256: hashlib's would load OpenSSL (~8 ms) for one short name
    from _sha256 import sha256
except ImportError:  # another Python: the same digest from hashlib
    from hashlib import sha256


class LockHeld(HostError):
    """Another process holds the lock."""


# Moves every lock to another folder: the test suite gives each of its parallel workers
# one of its own, as if each were a machine of its own (the processes a worker starts
# inherit it, so they still see each other's locks).
ENV_LOCK_DIR = "TIERDECK_LOCK_DIR"


def _lock_dir() -> str:
    override = os.environ.get(ENV_LOCK_DIR)
    if override:
        return override
    if os.access("/run/lock", os.W_OK):
        return "/run/lock"
    import tempfile  # here: it imports shutil and random, and /run/lock is the rule

    return tempfile.gettempdir()


def lock_file_name(key: str) -> str:
    """The lock file's name for ``key``, the same on every host (a remote host's lock
    is taken on the same file by a shell over SSH)."""
    digest = sha256(key.encode()).hexdigest()[:16]
    return f"tierdeck-{digest}.lock"


def _lock_path(key: str) -> str:
    return posixpath.join(_lock_dir(), lock_file_name(key))


def _acquire(path: str) -> int | None:
    for _attempt in range(3):
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        except OSError:
            return None  # no lock file can be made here: the in-process guard remains
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            os.close(fd)
            raise LockHeld(path) from exc
        # The holder before us unlinks the file when it is done: make sure we locked
        # the file that is still there, not one it just removed.
        try:
            if os.fstat(fd).st_ino == os.stat(path, follow_symlinks=False).st_ino:
                return fd
        except FileNotFoundError:
            pass
        os.close(fd)
    return None


@contextlib.contextmanager
def exclusive(key: str) -> Iterator[None]:
    """Hold the machine-wide lock named ``key`` for the block; raise LockHeld at once
    when another process holds it."""
    path = _lock_path(key)
    fd = _acquire(path)
    try:
        yield
    finally:
        if fd is not None:
            with contextlib.suppress(OSError):  # sticky /run/lock: only its creator may
                os.unlink(path)
            os.close(fd)  # releases the flock
