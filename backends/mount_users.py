"""Which processes keep a mount busy: an open file or folder under it, or their working
folder or root there. ``umount`` only says "target is busy"; an admin wants the pid and
the program to stop, before anything is changed.

Read from /proc/PID/{cwd,root,fd/*} (links the kernel keeps as absolute paths). A
process that vanishes meanwhile is skipped; one that may not be read (not root) is
counted, so "nobody" is never claimed when some could not be seen.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass
from enum import StrEnum

PROC = "/proc"


class UseKind(StrEnum):
    OPEN = "open"  # a file or folder open under the mount
    CWD = "cwd"  # its working folder is there
    ROOT = "root"  # chrooted there


@dataclass(frozen=True)
class MountUser:
    pid: int
    name: str  # /proc/PID/comm: "rsync"
    kind: UseKind
    path: str  # the path under the mount it holds


@dataclass(frozen=True)
class MountUsers:
    users: tuple[MountUser, ...]
    unreadable: int  # processes whose links we may not read


def _under(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip("/") + "/")


def _links(proc: str, pid: str) -> list[tuple[UseKind, str]]:
    base = posixpath.join(proc, pid)
    found = []
    for kind, name in ((UseKind.CWD, "cwd"), (UseKind.ROOT, "root")):
        found.append((kind, os.readlink(posixpath.join(base, name))))
    for fd in os.listdir(posixpath.join(base, "fd")):
        try:
            found.append((UseKind.OPEN, os.readlink(posixpath.join(base, "fd", fd))))
        except FileNotFoundError:  # closed meanwhile
            continue
    return found


def mount_users(mountpoint: str, proc: str = PROC) -> MountUsers:
    """Every process holding something under ``mountpoint`` (one entry per process:
    its first hold found), and how many could not be read."""
    top = posixpath.normpath(mountpoint)
    users: list[MountUser] = []
    unreadable = 0
    for pid in sorted((p for p in os.listdir(proc) if p.isdigit()), key=int):
        if int(pid) == os.getpid():
            continue
        try:
            held = next(((k, p) for k, p in _links(proc, pid) if _under(p, top)), None)
            if held is None:
                continue
            with open(posixpath.join(proc, pid, "comm"), encoding="utf-8", errors="replace") as fh:
                name = fh.read().strip()
        except (FileNotFoundError, ProcessLookupError):
            continue  # gone
        except PermissionError:
            unreadable += 1
            continue
        users.append(MountUser(int(pid), name, held[0], held[1]))
    return MountUsers(tuple(users), unreadable)
