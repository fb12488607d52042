"""The host seam's contract: the :class:`Host` protocol and the values that cross it.

Apart from the two implementations (``live.py``, ``recorded.py``) so that each can
import the contract without importing the other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ...core.errors import HostError, PermissionDenied, ToolFailed

if TYPE_CHECKING:  # asyncio costs 30 ms to import: only the benchmark runner needs it
    import asyncio

    from ..mount_users import MountUsers
    from ..mover.engine import FileMover
    from ..mover.scan import BranchScan, OpenFiles

DEFAULT_TIMEOUT = 15.0


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
    # when move_files is False: why, and what the user can do (shown as it is)
    no_move_reason: str = "this host cannot move files"
    # files move there by the host's own tierdeck, started over the connection
    # (``SshHost.start_tierdeck``): the mover view runs that one instead
    moves_on_host: bool = False
    # a file read costs no round trip (this machine, a recording; not a host over SSH):
    # a caller may read many small sysfs files to save waiting on a slower command
    cheap_reads: bool = False


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
    def identity(self) -> str:
        """A stable name for this machine among all tierdeck sees ("local:<machine-id>",
        "recorded:<folder>"): what is kept about a machine between starts (its last
        inventory) is filed under it. Two hosts may share a hostname, never an identity."""
        ...

    @property
    def kernel(self) -> str: ...

    @property
    def is_root(self) -> bool: ...

    def gathering(self) -> AbstractContextManager[None]:
        """The reads inside the block may be answered from one gathering made at its
        start: a remote host sends what an inventory reads in one round trip; a local
        one reads as it goes."""
        ...

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


def wrap_oserror(exc: OSError, what: str) -> Exception:
    """The error a host call raises for an OS error: PermissionDenied for a refusal
    (both hosts report it alike), the OS error itself otherwise."""
    if isinstance(exc, PermissionError):
        return PermissionDenied(what)
    return exc
