"""The one seam between tierdeck and the machine it describes.

Everything that touches the machine goes through a :class:`Host`: files under ``/sys``,
``/proc`` and ``/dev``, extended attributes, ``statvfs``, external commands, and for
benchmarks processes (spawn, signal, reap), file probes and removals, kernel knobs
(drop_caches) and machine-wide locks. Callers ask :attr:`Host.capabilities` what a host
can do; they never test its type. Two implementations exist:

* :class:`LiveHost` is this machine. Commands run through ``sh`` with a timeout.
* :class:`RecordedHost` replays a folder of captured files and command outputs. It powers
  ``tierdeck --demo``, the tests, and the benchmarks (a 240-disk NAS on any laptop). It
  reads; it cannot run processes or change anything.

A remote host (ssh) implements the same protocol (docs/architecture.md, "The host
seam", says what each call must do); nothing above this changes.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import shutil
import signal
import socket
import threading
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..core.errors import HostError, PermissionDenied, ToolFailed, ToolMissing, ToolTimeout

if TYPE_CHECKING:  # asyncio costs 30 ms to import: only the benchmark runner needs it
    import asyncio

    from .mount_users import MountUsers
    from .mover.engine import FileMover
    from .mover.scan import BranchScan, OpenFiles

DEFAULT_TIMEOUT = 15.0
# Every exit status is the caller's to judge; a signal (negative) stays an error.
_ANY_EXIT = list(range(256))
UDEV_DATA = "/run/udev/data"
UDEV_CONTROL = "/run/udev/control"


def udev_database_current(data: str = UDEV_DATA, control: str = UDEV_CONTROL) -> bool:
    """udevd runs and has filled its database: its properties and events are real."""
    folder = Path(data)
    try:
        populated = folder.is_dir() and any(folder.iterdir())
    except OSError:
        return False
    return populated and udevd_running(control)


def udevd_running(control: str = UDEV_CONTROL) -> bool:
    """Is udevd listening on its control socket? Its database (/run/udev/data) outlives
    it, and then describes devices as they were: a loop device reused since would still
    show the filesystem of its previous backing file."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        sock.settimeout(0.5)
        sock.connect(control)
    except OSError:
        return False
    finally:
        sock.close()
    return True


@dataclass(frozen=True)
class CommandResult:
    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def check(self) -> CommandResult:
        """Return self, or raise :class:`ToolFailed` with the tool's stderr."""
        if self.returncode != 0:
            raise ToolFailed(list(self.argv), self.returncode, self.stderr)
        return self


@dataclass(frozen=True)
class FsUsage:
    size_bytes: int
    free_bytes: int  # free to root
    avail_bytes: int  # free to ordinary users (what df shows)
    block_size: int = 1  # f_frsize: what each file's size rounds up to (1: unknown)

    @property
    def used_bytes(self) -> int:
        return self.size_bytes - self.free_bytes


@dataclass(frozen=True)
class HostCapabilities:
    """What a host can do: asked by callers instead of the host's type."""

    live: bool  # the machine as it is now (a recording is a past state)
    run_benchmarks: bool  # fio may run there, creating and removing its test files
    watch_devices: bool  # udev events arrive when disks come and go
    move_files: bool = False  # the mover may move files between branches (file_mover)


class HostProcess(Protocol):
    """A process started by :meth:`Host.spawn` (asyncio's Process has this shape)."""

    @property
    def pid(self) -> int: ...

    @property
    def returncode(self) -> int | None: ...

    stdout: asyncio.StreamReader | None
    stderr: asyncio.StreamReader | None

    async def wait(self) -> int: ...


class NotSupported(HostError):
    """The host cannot do this (a recording cannot run a process)."""


