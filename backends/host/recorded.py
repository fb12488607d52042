"""A machine captured in a folder, behind the host seam: it reads, never changes.

Apart from ``live.py``: replaying a capture (the demo, the tests, the benchmarks)
shares nothing with the real machine but the contract in ``seam.py``.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...core.errors import HostError, PermissionDenied, ToolMissing
from .seam import (
    DEFAULT_TIMEOUT,
    CommandResult,
    FsUsage,
    HostCapabilities,
    HostProcess,
    NotSupported,
    wrap_oserror,
)

if TYPE_CHECKING:
    from ..mount_users import MountUsers
    from ..mover.engine import FileMover
    from ..mover.scan import BranchScan, OpenFiles


class _Tables:
    """What host.json holds, indexed for the reads. (A plain class: a dataclass's
    generated methods cost ~0.5 ms of every start that imports the host seam.)"""

    def __init__(self, path: Path) -> None:
        try:
            meta: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise HostError(f"not a recorded host: {path}: {exc}") from exc
        self.meta = meta
        self.commands: dict[tuple[str, ...], dict[str, Any]] = {
            tuple(entry["argv"]): entry for entry in meta.get("commands", [])
        }
        # Symlinks recorded as data ("links": host path -> target as stored). Captures
        # may also hold real symlinks on disk; both are honoured.
        self.links: dict[str, str] = dict(meta.get("links", {}))
        self.link_children: dict[str, set[str]] = {}  # a folder's linked names
        for link in self.links:
            parent, _, name = link.rpartition("/")
            self.link_children.setdefault(parent or "/", set()).add(name)


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
        self._meta_path = self.folder / "host.json"
        try:
            self._meta_path.stat()
        except OSError as exc:
            raise HostError(f"not a recorded host: {self._meta_path}: {exc}") from exc
        # host.json is parsed on the first read, not here: the 240-disk recording's
        # 0.8 MB took ~10 ms, which the dashboard's first paint waited for although it
        # draws the inventory kept from an earlier start (a live host has no such file).
        # Each reading method takes the tables once, ``self._tables or self._load()``:
        # the collection's threads read ~20,000 paths: a property per access made a
        # collection 2 % slower.
        self._tables: _Tables | None = None
        self._tables_lock = threading.Lock()  # the collection reads from its threads
        self._realpaths: dict[str, str] = {}

    def _load(self) -> _Tables:
        """host.json's tables, parsed at the first call (from any thread)."""
        with self._tables_lock:
            if self._tables is None:
                self._tables = _Tables(self._meta_path)
            return self._tables

    def _local(self, path: str) -> Path:
        if not path.startswith("/"):
            raise ValueError(f"host paths are absolute: {path!r}")
        return Path(self._root_prefix + path)

    @property
    def capabilities(self) -> HostCapabilities:
        # A recording is another machine's past: nothing may run or change here.
        return HostCapabilities(live=False, run_benchmarks=False, watch_devices=False,
                                cheap_reads=True, no_move_reason="a recording is a past state: files move "
                                "only on a live machine")  # fmt: skip

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
        return str((self._tables or self._load()).meta.get("hostname", "recorded"))

    @property
    def identity(self) -> str:
        # Two recordings of one NAS are two past states: each is its own machine here.
        return f"recorded:{self.folder.resolve()}"

    @property
    def kernel(self) -> str:
        return str((self._tables or self._load()).meta.get("kernel", "unknown"))

    @property
    def is_root(self) -> bool:
        return bool((self._tables or self._load()).meta.get("is_root", True))

    def _resolved(self, path: str) -> Path:
        """The local file for a host path, through recorded links. Without a links
        table the OS follows on-disk symlinks itself, which is faster."""
        links = (self._tables or self._load()).links
        return self._local(self.realpath(path) if links else path)

    def gathering(self) -> AbstractContextManager[None]:
        return contextlib.nullcontext()  # every read is already local

    def read_text(self, path: str) -> str:
        try:
            return self._resolved(path).read_text(encoding="utf-8", errors="replace")
        except IsADirectoryError as exc:
            raise FileNotFoundError(path) from exc
        except OSError as exc:
            if isinstance(exc, FileNotFoundError):
                raise FileNotFoundError(path) from exc
            raise wrap_oserror(exc, path) from exc

    def listdir(self, path: str) -> list[str]:
        tables = self._tables or self._load()
        resolved = self.realpath(path) if tables.links else path
        linked = tables.link_children.get(resolved.rstrip("/") or "/", set())
        try:
            return sorted(set(os.listdir(self._local(resolved))) | linked)
        except OSError as exc:
            if linked and isinstance(exc, FileNotFoundError):
                return sorted(linked)
            if isinstance(exc, FileNotFoundError | NotADirectoryError):
                raise FileNotFoundError(path) from exc
            raise wrap_oserror(exc, path) from exc

    def readlink(self, path: str) -> str:
        links = (self._tables or self._load()).links
        if path in links:
            return links[path]
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
            links = (self._tables or self._load()).links
            if links:  # a builder recording: links live only in the table
                target: str | None = links.get(candidate)
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
        linked = (self._tables or self._load()).link_children
        return self._local(resolved).exists() or resolved in linked

    def is_dir(self, path: str) -> bool:
        resolved = self.realpath(path)
        linked = (self._tables or self._load()).link_children
        return self._local(resolved).is_dir() or resolved in linked

    def _xattrs(self, path: str) -> dict[str, str]:
        table: dict[str, dict[str, str]] = (self._tables or self._load()).meta.get("xattrs", {})
        if path.rstrip("/") not in table:
            raise FileNotFoundError(path)
        return table[path.rstrip("/")]

    def listxattr(self, path: str) -> list[str]:
        denied: list[str] = (self._tables or self._load()).meta.get("xattr_denied", [])
        if path.rstrip("/") in denied:
            raise PermissionDenied(path)
        return sorted(self._xattrs(path))

    def getxattr(self, path: str, name: str) -> str:
        denied: list[str] = (self._tables or self._load()).meta.get("xattr_denied", [])
        if path.rstrip("/") in denied:
            raise PermissionDenied(path)
        return self._xattrs(path)[name]

    def statvfs(self, path: str) -> FsUsage:
        table: dict[str, dict[str, int]] = (self._tables or self._load()).meta.get("statvfs", {})
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
        table: dict[str, dict[str, str]] | None = (self._tables or self._load()).meta.get("udev")
        if table is None:
            return None
        props = table.get(devname)
        return dict(props) if props is not None else None

    def has_tool(self, tool: str) -> bool:
        return tool in (self._tables or self._load()).meta.get("tools", [])

    def run(self, argv: Sequence[str], timeout: float = DEFAULT_TIMEOUT) -> CommandResult:
        args = tuple(argv)
        if not self.has_tool(args[0]):
            raise ToolMissing(args[0])
        tables = self._tables or self._load()
        entry = tables.commands.get(args)
        if entry is None:
            fallback: dict[str, Any] = tables.meta.get("fallback", {}).get(args[0], {})
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
