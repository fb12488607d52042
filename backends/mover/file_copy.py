"""One file's copy for the mover: its data (holes kept as holes), its metadata (owner,
mode, xattrs and so ACLs, times) and the folders above it on the destination.

Sources are opened with O_NOATIME, so that reading a file to move it does not make it
look used (an interrupted move would otherwise keep it on the cache); where the kernel
refuses (EPERM: neither owner nor root) the atime is put back after the read instead.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple, Protocol

from .syscalls import start_writeback

if TYPE_CHECKING:  # hashlib loads OpenSSL: only a --verify run needs it
    import hashlib

CHUNK = 16 * 2**20  # between two looks at the cancel flag
_ZEROS = bytes(2**20)
# The only xattrs removed from a copy: ACLs the destination folder's default ACL gave
# the new file although the source has none. Others (security.selinux) are the
# destination's policy and stay.
_INHERITED = ("system.posix_acl_access", "system.posix_acl_default")


class Flag(Protocol):
    """Looked at between two chunks: a threading.Event, or one that also says halt."""

    def is_set(self) -> bool: ...


class Cancelled(Exception):
    """The cancel flag was seen between two chunks."""


class SourceIdentity(NamedTuple):
    """What must be unchanged for a copy to stand for the source. A tuple, not a
    frozen dataclass: five are made and three compared for every file moved, and a
    tuple's making and comparing are C calls rather than Python ones."""

    ino: int
    size: int
    mtime_ns: int
    ctime_ns: int

    @classmethod
    def of(cls, st: os.stat_result) -> SourceIdentity:
        return cls(st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def open_source(path: str) -> tuple[int, bool]:
    """A read fd on a regular file (never following a symlink, never blocking on a
    fifo put there since the lstat) and whether O_NOATIME held."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        return os.open(path, flags | os.O_NOATIME), True
    except PermissionError:
        return os.open(path, flags), False


def prefetch(path: str) -> None:
    """Start reading a small source's data into the page cache and return at once: the
    copy then finds it there (or on its way) rather than waiting on the disk itself. A
    cold small file's copy was mostly that wait (2,000 files: ~0.5 ms a copy_file_range
    in four threads). Never dates the file: where O_NOATIME is refused (neither owner
    nor root), or the path is gone or changed, nothing is read ahead and the copy finds
    out. The descriptor is closed before this returns (the open-files check of a batch
    looks at this process's too)."""
    try:
        fd = os.open(path, _PREFETCH_FLAGS)
    except OSError:
        return
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_WILLNEED)
    except OSError:  # a fifo put there since the lstat: ESPIPE
        pass
    finally:
        os.close(fd)


_PREFETCH_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOATIME


def is_sparse(st: os.stat_result) -> bool:
    return st.st_blocks * 512 < st.st_size


def copy_data(
    src: int,
    dst: int,
    size: int,
    *,
    sparse: bool,
    hasher: hashlib._Hash | None,
    cancel: Flag,
    on_bytes: Callable[[int], None],
) -> None:
    """Copy ``size`` bytes; with ``sparse`` only the data segments (SEEK_DATA/SEEK_HOLE),
    the holes left unwritten. With a hasher the bytes pass through it (holes as zeros)."""
    offset = 0
    for start, end in _segments(src, size) if sparse else [(0, size)]:
        if hasher is not None:
            _hash_zeros(hasher, start - offset)
        _copy_range(src, dst, start, end, hasher, cancel, on_bytes)
        offset = end
    if hasher is not None:
        _hash_zeros(hasher, size - offset)
    if sparse:  # a trailing hole: the size is set, not written
        os.ftruncate(dst, size)


def _segments(fd: int, size: int) -> list[tuple[int, int]]:
    found: list[tuple[int, int]] = []
    offset = 0
    while offset < size:
        try:
            start = os.lseek(fd, offset, os.SEEK_DATA)
        except OSError as exc:
            if exc.errno == errno.ENXIO:  # nothing but a hole from here on
                break
            raise
        end = min(os.lseek(fd, start, os.SEEK_HOLE), size)
        found.append((start, end))
        offset = end
    return found


def _copy_range(
    src: int,
    dst: int,
    start: int,
    end: int,
    hasher: hashlib._Hash | None,
    cancel: Flag,
    on_bytes: Callable[[int], None],
) -> None:
    offset = start
    while offset < end:
        if cancel.is_set():
            raise Cancelled
        want = min(CHUNK, end - offset)
        if hasher is not None:
            data = os.pread(src, want, offset)
            if data:
                hasher.update(data)
                _write_all(dst, data, offset)
            done = len(data)
        else:
            done = _kernel_copy(src, dst, offset, want)
        if done == 0:  # the source shrank under us: the identity check will say so
            return
        if end - start > CHUNK:  # a big file: its writing starts while the rest is read
            start_writeback(dst, offset, done)
        offset += done
        on_bytes(done)