class Host(Protocol):
    """What backends and services may ask of a machine. Paths are absolute host paths."""

    @property
    def capabilities(self) -> HostCapabilities: ...

    @property
    def hostname(self) -> str: ...

    @property
    def kernel(self) -> str: ...

    @property
    def is_root(self) -> bool: ...

    def read_text(self, path: str) -> str:
        """File contents. Raises FileNotFoundError, or PermissionDenied."""
        ...

    def listdir(self, path: str) -> list[str]:
        """Sorted entry names. Raises FileNotFoundError, or PermissionDenied."""
        ...

    def readlink(self, path: str) -> str:
        """Target of a symlink, as stored. Raises FileNotFoundError / OSError."""
        ...

    def realpath(self, path: str) -> str:
        """Canonical host path (symlinks resolved within the host)."""
        ...

    def exists(self, path: str) -> bool: ...

    def is_dir(self, path: str) -> bool: ...

    def listxattr(self, path: str) -> list[str]:
        """Names of extended attributes. Raises FileNotFoundError / PermissionDenied."""
        ...

    def getxattr(self, path: str, name: str) -> str:
        """One extended attribute, decoded. Raises KeyError if it is absent."""
        ...

    def statvfs(self, path: str) -> FsUsage:
        """Capacity of the filesystem at path. Raises FileNotFoundError / PermissionDenied."""
        ...

    def udev_properties(self, devname: str) -> dict[str, str] | None:
        """udev's properties for a block device ("sda"), or None without a udev database."""
        ...

    def has_tool(self, tool: str) -> bool: ...

    def run(self, argv: Sequence[str], timeout: float = DEFAULT_TIMEOUT) -> CommandResult:
        """Run a command. Raises ToolMissing or ToolTimeout; a non-zero exit is returned."""
        ...

    # -- changing things (benchmarks, the lab): NotSupported where not capable ---------

    async def spawn(self, argv: Sequence[str], env: Mapping[str, str] | None = None) -> HostProcess:
        """Start a long-running command (fio) in a session of its own, stdout and stderr
        as pipes, stdin closed, C locale. Raises OSError if it cannot start."""
        ...

    def signal_group(self, pgid: int, sig: int) -> bool:
        """Signal a spawned process's whole group; False when none of it is left."""
        ...

    def group_alive(self, pgid: int) -> bool:
        """Does any (non-zombie) process of the group still run?"""
        ...

    def write_text(self, path: str, text: str) -> None:
        """Write a kernel knob or a small file (drop_caches, blkio throttles)."""
        ...

    def remove(self, path: str) -> bool:
        """Unlink a file (a symlink is removed, never followed); False if it was not
        there. Raises OSError for anything else."""
        ...

    def write_atomically(self, path: str, text: str) -> None:
        """Replace a file (fstab, a unit) so that a crash leaves the old text or the new,
        never half: a temp file beside it, fsynced, renamed over it."""
        ...

    def make_dirs(self, path: str) -> None:
        """Create a folder and its missing parents (mode 0755); nothing if it exists."""
        ...

    def remove_dir(self, path: str) -> bool:
        """Remove an empty folder; False if it was not there. Raises OSError (ENOTEMPTY:
        something is in it) for anything else."""
        ...

    def setxattr(self, path: str, name: str, value: str) -> None:
        """Set an extended attribute (a running mergerfs pool's option on its control
        file). Raises OSError with mergerfs's errno (EROFS: only a mount sets it)."""
        ...

    def probe_write(self, directory: str, name: str, *, direct: bool) -> OSError | None:
        """Create ``name`` in ``directory``, write one aligned block (O_DIRECT when
        ``direct``), remove it; the error, or None."""
        ...

    def scan_branch(self, branch: str) -> BranchScan:
        """The mover's walk of a cache branch (backends/mover/scan.py): its regular
        files and symlinks by lstat, without following links, crossing into another
        filesystem or touching atime. Raises HostError if the branch cannot be read."""
        ...

    def open_files(self) -> OpenFiles:
        """The regular files open in any process (/proc/*/fd), and how many processes
        could not be read."""
        ...

    def mount_users(self, mountpoint: str) -> MountUsers:
        """The processes keeping ``mountpoint`` busy (backends/mount_users.py): files
        or folders open under it, their working folder or root there."""
        ...

    def file_mover(self, journal_dir: str, *, verify: bool) -> FileMover:
        """The mover's engine on this host (backends/mover/engine.py), journalling in
        ``journal_dir``; ``verify`` adds a sha256 check of every copy. NotSupported where
        ``capabilities.move_files`` is False."""
        ...

    def exclusive(self, key: str) -> AbstractContextManager[None]:
        """A machine-wide lock for the block (every tierdeck process on the host);
        raises backends.locks.LockHeld at once when another process holds it."""
        ...


def _wrap_oserror(exc: OSError, what: str) -> Exception:
    if isinstance(exc, PermissionError):
        return PermissionDenied(what)
    return exc


