"""What the mover needs to know of the machine before it moves: the files on a cache
branch, the files open in any process, and which mounts never update atime.

``LiveHost`` exposes these (``scan_branch``, ``open_files``); nothing here changes a
file, nor a file's atime (lstat and directory reads only).
"""

from __future__ import annotations

import errno
import os
import posixpath
import stat
from collections.abc import Iterable
from dataclasses import dataclass

from ...core.models import Mount
from ...core.mover import TEMP_PREFIX, CachedFile


@dataclass(frozen=True)
class BranchScan:
    """The files of one cache branch, and what the walk left alone."""

    branch: str
    files: tuple[CachedFile, ...]
    specials: tuple[str, ...]  # fifos, sockets, devices: never moved (relative paths)
    other_fs: tuple[str, ...]  # directories of another filesystem mounted inside
    errors: tuple[str, ...]  # "rel: what failed" for folders that could not be read


@dataclass(frozen=True)
class OpenFiles:
    paths: frozenset[str]  # absolute paths open in some process (files, also folders)
    unreadable: int  # processes whose open files we may not see (not root)


def scan_branch(branch: str) -> BranchScan:
    """Every regular file and symlink under ``branch``: lstat only, symlinks never
    followed, no descent into another filesystem (st_dev differs) nor into the
    engine's temporary names (TEMP_PREFIX)."""
    root = os.lstat(branch)
    files: list[CachedFile] = []
    specials: list[str] = []
    other_fs: list[str] = []
    errors: list[str] = []
    pending = [""]
    while pending:
        rel_dir = pending.pop()
        try:
            with os.scandir(posixpath.join(branch, rel_dir) if rel_dir else branch) as it:
                entries = list(it)
        except OSError as exc:
            errors.append(f"{rel_dir or '.'}: {exc.strerror or exc}")
            continue
        for entry in entries:
            if entry.name.startswith(TEMP_PREFIX):
                continue
            rel = posixpath.join(rel_dir, entry.name) if rel_dir else entry.name
            try:
                st = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue  # gone since the directory was read
            except OSError as exc:
                errors.append(f"{rel}: {exc.strerror or exc}")
                continue
            mode = st.st_mode
            if stat.S_ISDIR(mode):
                if st.st_dev != root.st_dev:
                    other_fs.append(rel)
                else:
                    pending.append(rel)
            elif stat.S_ISREG(mode) or stat.S_ISLNK(mode):
                files.append(
                    CachedFile(
                        branch=branch,
                        rel=rel,
                        size=st.st_size,
                        atime=st.st_atime,
                        mtime=st.st_mtime,
                        nlink=st.st_nlink,
                        is_symlink=stat.S_ISLNK(mode),
                        allocated=copy_allocation(entry.path, st),
                    )
                )
            else:
                specials.append(rel)
    return BranchScan(
        branch, tuple(sorted(files, key=lambda f: f.rel)), tuple(sorted(specials)),
        tuple(sorted(other_fs)), tuple(errors),
    )  # fmt: skip


def copy_allocation(path: str, st: os.stat_result) -> int:
    """What the file's copy will take: ``st_blocks`` when it has no fewer bytes than the
    file, else the bytes of its data segments. A compressed cache (ZFS lz4, btrfs zstd)
    also reports fewer blocks than bytes, but its copy to an uncompressed disk writes
    every byte: only real holes, found by SEEK_DATA/SEEK_HOLE, stay holes. lseek reads no
    data, so no atime moves; a file that cannot be opened counts whole."""
    blocks = st.st_blocks * 512
    if not stat.S_ISREG(st.st_mode) or blocks >= st.st_size:
        return blocks
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return st.st_size
    data = 0
    try:
        offset = 0
        while offset < st.st_size:
            try:
                start = os.lseek(fd, offset, os.SEEK_DATA)
            except OSError as exc:
                if exc.errno == errno.ENXIO:  # no data after offset: the rest is a hole
                    break
                return st.st_size
            end = os.lseek(fd, start, os.SEEK_HOLE)
            data += end - start
            offset = end
    except OSError:
        return st.st_size
    finally:
        os.close(fd)
    return max(blocks, min(data, st.st_size))


def open_files(proc: str = "/proc") -> OpenFiles:
    """What every process has open, in one pass over ``/proc/PID/fd``: the target of
    each link that is a path (sockets, pipes and anonymous inodes are not). Processes
    that vanish meanwhile are ignored; those we may not read are counted: without root
    a file open by another user's process (mergerfs's, say) goes unseen.

    One readlink per descriptor, no more: psutil's ``open_files`` also stats each path
    and reads each descriptor's fdinfo (four calls more per descriptor, and ~15 ms of
    import for every run). Folders and devices held open come along: the mover only
    asks whether a file it is about to move is among them."""
    paths: set[str] = set()
    unreadable = 0
    for pid in os.listdir(proc):
        if not pid.isdigit():
            continue
        try:
            targets = _fd_targets(posixpath.join(proc, pid, "fd"))
        except (FileNotFoundError, ProcessLookupError):
            continue  # exited since the listing
        except OSError:  # not ours to read (EACCES), or not a process's folder at all
            unreadable += 1
            continue
        paths.update(t for t in targets if t.startswith("/"))
    return OpenFiles(frozenset(paths), unreadable)


def _fd_targets(fd_dir: str) -> list[str]:
    """The link targets of one process's descriptors. Raises OSError when the folder
    cannot be read; a descriptor closed while it is read is left out."""
    targets = []
    with os.scandir(fd_dir) as entries:
        for entry in entries:
            try:
                targets.append(os.readlink(entry.path))
            except (FileNotFoundError, ProcessLookupError):
                continue
    return targets


def is_noatime(mount: Mount) -> bool:
    """Whether reads never update atime on this mount (the per-mount ``noatime``; the
    default relatime still moves atime at least daily, enough for ages in days)."""
    return "noatime" in mount.options


def open_under(opened: Iterable[str], branch: str, real_branch: str) -> frozenset[str]:
    """The open paths below a branch, spelled under ``branch`` as given (the kernel
    shows the resolved path: a branch reached through a symlink differs)."""
    top = real_branch.rstrip("/") + "/"
    return frozenset(posixpath.join(branch, p[len(top) :]) for p in opened if p.startswith(top))
