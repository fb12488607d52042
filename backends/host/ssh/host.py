"""A remote machine behind the host seam, over one SSH connection.

Each call of the contract (docs/architecture.md, "The host seam") is one shell line
(``remote_sh.py``) on a channel of the kept connection (``link.py``). Inside
``gathering()`` (an inventory) the reads are answered from one remote execution
(``gather.py``). What cannot be done over SSH alone says so through the capabilities:
the mover's engine and open-file scans run on the host itself (``tierdeck`` installed
there), never file by file over the link.
"""

from __future__ import annotations

import contextlib
import errno as errno_codes
import os
import threading
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import Future
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ....core.errors import HostError, HostUnreachable, PermissionDenied, ToolMissing, ToolTimeout
from ..seam import (
    DEFAULT_TIMEOUT,
    CommandResult,
    FsUsage,
    HostCapabilities,
    HostProcess,
    NotSupported,
)
from . import gather, leftovers, remote_sh
from .kept import KeptLink, open_kept
from .result import Prompt, RemoteResult
from .target import SshTarget

if TYPE_CHECKING:
    from ...mount_users import MountUsers
    from ...mover.engine import FileMover
    from ...mover.scan import BranchScan, OpenFiles
    from .link import SshLink
    from .process import RemoteProcess

# Reads and tests are quick; a hung remote (an NFS mount) must not hang the inventory.
READ_TIMEOUT = 20.0


@dataclass(frozen=True)
class RemoteFacts:
    hostname: str
    kernel: str
    is_root: bool
    machine_id: str
    tierdeck_version: str  # "" when tierdeck is not installed on the host