def _kernel_copy(src: int, dst: int, offset: int, count: int) -> int:
    try:
        return os.copy_file_range(src, dst, count, offset, offset)
    except OSError as exc:
        # EXDEV: filesystems of different types (since 5.19); EINVAL/EOPNOTSUPP: not
        # offered there. sendfile copies in the kernel too, at the output's position.
        if exc.errno not in (errno.EXDEV, errno.EINVAL, errno.EOPNOTSUPP, errno.ENOSYS):
            raise
    os.lseek(dst, offset, os.SEEK_SET)
    return os.sendfile(dst, src, offset, count)


def _write_all(fd: int, data: bytes, offset: int) -> None:
    view = memoryview(data)
    while view:
        written = os.pwrite(fd, view, offset)
        view = view[written:]
        offset += written


def _hash_zeros(hasher: hashlib._Hash, count: int) -> None:
    while count > 0:
        piece = min(count, len(_ZEROS))
        hasher.update(_ZEROS[:piece] if piece < len(_ZEROS) else _ZEROS)
        count -= piece


def sha256_of(path: str) -> str:
    """The file's sha256 read back from the disk: its cached pages are dropped first
    (the data is durable by then), so what is hashed is what was written."""
    import hashlib

    fd, noatime = open_source(path)  # reading the copy back must not date it either
    st = os.fstat(fd)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        hasher = hashlib.sha256()
        while data := os.read(fd, CHUNK):
            hasher.update(data)
        return hasher.hexdigest()
    finally:
        if not noatime:
            with contextlib.suppress(PermissionError):
                os.utime(fd, ns=(st.st_atime_ns, st.st_mtime_ns))
        os.close(fd)


# ------------------------------------------------------------------ metadata


def copy_owner_mode_xattrs(source: str | int, target: str | int, st: os.stat_result) -> None:
    """Owner, then mode (chown clears set-id bits), then xattrs, on ``target`` (an fd or,
    for a symlink, a path acted on without following). Owner only as root."""
    follow = not (isinstance(target, str) and stat.S_ISLNK(st.st_mode))
    if os.geteuid() == 0:
        os.chown(target, st.st_uid, st.st_gid, follow_symlinks=follow)
    if follow:
        os.chmod(target, stat.S_IMODE(st.st_mode))
    copy_xattrs(source, target, follow=follow)


def copy_xattrs(source: str | int, target: str | int, *, follow: bool = True) -> None:
    names = os.listxattr(source, follow_symlinks=follow)
    for name in names:
        try:
            value = os.getxattr(source, name, follow_symlinks=follow)
        except OSError as exc:
            if exc.errno == errno.ENODATA:  # removed since the listing
                continue
            raise
        os.setxattr(target, name, value, follow_symlinks=follow)
    inherited = [n for n in _INHERITED if n not in names]
    if inherited:  # one listing of the copy rather than a removal tried per name
        try:
            present = os.listxattr(target, follow_symlinks=follow)
        except OSError as exc:
            if exc.errno != errno.EOPNOTSUPP:  # no xattrs there: none inherited either
                raise
            present = []
        for name in inherited:
            if name in present:
                os.removexattr(target, name, follow_symlinks=follow)


def set_times(target: str | int, st: os.stat_result) -> None:
    follow = not (isinstance(target, str) and stat.S_ISLNK(st.st_mode))
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns), follow_symlinks=follow)


def make_parents(
    src_branch: str, dst_branch: str, rel: str, known: set[str] | None = None
) -> list[tuple[str, os.stat_result]]:
    """Create the folders above ``rel`` missing on the destination branch, each with its
    source folder's owner, mode and xattrs; returns them (with the source's stat) so the
    caller sets their times once the files are in (a rename into a folder changes its
    mtime). An existing folder is left as it is. Raises NotADirectoryError when a
    non-folder stands where a folder is needed. ``known`` holds folders already seen
    to exist (it is added to), so a batch looks at each folder once."""
    created: list[tuple[str, os.stat_result]] = []
    known = set() if known is None else known
    parts = rel.split("/")[:-1]
    for depth in range(1, len(parts) + 1):
        prefix = "/".join(parts[:depth])
        target = os.path.join(dst_branch, prefix)
        if target in known:
            continue
        try:
            existing = os.lstat(target)
        except FileNotFoundError:
            existing = None
        if existing is not None:
            if not stat.S_ISDIR(existing.st_mode):
                raise NotADirectoryError(errno.ENOTDIR, "not a folder", target)
            known.add(target)
            continue
        source = os.path.join(src_branch, prefix)
        st = os.lstat(source)
        try:
            os.mkdir(target, 0o700)
        except FileExistsError:
            continue  # another writer made it meanwhile: theirs (looked at again next time)
        known.add(target)
        fd = os.open(target, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            copy_owner_mode_xattrs(source, fd, st)
        finally:
            os.close(fd)
        created.append((target, st))
    return created