class LiveHost:
    """This machine."""

    def __init__(self) -> None:
        self._udev_context: Any = None
        self._udev_checked = False

    @property
    def capabilities(self) -> HostCapabilities:
        return HostCapabilities(
            live=True,
            run_benchmarks=True,
            watch_devices=udev_database_current(),
            move_files=True,
        )

    @property
    def hostname(self) -> str:
        return socket.gethostname()

    @property
    def kernel(self) -> str:
        return platform.release()

    @property
    def is_root(self) -> bool:
        return os.geteuid() == 0

    def read_text(self, path: str) -> str:
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                return fh.read()
        except OSError as exc:
            raise _wrap_oserror(exc, path) from exc

    def listdir(self, path: str) -> list[str]:
        try:
            return sorted(os.listdir(path))
        except OSError as exc:
            raise _wrap_oserror(exc, path) from exc

    def readlink(self, path: str) -> str:
        return os.readlink(path)

    def realpath(self, path: str) -> str:
        return os.path.realpath(path)

    def exists(self, path: str) -> bool:
        return os.path.exists(path)

    def is_dir(self, path: str) -> bool:
        return os.path.isdir(path)

    def listxattr(self, path: str) -> list[str]:
        try:
            return sorted(os.listxattr(path))
        except OSError as exc:
            raise _wrap_oserror(exc, path) from exc

    def getxattr(self, path: str, name: str) -> str:
        try:
            return os.getxattr(path, name).decode("utf-8", errors="replace")
        except OSError as exc:
            if exc.errno in (61, 95):  # ENODATA, ENOTSUP
                raise KeyError(name) from exc
            raise _wrap_oserror(exc, path) from exc

    def statvfs(self, path: str) -> FsUsage:
        try:
            st = os.statvfs(path)
        except OSError as exc:
            raise _wrap_oserror(exc, path) from exc
        return FsUsage(
            size_bytes=st.f_blocks * st.f_frsize,
            free_bytes=st.f_bfree * st.f_frsize,
            avail_bytes=st.f_bavail * st.f_frsize,
            block_size=st.f_frsize,
        )

    def _udev(self) -> Any:
        # pyudev reads /run/udev/data; an empty database (containers) gives devices
        # without properties, and a stale one (udevd stopped) gives wrong ones, so we
        # fall back to sysfs unless udevd runs and has filled its database.
        if not self._udev_checked:
            self._udev_checked = True
            if udev_database_current():
                try:
                    import pyudev

                    self._udev_context = pyudev.Context()
                except Exception:  # noqa: BLE001 - pyudev missing or libudev broken
                    self._udev_context = None
        return self._udev_context

    def udev_properties(self, devname: str) -> dict[str, str] | None:
        context = self._udev()
        if context is None:
            return None
        import pyudev

        try:
            device = pyudev.Devices.from_name(context, "block", devname)
        except Exception:  # noqa: BLE001 - device vanished between listing and lookup
            return None
        props = {str(k): str(v) for k, v in device.properties.items()}
        props["DEVLINKS"] = " ".join(device.device_links)
        return props

    def has_tool(self, tool: str) -> bool:
        return shutil.which(tool) is not None

    def run(self, argv: Sequence[str], timeout: float = DEFAULT_TIMEOUT) -> CommandResult:
        import sh  # here, not at the top: it costs ~45 ms and many commands never run one

        args = list(argv)
        try:
            command = sh.Command(args[0])
        except sh.CommandNotFound as exc:
            raise ToolMissing(args[0]) from exc
        try:
            # sh's own _timeout polls: it added ~65 ms to every command (fio --version
            # 110 ms against 45 ms). A watchdog thread kills the command's whole session
            # instead (a hung zpool's children too), and costs nothing when not needed.
            proc = command(
                *args[1:],
                _ok_code=_ANY_EXIT,
                _bg=True,
                _bg_exc=False,
                _new_session=True,
                _return_cmd=True,
                _tty_out=False,
                _env={**os.environ, "LC_ALL": "C"},
            )
        except OSError as exc:
            raise HostError(f"{' '.join(args)}: {exc}") from exc
        timed_out = threading.Event()

        def expire() -> None:
            timed_out.set()
            with contextlib.suppress(OSError, sh.ErrorReturnCode):
                proc.kill_group()

        watchdog = threading.Timer(timeout, expire)
        watchdog.daemon = True
        watchdog.start()
        try:
            proc.wait()
        except sh.SignalException as exc:
            if not timed_out.is_set():
                # sh's message repeats the command and its output over several lines
                name = signal.Signals(-exc.exit_code).name if exc.exit_code < 0 else "a signal"
                raise HostError(f"{' '.join(args)}: killed by {name}") from exc
        finally:
            watchdog.cancel()
        if timed_out.is_set():
            raise ToolTimeout(args, timeout)
        return CommandResult(
            argv=tuple(args),
            returncode=int(proc.exit_code),
            stdout=_decode(proc.stdout),
            stderr=_decode(proc.stderr),
        )

    async def spawn(self, argv: Sequence[str], env: Mapping[str, str] | None = None) -> HostProcess:
        from . import processes

        return await processes.spawn(argv, env)

    def signal_group(self, pgid: int, sig: int) -> bool:
        from . import processes

        return processes.signal_group(pgid, sig)

    def group_alive(self, pgid: int) -> bool:
        from . import processes

        return processes.group_alive(pgid)

    def write_text(self, path: str, text: str) -> None:
        try:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as exc:
            raise _wrap_oserror(exc, path) from exc

    def remove(self, path: str) -> bool:
        try:
            os.unlink(path)
        except FileNotFoundError:
            return False
        return True

    def write_atomically(self, path: str, text: str) -> None:
        from .localfiles import write_atomically

        try:
            write_atomically(Path(path), text)
        except OSError as exc:
            raise _wrap_oserror(exc, path) from exc

    def make_dirs(self, path: str) -> None:
        try:
            os.makedirs(path, mode=0o755, exist_ok=True)
        except OSError as exc:
            raise _wrap_oserror(exc, path) from exc

    def remove_dir(self, path: str) -> bool:
        try:
            os.rmdir(path)
        except FileNotFoundError:
            return False
        return True

    def setxattr(self, path: str, name: str, value: str) -> None:
        try:
            os.setxattr(path, name, value.encode("utf-8"))
        except OSError as exc:
            raise _wrap_oserror(exc, path) from exc

    def probe_write(self, directory: str, name: str, *, direct: bool) -> OSError | None:
        from .probes import probe_write

        return probe_write(directory, name, direct=direct)

    def scan_branch(self, branch: str) -> BranchScan:
        from .mover.scan import scan_branch

        try:
            return scan_branch(branch)
        except PermissionError as exc:
            raise PermissionDenied(branch) from exc
        except OSError as exc:
            raise HostError(f"{branch}: {exc.strerror or exc}") from exc

    def open_files(self) -> OpenFiles:
        from .mover.scan import open_files

        return open_files()

    def mount_users(self, mountpoint: str) -> MountUsers:
        from .mount_users import mount_users

        return mount_users(mountpoint)

    def file_mover(self, journal_dir: str, *, verify: bool) -> FileMover:
        from .mover.engine import LocalFileMover

        return LocalFileMover(journal_dir, verify=verify)

    def exclusive(self, key: str) -> AbstractContextManager[None]:
        from . import locks

        return locks.exclusive(key)