class SshHost:
    """A machine reached over SSH (``nas2``, ``root@10.0.0.5:2222``)."""

    def __init__(self, target: SshTarget | str, *, prompt: Prompt | None = None,
                 link: SshLink | None = None, keep_idle_s: float | None = None) -> None:  # fmt: skip
        """``keep_idle_s``: plain command runs go through the host's keeper (started
        when there is none, idle that long before it ends; ``kept.py``), None: never."""
        self.target = target if isinstance(target, SshTarget) else SshTarget.parse(target)
        self._prompt = prompt
        self._link = link
        self._link_lock = threading.Lock()
        self._keep_idle_s = keep_idle_s
        self._kept_lock = threading.Lock()  # its own: a keeper's start never holds link
        self._kept: KeptLink | None = None
        self._kept_asked = False
        self._facts: RemoteFacts | None = None
        self._facts_lock = threading.Lock()
        self._early: Future[RemoteFacts] | None = None  # connect_soon's, until used
        self._gathered: gather.Gathered | None = None
        self._gathering_depth = 0
        self._tools: dict[str, bool] = {}

    # ------------------------------------------------------------------ plumbing

    @property
    def link(self) -> SshLink:
        """This process's own connection, made (and asyncssh imported) on first use."""
        with self._link_lock:
            if self._link is None:
                from .link import SshLink

                self._link = SshLink(self.target, prompt=self._prompt)
            return self._link

    @property
    def kept(self) -> KeptLink | None:
        """The keeper serving this host's plain commands, or None (this process then
        uses its own connection): asked for once, when ``keep_idle_s`` says so."""
        with self._kept_lock:
            if not self._kept_asked and self._keep_idle_s is not None:
                self._kept_asked = True
                self._kept = open_kept(str(self.target), self._keep_idle_s)
            return self._kept

    def _plain(self, line: str, *, stdin: bytes | None = None,
               timeout: float | None = READ_TIMEOUT, read: bool = True) -> RemoteResult:  # fmt: skip
        """A plain command run: over the keeper when there is one, else (or once it is
        gone) over this process's own connection. ``read``: running the line twice is
        harmless (a keeper lost while it ran, it is run again here)."""
        kept = self.kept
        if kept is not None:
            result = kept.shell(line, stdin=stdin, timeout=timeout, again_safe=read)
            if result is not None:
                return result
            self._kept = None  # gone before it ran the line: connect ourselves from now on
        return self.link.shell(line, stdin=stdin, timeout=timeout)

    def _sh(self, line: str, *, stdin: bytes | None = None,
            timeout: float = READ_TIMEOUT, read: bool = True) -> RemoteResult:  # fmt: skip
        """A read or a command's run (the keeper's when there is one)."""
        self.facts  # noqa: B018 - connect first: the leftovers of a lost link go first
        return self._plain(line, stdin=stdin, timeout=timeout, read=read)

    def _direct(self, line: str, *, stdin: bytes | None = None,
                timeout: float = READ_TIMEOUT) -> RemoteResult:  # fmt: skip
        """A change (a write, a removal, a signal): always on this process's own
        connection, never a keeper's, so its guarantees are the link's own."""
        self.facts  # noqa: B018 - as _sh
        return self.link.shell(line, stdin=stdin, timeout=timeout)

    def _oserror(self, result: RemoteResult, path: str) -> Exception:
        """The OSError our line's status names (an errno), as this machine's would be."""
        code = result.returncode or errno_codes.EIO
        if code == errno_codes.EACCES:
            return PermissionDenied(path)
        if code == errno_codes.ENOENT:
            return FileNotFoundError(code, os.strerror(code), path)
        if code in (1, 126) and not result.stderr:
            code = errno_codes.EIO
        message = result.stderr.decode(errors="replace").strip().splitlines()
        text = message[-1] if message else os.strerror(code)
        if code > 133:
            code = errno_codes.EIO
        return OSError(code, text, path)

    def connect_soon(self) -> None:
        """Connect and read the host's facts in the background, and return at once: the
        caller does its own work meanwhile (a command's imports) while the host's sshd
        starts the session and its login shell. ``facts`` then waits for that and
        raises its error, once (the next use connects again, as after any failure).
        A password prompt is asked from the link's threads, as it always is."""
        with self._facts_lock:
            if self._facts is not None or self._early is not None:
                return
            early: Future[RemoteFacts] = Future()
            self._early = early

        def read() -> None:
            try:
                early.set_result(self._read_facts())
            except BaseException as exc:  # noqa: BLE001 - raised to the caller of facts
                early.set_exception(exc)

        threading.Thread(target=read, name=f"connect {self.target}", daemon=True).start()

    @property
    def facts(self) -> RemoteFacts:
        early = self._early
        if early is not None:
            try:
                return early.result()
            finally:
                self._early = None
        return self._read_facts()

    def _read_facts(self) -> RemoteFacts:
        with self._facts_lock:
            if self._facts is None:
                result = self._plain(remote_sh.FACTS_LINE, timeout=READ_TIMEOUT)
                lines = result.stdout.decode(errors="replace").split("\n") + [""] * 5
                self._facts = RemoteFacts(
                    hostname=lines[0].strip(),
                    kernel=lines[1].strip(),
                    is_root=lines[2].strip() == "0",
                    machine_id=lines[3].strip(),
                    tierdeck_version=lines[4].strip(),
                )
                leftovers.clean(self)
            return self._facts

    def close(self) -> None:
        """End this process's own connection (a keeper lives on, for the next command)."""
        with self._link_lock:
            link = self._link
        if link is not None:
            link.close()

    # ------------------------------------------------------------------ identity

    @property
    def capabilities(self) -> HostCapabilities:
        return HostCapabilities(live=True, run_benchmarks=True, watch_devices=False,
                                move_files=False, no_move_reason=self._no_move_reason(),
                                moves_on_host=self.tierdeck_installed)  # fmt: skip

    def _no_move_reason(self) -> str:
        # the mover moves the host's files on the host, never one by one over the link
        if self.tierdeck_installed:
            return (f"files move on {self.target} itself, by its own tierdeck "
                    f"({self.facts.tierdeck_version}): tierdeck --host {self.target} "
                    "mover run --layout FILE")  # fmt: skip
        return (f"files move on {self.target} itself, and tierdeck is not installed there: "
                "install it there (clone the project, run scripts/setup.sh), then run "
                f"tierdeck --host {self.target} mover run --layout FILE")  # fmt: skip

    @property
    def hostname(self) -> str:
        return self.facts.hostname

    @property
    def identity(self) -> str:
        facts = self.facts
        return f"ssh:{facts.machine_id or facts.hostname}"

    @property
    def kernel(self) -> str:
        return self.facts.kernel

    @property
    def is_root(self) -> bool:
        return self.facts.is_root

    @property
    def tierdeck_installed(self) -> bool:
        return bool(self.facts.tierdeck_version)

    @property
    def tierdeck_version(self) -> str:
        """What ``tierdeck --version`` says on the host; "" when it is not installed."""
        return self.facts.tierdeck_version

    # ------------------------------------------------------------------ gathering

    @contextlib.contextmanager
    def gathering(self) -> Iterator[None]:
        """Answer the reads inside the block from one remote execution made at its
        start (what an inventory reads); anything it did not hold is asked as usual."""
        first = self._gathering_depth == 0
        self._gathering_depth += 1
        try:
            if first:
                result = self._sh(gather.script(), timeout=READ_TIMEOUT * 3)
                self._gathered = gather.parse(result.stdout)
            yield
        finally:
            self._gathering_depth -= 1
            if self._gathering_depth == 0:
                self._gathered = None

    # ------------------------------------------------------------------ reading

    def read_text(self, path: str) -> str:
        held = self._gathered
        if held is not None:
            answer = held.read_text(path)
            if isinstance(answer, str):
                return answer
        result = self._sh(remote_sh.read_line(path))
        if result.returncode != 0:
            raise self._oserror(result, path)
        return result.stdout.decode("utf-8", errors="replace")

    def listdir(self, path: str) -> list[str]:
        held = self._gathered
        if held is not None:
            if path in held.folders:
                return list(held.folders[path])
            if held.known_absent(path):
                raise FileNotFoundError(errno_codes.ENOENT, "No such file or directory", path)
        result = self._sh(remote_sh.listdir_line(path))
        if result.returncode != 0:
            raise self._oserror(result, path)
        return sorted(n for n in result.stdout.decode(errors="surrogateescape").split("\0") if n)

    def readlink(self, path: str) -> str:
        result = self._sh(remote_sh.readlink_line(path))
        if result.returncode != 0:
            raise self._oserror(result, path)
        return result.stdout.decode(errors="surrogateescape").rstrip("\n")

    def realpath(self, path: str) -> str:
        held = self._gathered
        if held is not None and path in held.realpaths:
            return held.realpaths[path]
        result = self._sh(remote_sh.realpath_line(path))
        if result.returncode != 0:
            return path
        answer = result.stdout.decode(errors="surrogateescape").rstrip("\n")
        if held is not None:
            held.realpaths[path] = answer  # asked again by the next source
        return answer

    def _test(self, flag: str, path: str) -> bool:
        held = self._gathered
        if held is not None:
            if path in held.folders:
                return True
            if path in held.files:
                return flag == "-e"  # a file read whole is no folder
            if held.known_absent(path):
                return False
        return self._sh(remote_sh.test_line(flag, path)).returncode == 0

    def exists(self, path: str) -> bool:
        return self._test("-e", path)

    def is_dir(self, path: str) -> bool:
        return self._test("-d", path)

    def _xattrs(self, path: str) -> dict[str, str]:
        held = self._gathered
        if held is not None and path in held.xattrs:
            return held.xattrs[path]
        result = self._sh(remote_sh.xattrs_line(path))
        if result.returncode == 127:
            raise ToolMissing("getfattr")
        if result.returncode != 0:
            if result.returncode == 1:  # getfattr: no attributes (or unsupported here)
                return {}
            raise self._oserror(result, path)
        values = gather.parse_getfattr_hex(result.stdout.decode(errors="replace"))
        if held is not None:
            held.xattrs[path] = values
        return values

    def listxattr(self, path: str) -> list[str]:
        return sorted(self._xattrs(path))

    def getxattr(self, path: str, name: str) -> str:
        values = self._xattrs(path)
        if name not in values:
            raise KeyError(name)
        return values[name]

    def statvfs(self, path: str) -> FsUsage:
        held = self._gathered
        if held is not None and path in held.usage:
            return held.usage[path]
        result = self._sh(remote_sh.statvfs_line(path))
        if result.returncode != 0:
            raise self._oserror(result, path)
        usage = gather.parse_statfs(result.stdout.decode(errors="replace"))
        if usage is None:
            raise HostError(f"{self.target}: stat -f {path}: unexpected answer")
        return usage

    def udev_properties(self, devname: str) -> dict[str, str] | None:
        """udev's view as pyudev gives it on the host: the kernel's uevent, the device's
        path, and the database entry (E: properties, S: links); None when udevd does
        not keep a database there."""
        if not self._udev_current():
            return None
        base = f"/sys/block/{devname}"
        if not self.exists(base):
            base = f"/sys/class/block/{devname}"
        try:
            majmin = self.read_text(f"{base}/dev").strip()
            database = self.read_text(f"/run/udev/data/b{majmin}")
            uevent = self.read_text(f"{base}/uevent")
        except (OSError, HostError):
            return None
        props: dict[str, str] = {}
        for line in uevent.splitlines():
            key, eq, value = line.partition("=")
            if eq:
                props[key] = value
        if "DEVNAME" in props and not props["DEVNAME"].startswith("/"):
            props["DEVNAME"] = "/dev/" + props["DEVNAME"]
        props["DEVPATH"] = self.realpath(base).removeprefix("/sys")
        props["SUBSYSTEM"] = "block"
        links = []
        for line in database.splitlines():
            kind, _, value = line.partition(":")
            if kind == "E":
                key, eq, val = value.partition("=")
                if eq:
                    props[key] = val
            elif kind == "S":
                links.append("/dev/" + value)
        props["DEVLINKS"] = " ".join(sorted(links))
        return props

    def _udev_current(self) -> bool:
        """As on this machine: udevd runs and has filled its database."""
        held = self._gathered
        if held is not None and "udevd" in held.facts:
            running = held.facts["udevd"] == "1"
            return running and bool(held.folders.get("/run/udev/data") or
                                    "data" in held.folders.get("/run/udev", []))  # fmt: skip
        return self._sh(remote_sh.UDEV_CURRENT_LINE).returncode == 0

    def has_tool(self, tool: str) -> bool:
        if tool not in self._tools:
            self._tools[tool] = self._sh(remote_sh.has_tool_line(tool)).returncode == 0
        return self._tools[tool]

    def run(self, argv: Sequence[str], timeout: float = DEFAULT_TIMEOUT) -> CommandResult:
        args = list(argv)
        try:
            result = self._sh(remote_sh.run_line(args, timeout), timeout=timeout + 5, read=False)
        except TimeoutError as exc:
            raise ToolTimeout(args, timeout) from exc
        stderr = result.stderr.decode("utf-8", errors="replace")
        if result.returncode == 127 and stderr.strip() == remote_sh.MISSING_MARK:
            raise ToolMissing(args[0])
        if result.signal == "timeout" or result.returncode in remote_sh.TIMEOUT_STATUSES:
            raise ToolTimeout(args, timeout)
        if result.returncode is None:
            raise HostError(
                f"{' '.join(args)}: killed by {result.signal or 'a signal'} on {self.target}"
            )
        return CommandResult(
            argv=tuple(args),
            returncode=result.returncode,
            stdout=result.stdout.decode("utf-8", errors="replace"),
            stderr=stderr,
        )

    # ------------------------------------------------------------------ changing

    async def spawn(self, argv: Sequence[str], env: Mapping[str, str] | None = None) -> HostProcess:
        from .process import spawn_remote

        self.facts  # noqa: B018 - connect (and clean leftovers) before the first spawn
        return await spawn_remote(self.link, list(argv), dict(env or {}))

    async def start_tierdeck(self, args: Sequence[str]) -> RemoteProcess:
        """``tierdeck ARGS`` on the host itself (its mover), as ``spawn`` starts fio, but
        a lost link only TERMs it: it then stops the clean way on its own, never cut
        short by a KILL (its journal would make that safe too, at its next run)."""
        from .process import spawn_remote

        self.facts  # noqa: B018 - connect first, as spawn
        return await spawn_remote(self.link, ["tierdeck", *args], {}, kill_after=None)

    def signal_group(self, pgid: int, sig: int) -> bool:
        import signal

        name = signal.Signals(sig).name.removeprefix("SIG")
        try:
            return self._direct(remote_sh.signal_line(pgid, name)).returncode == 0
        except HostUnreachable:
            # The host's own watcher stops a group whose connection is gone.
            return False

    def group_alive(self, pgid: int) -> bool:
        try:
            return self._direct(remote_sh.group_alive_line(pgid)).returncode == 0
        except HostUnreachable:
            return False  # as above: the watcher on the host stops it

    def _change(self, line: str, path: str, stdin: bytes | None = None) -> RemoteResult:
        result = self._direct(line, stdin=stdin)
        if result.returncode != 0:
            raise self._oserror(result, path)
        return result

    def write_text(self, path: str, text: str) -> None:
        self._change(remote_sh.write_line(path), path, text.encode())

    def remove(self, path: str) -> bool:
        try:
            result = self._direct(remote_sh.remove_line(path))
        except HostUnreachable:
            leftovers.remember(self, path)  # removed at the next connection
            raise
        return self._removed(result, path)

    def write_atomically(self, path: str, text: str) -> None:
        self._change(remote_sh.write_atomically_line(path), path, text.encode())

    def make_dirs(self, path: str) -> None:
        self._change(remote_sh.make_dirs_line(path), path)

    def remove_dir(self, path: str) -> bool:
        return self._removed(self._direct(remote_sh.remove_dir_line(path)), path)

    def _removed(self, result: RemoteResult, path: str) -> bool:
        """A removal's answer: True when it removed ``path``, False when there was
        nothing there; any other failure raised as the OSError it was."""
        if result.returncode == errno_codes.ENOENT:
            return False
        if result.returncode != 0:
            raise self._oserror(result, path)
        return True

    def setxattr(self, path: str, name: str, value: str) -> None:
        self._change(remote_sh.setxattr_line(path, name, value), path)

    def probe_write(self, directory: str, name: str, *, direct: bool) -> OSError | None:
        result = self._direct(remote_sh.probe_line(directory, name, direct=direct))
        if result.returncode == 0:
            return None
        message = result.stdout.decode(errors="replace").strip().splitlines()
        detail = message[-1] if message else f"dd exited {result.returncode}"
        return OSError(_errno_in(detail), detail, directory)

    def scan_branch(self, branch: str) -> BranchScan:
        raise NotSupported(f"{self.target}: the mover runs on the host itself")

    def open_files(self) -> OpenFiles:
        raise NotSupported(f"{self.target}: the mover runs on the host itself")

    def mount_users(self, mountpoint: str) -> MountUsers:
        raise NotSupported(f"{self.target}: busy mounts are checked on the host itself")

    def file_mover(self, journal_dir: str, *, verify: bool) -> FileMover:
        raise NotSupported(f"{self.target}: the mover runs on the host itself")

    def exclusive(self, key: str) -> AbstractContextManager[None]:
        from .remote_lock import remote_lock

        return remote_lock(self, key)


def _errno_in(detail: str) -> int:
    """dd's last line ends with the C library's words for the errno (strerror in the C
    locale); the number is what callers compare (EINVAL: no O_DIRECT there)."""
    for number in sorted(errno_codes.errorcode):
        if detail.endswith(os.strerror(number)):
            return number
    return errno_codes.EIO
