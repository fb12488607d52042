"""Throwaway mounts for the ladder: a tmpfs and mergerfs pools that never outlive tierdeck.

Everything lives under one tierdeck-owned root per process,
``/run/tierdeck/throwaway/<pid>-<random>/``, holding an ``owner`` file with the pid and
the process's start time (field 22 of ``/proc/PID/stat``, clock ticks since boot): a
pid the kernel has since given to another process does not pass for the owner.

:class:`Throwaway` is a context manager: whatever happens inside (an error, a cancel,
Ctrl-C), leaving it unmounts every mount under its root, newest first (``umount``, and
``umount -l`` as the last resort) and removes the root. A process killed with SIGKILL
cannot leave it, so :func:`clean_stale` (run by ``bench ladder`` and the TUI at start)
tears down every root whose owner is dead; fio runs in a session of its own and
outlives a killed tierdeck, so processes with a file open or their working directory
inside a stale root are killed first (only those; the mergerfs daemons end with their
unmount). A folder whose mount could only be detached lazily may hold a dying fio's
last write: it is removed with its content, once no mount is left under it, and never
across a file system boundary.

All machine access goes through the Host (``run`` for mount/umount/kill, ``make_dirs``,
``remove_dir``, ``read_text`` of /proc). A root on another host is owned by a pid of
this one: the ladder runs on the local host only.
"""

from __future__ import annotations

import json
import os
import posixpath
import secrets
import time
from dataclasses import dataclass
from enum import StrEnum
from types import TracebackType

from ...backends.host import Host
from ...backends.mounts import MOUNTINFO, parse_mountinfo
from ...core.errors import HostError, TierdeckError
from ...core.ladder.options import THROWAWAY_FSNAME, MountOptions
from ...core.units import format_bytes

THROWAWAY_BASE = "/run/tierdeck/throwaway"
OWNER_FILE = "owner"
MEMORY_RESERVE = 256 * 1024 * 1024  # left to the rest of the machine beside a tmpfs
_KILL_WAIT_S = 10.0
_UNMOUNT_TIMEOUT_S = 60.0


class ThrowawayErrorKind(StrEnum):
    NO_MEMORY = "no-memory"  # the tmpfs would not fit in MemAvailable
    MOUNT_FAILED = "mount-failed"
    LEFT_BEHIND = "left-behind"  # a teardown could not remove everything