def _decode(data: bytes | str | None) -> str:
    if data is None:
        return ""
    if isinstance(data, bytes):
        return data.decode("utf-8", errors="replace")
    return data


class RecordedHost:
    """A machine captured in a folder.

    Layout::

        host.json        hostname, kernel, is_root, tools, commands, xattrs, statvfs, udev
        root/sys/...     a copy of the sysfs parts tierdeck reads; symlinks either on
                         disk or, better, as data in host.json "links"
        root/proc/...    mountinfo ("proc/self/mountinfo"), mdstat, diskstats
        root/dev/...     /dev/disk/by-id symlinks
        commands/*.txt   command outputs referred to by host.json

    ``host.json`` "commands" is a list of ``{"argv": [...], "stdout" | "stdout_file",
    "stderr", "returncode"}``. A tool listed in "tools" but called with arguments that
    were not recorded answers like the real one would to an unknown option: with the
    tool's "fallback" entry (an error message and status), so version probing behaves.
    """

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.root = self.folder / "root"
        self._root_prefix = str(self.root)  # string joins: this is the hot path
        meta_path = self.folder / "host.json"
        try:
            self._meta: dict[str, Any] = json.loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise HostError(f"not a recorded host: {meta_path}: {exc}") from exc
        self._commands: dict[tuple[str, ...], dict[str, Any]] = {
            tuple(entry["argv"]): entry for entry in self._meta.get("commands", [])
        }
        # Symlinks recorded as data ("links": host path -> target as stored). Captures
        # may also hold real symlinks on disk; both are honoured.
        self._links: dict[str, str] = dict(self._meta.get("links", {}))
        self._realpaths: dict[str, str] = {}
        self._link_children: dict[str, set[str]] = {}
        for link in self._links:
            parent, _, name = link.rpartition("/")
            self._link_children.setdefault(parent or "/", set()).add(name)

    def _local(self, path: str) -> Path:
        if not path.startswith("/"):
            raise ValueError(f"host paths are absolute: {path!r}")
        return Path(self._root_prefix + path)

    @property
    def capabilities(self) -> HostCapabilities:
        # A recording is another machine's past: nothing may run or change here.
        return HostCapabilities(live=False, run_benchmarks=False, watch_devices=False)

    def _refuse(self, what: str) -> NotSupported:
        return NotSupported(f"{what}: {self.hostname} is a recording, nothing runs there")

    async def spawn(self, argv: Sequence[str], env: Mapping[str, str] | None = None) -> HostProcess:
        raise self._refuse(f"cannot start {argv[0]}")

    def signal_group(self, pgid: int, sig: int) -> bool:
        return False  # nothing was ever started here

    def group_alive(self, pgid: int) -> bool:
        return False

    def write_text(self, path: str, text: str) -> None:
        raise self._refuse(f"cannot write {path}")

    def remove(self, path: str) -> bool:
        raise self._refuse(f"cannot remove {path}")

    def write_atomically(self, path: str, text: str) -> None:
        raise self._refuse(f"cannot write {path}")

    def make_dirs(self, path: str) -> None:
        raise self._refuse(f"cannot create {path}")

    def remove_dir(self, path: str) -> bool:
        raise self._refuse(f"cannot remove {path}")

    def setxattr(self, path: str, name: str, value: str) -> None:
        raise self._refuse(f"cannot set {name} on {path}")

    def probe_write(self, directory: str, name: str, *, direct: bool) -> OSError | None:
        return None  # no files to open: fio would report the problem itself

    def scan_branch(self, branch: str) -> BranchScan:
        raise self._refuse(f"cannot walk {branch}: a recording holds no folders")

    def open_files(self) -> OpenFiles:
        raise self._refuse("cannot list open files")

    def mount_users(self, mountpoint: str) -> MountUsers:
        raise self._refuse(f"cannot tell who uses {mountpoint}")

    def file_mover(self, journal_dir: str, *, verify: bool) -> FileMover:
        raise self._refuse("cannot move files")

    def exclusive(self, key: str) -> AbstractContextManager[None]:
        return contextlib.nullcontext()

    @property
    def hostname(self) -> str:
        return str(self._meta.get("hostname", "recorded"))

    @property
    def kernel(self) -> str:
        return str(self._meta.get("kernel", "unknown"))

    @property
    def is_root(self) -> bool:
        return bool(self._meta.get("is_root", True))

    def _resolved(self, path: str) -> Path:
        """The local file for a host path, through recorded links. Without a links
        table the OS follows on-disk symlinks itself, which is faster."""
        return self._local(self.realpath(path) if self._links else path)

    def read_text(self, path: str) -> str:
        try:
            return self._resolved(path).read_text(encoding="utf-8", errors="replace")
        except IsADirectoryError as exc:
            raise FileNotFoundError(path) from exc
        except OSError as exc:
            if isinstance(exc, FileNotFoundError):
                raise FileNotFoundError(path) from exc
            raise _wrap_oserror(exc, path) from exc

    def listdir(self, path: str) -> list[str]:
        resolved = self.realpath(path) if self._links else path
        linked = self._link_children.get(resolved.rstrip("/") or "/", set())
        try:
            return sorted(set(os.listdir(self._local(resolved))) | linked)
        except OSError as exc:
            if linked and isinstance(exc, FileNotFoundError):
                return sorted(linked)
            if isinstance(exc, FileNotFoundError | NotADirectoryError):
                raise FileNotFoundError(path) from exc
            raise _wrap_oserror(exc, path) from exc

    def readlink(self, path: str) -> str:
        if path in self._links:
            return self._links[path]
        try:
            return os.readlink(self._local(path))
        except OSError as exc:
            raise FileNotFoundError(path) from exc

    def realpath(self, path: str, _hops: int = 0) -> str:
        """Resolve symlinks inside the recorded root, so absolute links ("/dev/sda") and
        relative ones stay within the recording. A recording never changes, so every
        answer is kept, and a path resolves as (resolved parent) + its last name: each
        directory is resolved once, however many files below it are read."""
        cached = self._realpaths.get(path)
        if cached is not None:
            return cached
        if _hops > 40:
            raise HostError(f"symlink loop at {path}")
        head, _, name = path.rstrip("/").rpartition("/")
        if not name:
            return "/"
        if name == ".":
            resolved = self.realpath(head or "/", _hops)
        elif name == "..":
            resolved = self.realpath(head or "/", _hops).rpartition("/")[0] or "/"
        else:
            parent = self.realpath(head or "/", _hops)
            candidate = f"{parent.rstrip('/')}/{name}"
            if self._links:  # a builder recording: links live only in the table
                target: str | None = self._links.get(candidate)
            else:  # a capture: links are real symlinks on disk
                local = self._root_prefix + candidate
                target = os.readlink(local) if os.path.islink(local) else None
            if target is None:
                resolved = candidate
            elif target.startswith("/"):
                resolved = self.realpath(target, _hops + 1)
            else:
                resolved = self.realpath(f"{parent.rstrip('/')}/{target}", _hops + 1)
        self._realpaths[path] = resolved
        return resolved

    def exists(self, path: str) -> bool:
        resolved = self.realpath(path)
        return self._local(resolved).exists() or resolved in self._link_children

    def is_dir(self, path: str) -> bool:
        resolved = self.realpath(path)
        return self._local(resolved).is_dir() or resolved in self._link_children

    def _xattrs(self, path: str) -> dict[str, str]:
        table: dict[str, dict[str, str]] = self._meta.get("xattrs", {})
        if path.rstrip("/") not in table:
            raise FileNotFoundError(path)
        return table[path.rstrip("/")]

    def listxattr(self, path: str) -> list[str]:
        denied: list[str] = self._meta.get("xattr_denied", [])
        if path.rstrip("/") in denied:
            raise PermissionDenied(path)
        return sorted(self._xattrs(path))

    def getxattr(self, path: str, name: str) -> str:
        denied: list[str] = self._meta.get("xattr_denied", [])
        if path.rstrip("/") in denied:
            raise PermissionDenied(path)
        return self._xattrs(path)[name]

    def statvfs(self, path: str) -> FsUsage:
        table: dict[str, dict[str, int]] = self._meta.get("statvfs", {})
        entry = table.get(path.rstrip("/") or "/")
        if entry is None:
            raise FileNotFoundError(path)
        return FsUsage(
            size_bytes=int(entry["size"]),
            free_bytes=int(entry.get("free", entry["avail"])),
            avail_bytes=int(entry["avail"]),
            block_size=int(entry.get("frsize", 1)),
        )

    def udev_properties(self, devname: str) -> dict[str, str] | None:
        table: dict[str, dict[str, str]] | None = self._meta.get("udev")
        if table is None:
            return None
        props = table.get(devname)
        return dict(props) if props is not None else None

    def has_tool(self, tool: str) -> bool:
        return tool in self._meta.get("tools", [])

    def run(self, argv: Sequence[str], timeout: float = DEFAULT_TIMEOUT) -> CommandResult:
        args = tuple(argv)
        if not self.has_tool(args[0]):
            raise ToolMissing(args[0])
        entry = self._commands.get(args)
        if entry is None:
            fallback: dict[str, Any] = self._meta.get("fallback", {}).get(args[0], {})
            return CommandResult(
                argv=args,
                returncode=int(fallback.get("returncode", 2)),
                stdout=str(fallback.get("stdout", "")),
                stderr=str(fallback.get("stderr", f"{args[0]}: unrecognized arguments\n")),
            )
        if "stdout_file" in entry:
            stdout = (self.folder / entry["stdout_file"]).read_text(encoding="utf-8")
        else:
            stdout = str(entry.get("stdout", ""))
        return CommandResult(
            argv=args,
            returncode=int(entry.get("returncode", 0)),
            stdout=stdout,
            stderr=str(entry.get("stderr", "")),
        )