class ThrowawayError(TierdeckError):
    def __init__(self, kind: ThrowawayErrorKind, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


@dataclass(frozen=True)
class Owner:
    pid: int
    start_ticks: int

    def text(self) -> str:
        return json.dumps({"pid": self.pid, "start_ticks": self.start_ticks})


def parse_owner(text: str) -> Owner | None:
    """The owner file's content; None when it is not one (half-written, garbage)."""
    try:
        data = json.loads(text)
        pid, start = data["pid"], data["start_ticks"]
    except (ValueError, TypeError, KeyError):
        return None
    if type(pid) is not int or type(start) is not int or pid <= 0:  # JSON true is no pid
        return None
    return Owner(pid, start)


def parse_stat_start(stat: str) -> int | None:
    """Field 22 (starttime) of a /proc/PID/stat line. The command name (field 2) may
    hold spaces and parentheses, so fields are counted after its last ')'."""
    _, paren, rest = stat.rpartition(")")
    fields = rest.split()
    if not paren or len(fields) < 20:
        return None
    try:
        return int(fields[19])
    except ValueError:
        return None


def _stat(host: Host, pid: int) -> str | None:
    try:
        return host.read_text(f"/proc/{pid}/stat")
    except (OSError, HostError):
        return None


def process_start(host: Host, pid: int) -> int | None:
    stat = _stat(host, pid)
    return None if stat is None else parse_stat_start(stat)


def owner_alive(host: Host, owner: Owner) -> bool:
    """The owner still runs: same pid, same start time, and not a zombie (a killed
    process nobody has reaped yet is dead for our purpose)."""
    stat = _stat(host, owner.pid)
    return stat is not None and parse_stat_start(stat) == owner.start_ticks and not _zombie(stat)


def _zombie(stat: str) -> bool:
    fields = stat.rpartition(")")[2].split()
    return bool(fields) and fields[0] in ("Z", "X")


def mem_available(host: Host) -> int | None:
    try:
        text = host.read_text("/proc/meminfo")
    except (OSError, HostError):
        return None
    for line in text.splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    return None


class Throwaway:
    """A root of throwaway mounts for one process; see the module docstring."""

    def __init__(self, host: Host, base: str = THROWAWAY_BASE) -> None:
        self.host = host
        self.base = base
        self.root = ""

    def __enter__(self) -> Throwaway:
        pid = os.getpid()
        start = process_start(self.host, pid)
        if start is None:
            raise ThrowawayError(ThrowawayErrorKind.MOUNT_FAILED, "cannot read /proc/self/stat")
        self.root = posixpath.join(self.base, f"{pid}-{secrets.token_hex(4)}")
        self.host.make_dirs(self.root)
        self.host.write_atomically(posixpath.join(self.root, OWNER_FILE), Owner(pid, start).text())
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        problems = tear_down(self.host, self.root)
        if problems and exc is None:
            raise ThrowawayError(ThrowawayErrorKind.LEFT_BEHIND, "; ".join(problems))

    def _mountpoint(self, name: str) -> str:
        path = posixpath.join(self.root, name)
        self.host.make_dirs(path)
        return path

    def mount_tmpfs(self, name: str, size_bytes: int) -> str:
        """A tmpfs of ``size_bytes`` at ROOT/name; refused when RAM cannot hold it."""
        available = mem_available(self.host)
        if available is not None and available - MEMORY_RESERVE < size_bytes:
            raise ThrowawayError(
                ThrowawayErrorKind.NO_MEMORY,
                f"a tmpfs of {format_bytes(size_bytes)} does not fit in RAM "
                f"({format_bytes(available)} available, {format_bytes(MEMORY_RESERVE)} kept back)",
            )
        path = self._mountpoint(name)
        self._mount(["mount", "-t", "tmpfs", "-o", f"size={size_bytes},mode=0755",
                     THROWAWAY_FSNAME, path], path)  # fmt: skip
        return path

    def mount_mergerfs(self, name: str, branches: str, options: MountOptions) -> str:
        """A mergerfs pool of ``branches`` (mergerfs's ``/a=RW:/b=NC``) with ``options``
        at ROOT/name."""
        path = posixpath.join(self.root, name)
        for branch in _branch_paths(branches):
            if _overlaps(path, branch):
                # mergerfs would then answer its own requests about the branch from the
                # mount itself: it deadlocks, and every statfs of the mount hangs with it
                # (the inventory of every tierdeck on the machine included).
                raise ThrowawayError(
                    ThrowawayErrorKind.MOUNT_FAILED,
                    f"a pool at {path} would sit on its own branch {branch}",
                )
        self.host.make_dirs(path)
        self._mount(["mergerfs", "-o", options.text(), branches, path], path)
        return path

    def _mount(self, argv: list[str], path: str) -> None:
        try:
            result = self.host.run(argv, timeout=_UNMOUNT_TIMEOUT_S)
        except HostError as exc:
            self.host.remove_dir(path)
            raise ThrowawayError(ThrowawayErrorKind.MOUNT_FAILED, str(exc)) from exc
        if not result.ok:
            self.host.remove_dir(path)
            said = (result.stderr.strip() or result.stdout.strip()).splitlines()
            detail = said[-1] if said else f"exit {result.returncode}"
            raise ThrowawayError(ThrowawayErrorKind.MOUNT_FAILED, f"{argv[0]}: {detail}")

    def unmount(self, path: str) -> None:
        """Unmount one mount of this root (the ones mounted on it go first) now."""
        problems = _unmount_under(self.host, path)
        if not problems:
            _remove_dir(self.host, path, problems)
        if problems:
            raise ThrowawayError(ThrowawayErrorKind.LEFT_BEHIND, "; ".join(problems))


def _branch_paths(branches: str) -> list[str]:
    """The paths of mergerfs's ``/a=RW:/b=NC`` branch argument."""
    return [part.rsplit("=", 1)[0] for part in branches.split(":") if part]


def _overlaps(a: str, b: str) -> bool:
    a, b = posixpath.normpath(a), posixpath.normpath(b)
    return a == b or a.startswith(b.rstrip("/") + "/") or b.startswith(a.rstrip("/") + "/")


def _mounts_under(host: Host, top: str) -> list[str]:
    """Mountpoints at or under ``top``, in the order they were mounted."""
    return [
        m.mountpoint
        for m in parse_mountinfo(host.read_text(MOUNTINFO))
        if m.mountpoint == top or m.mountpoint.startswith(top + "/")
    ]


def _unmount_under(host: Host, top: str) -> list[str]:
    problems: list[str] = []
    for point in reversed(_mounts_under(host, top)):
        # A hung FUSE daemon blocks a plain umount: give it a while, then detach lazily.
        for argv, wait in (
            (["umount", point], 10.0),
            (["umount", "-l", point], _UNMOUNT_TIMEOUT_S),
        ):
            try:
                if host.run(argv, timeout=wait).ok:
                    break
            except HostError:
                continue
        else:
            problems.append(f"cannot unmount {point}")
    return problems


def _remove_dir(host: Host, path: str, problems: list[str]) -> None:
    try:
        host.remove_dir(path)
    except (OSError, HostError) as exc:
        problems.append(f"cannot remove {path}: {exc}")


def holders(host: Host, top: str) -> list[int]:
    """Processes (not mergerfs, not this one) with a file open or their working
    directory at or under ``top``."""
    inside = top.rstrip("/") + "/"
    found: list[int] = []
    for entry in host.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            if host.read_text(f"/proc/{entry}/comm").strip() == "mergerfs":
                continue
            links = [f"/proc/{entry}/cwd"]
            links += [f"/proc/{entry}/fd/{fd}" for fd in host.listdir(f"/proc/{entry}/fd")]
        except (OSError, HostError):
            continue  # gone meanwhile, or not ours to read
        for link in links:
            try:
                target = host.readlink(link)
            except (OSError, HostError):
                continue
            if target == top or target.startswith(inside):
                found.append(int(entry))
                break
    return found


def _gone(host: Host, pid: int) -> bool:
    stat = _stat(host, pid)
    return stat is None or _zombie(stat)  # a zombie holds no files


def stop_holders(host: Host, top: str) -> list[int]:
    """Kill the processes holding ``top`` (a killed tierdeck's fio) and wait for them."""
    pids = holders(host, top)
    if not pids:
        return []
    host.run(["kill", "-KILL", *map(str, pids)])
    deadline = time.monotonic() + _KILL_WAIT_S
    while not all(_gone(host, pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)  # the kernel closes a killed process's files as it exits
    return pids


def tear_down(host: Host, root: str) -> list[str]:
    """Unmount everything under ``root`` and remove it; what could not be done."""
    if not root or not host.exists(root):
        return []
    problems = _unmount_under(host, root)
    if problems:
        stop_holders(host, root)
        problems = _unmount_under(host, root)
    if problems:
        return problems
    try:
        names = host.listdir(root)
    except FileNotFoundError:
        return []  # another cleaner (two tierdecks started after a crash) got there first
    for name in names:
        path = posixpath.join(root, name)
        if host.is_dir(path):
            _remove_mountpoint(host, path, problems)
        else:
            host.remove(path)
    _remove_dir(host, root, problems)
    return problems


def _remove_mountpoint(host: Host, path: str, problems: list[str]) -> None:
    """Remove a folder a throwaway mount sat on. It is empty unless its mount could
    only be detached lazily: a dying fio's last write then lands in the plain folder
    underneath, and the root would stay for every later cleaner to trip on."""
    try:
        host.remove_dir(path)
        return
    except (OSError, HostError) as exc:
        if not _has_entries(host, path):
            problems.append(f"cannot remove {path}: {exc}")
            return
    if _mounts_under(host, path):  # checked by the caller; a mount since then stays untouched
        problems.append(f"cannot remove {path}: a file system is mounted under it")
        return
    # --one-file-system: even a mount that appears after the check above is not entered.
    argv = ["rm", "-r", "--one-file-system", "--", path]
    try:
        result = host.run(argv, timeout=_UNMOUNT_TIMEOUT_S)
    except HostError as exc:
        problems.append(f"cannot remove {path}: {exc}")
        return
    if not result.ok:
        said = result.stderr.strip().splitlines()
        problems.append(f"cannot remove {path}: {said[-1] if said else 'rm failed'}")


def _has_entries(host: Host, path: str) -> bool:
    try:
        return bool(host.listdir(path))
    except (OSError, HostError):
        return False


@dataclass(frozen=True)
class StaleRoot:
    path: str
    killed: tuple[int, ...]  # processes that still held it
    problems: tuple[str, ...]


def is_stale(host: Host, root: str) -> bool:
    """Whether ``root``'s owner is dead. Without an owner file (a root being created
    this instant, or a crash before its first write) the pid in its name decides."""
    try:
        owner = parse_owner(host.read_text(posixpath.join(root, OWNER_FILE)))
    except (OSError, HostError):
        owner = None
    if owner is not None:
        return not owner_alive(host, owner)
    pid = posixpath.basename(root).partition("-")[0]
    return not pid.isdigit() or _gone(host, int(pid))


def clean_stale(host: Host, base: str = THROWAWAY_BASE) -> list[StaleRoot]:
    """Tear down every throwaway root under ``base`` whose owner is dead."""
    try:
        names = host.listdir(base)
    except (OSError, HostError):
        return []
    cleaned: list[StaleRoot] = []
    for name in names:
        root = posixpath.join(base, name)
        if not is_stale(host, root):
            continue
        killed = stop_holders(host, root)
        cleaned.append(StaleRoot(root, tuple(killed), tuple(tear_down(host, root))))
    return cleaned
