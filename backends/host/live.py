"""This machine behind the host seam: files, commands through ``sh``, processes.

Apart from the contract (``seam.py``) and the recording (``recorded.py``): only this
module reaches the real machine.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...core.errors import HostError, PermissionDenied, ToolMissing, ToolTimeout
from .seam import (
    DEFAULT_TIMEOUT,
    CommandResult,
    FsUsage,
    HostCapabilities,
    HostProcess,
    wrap_oserror,
)
from .udev import udev_database_current

if TYPE_CHECKING:
    from ..mount_users import MountUsers
    from ..mover.engine import FileMover
    from ..mover.scan import BranchScan, OpenFiles


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
            cheap_reads=True,
        )

    @property
    def hostname(self) -> str:
        return os.uname().nodename  # socket.gethostname()'s answer, without its import

    @property
    def identity(self) -> str:
        # The machine id survives renaming the host; a machine without one (a minimal
        # container) falls back to its hostname.
        try:
            with open("/etc/machine-id", encoding="ascii") as fh:
                machine_id = fh.read().strip()
        except (OSError, UnicodeDecodeError):
            machine_id = ""
        return f"local:{machine_id or self.hostname}"

    @property
    def kernel(self) -> str:
        return os.uname().release  # platform.release()'s

    @property
    def is_root(self) -> bool:
        return os.geteuid() == 0

    def gathering(self) -> AbstractContextManager[None]:
        return contextlib.nullcontext()  # every read is already local

    def read_text(self, path: str) -> str:
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                return fh.read()
        except OSError as exc:
            raise wrap_oserror(exc, path) from exc

    def listdir(self, path: str) -> list[str]:
        try:
            return sorted(os.listdir(path))
        except OSError as exc:
            raise wrap_oserror(exc, path) from exc

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
            raise wrap_oserror(exc, path) from exc

    def getxattr(self, path: str, name: str) -> str:
        try:
            return os.getxattr(path, name).decode("utf-8", errors="replace")
        except OSError as exc:
            if exc.errno in (61, 95):  # ENODATA, ENOTSUP
                raise KeyError(name) from exc
            raise wrap_oserror(exc, path) from exc

    def statvfs(self, path: str) -> FsUsage:
        try:
            st = os.statvfs(path)
        except OSError as exc:
            raise wrap_oserror(exc, path) from exc
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
        import shutil  # here: it loads zlib, bz2 and lzma, which most commands never need

        return shutil.which(tool) is not None

    def run(self, argv: Sequence[str], timeout: float = DEFAULT_TIMEOUT) -> CommandResult:
        # subprocess, imported here (~4 ms): the sh library this used before cost ~45 ms
        # of CPU to import (asyncio with it), paid by every command that runs one
        import subprocess

        args = list(argv)
        try:
            proc = subprocess.Popen(
                args,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                # a session of its own: a timeout kills the command's whole group (a hung
                # zpool's children too), and the terminal's ^C reaches tierdeck alone
                start_new_session=True,
                env={**os.environ, "LC_ALL": "C"},  # parsers read the C locale's numbers
            )
        except (FileNotFoundError, PermissionError) as exc:  # no executable one on PATH
            raise ToolMissing(args[0]) from exc
        except OSError as exc:
            raise HostError(f"{' '.join(args)}: {exc}") from exc
        timed_out = threading.Event()

        def expire() -> None:
            timed_out.set()
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)

        # A watchdog thread kills the command's group at the timeout; it costs nothing
        # when not needed (sh's own timeout polled: ~65 ms on every command).
        watchdog = threading.Timer(timeout, expire)
        watchdog.daemon = True
        watchdog.start()
        try:
            stdout, stderr = _output_until_exit(proc)
        finally:
            watchdog.cancel()
        if timed_out.is_set():
            raise ToolTimeout(args, timeout)
        # every exit status is the caller's to judge; a signal (negative) is an error
        if proc.returncode < 0:
            try:
                name = signal.Signals(-proc.returncode).name
            except ValueError:  # a real-time signal has no name of its own
                name = f"signal {-proc.returncode}"
            raise HostError(f"{' '.join(args)}: killed by {name}")
        return CommandResult(
            argv=tuple(args),
            returncode=proc.returncode,
            stdout=_decode(stdout),
            stderr=_decode(stderr),
        )

    async def spawn(self, argv: Sequence[str], env: Mapping[str, str] | None = None) -> HostProcess:
        from .. import processes

        return await processes.spawn(argv, env)

    def signal_group(self, pgid: int, sig: int) -> bool:
        from .. import processes

        return processes.signal_group(pgid, sig)

    def group_alive(self, pgid: int) -> bool:
        from .. import processes

        return processes.group_alive(pgid)

    def write_text(self, path: str, text: str) -> None:
        try:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as exc:
            raise wrap_oserror(exc, path) from exc

    def remove(self, path: str) -> bool:
        try:
            os.unlink(path)
        except FileNotFoundError:
            return False
        return True

    def write_atomically(self, path: str, text: str) -> None:
        from ..localfiles import write_atomically

        try:
            write_atomically(Path(path), text)
        except OSError as exc:
            raise wrap_oserror(exc, path) from exc

    def make_dirs(self, path: str) -> None:
        try:
            os.makedirs(path, mode=0o755, exist_ok=True)
        except OSError as exc:
            raise wrap_oserror(exc, path) from exc

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
            raise wrap_oserror(exc, path) from exc

    def probe_write(self, directory: str, name: str, *, direct: bool) -> OSError | None:
        from ..probes import probe_write

        return probe_write(directory, name, direct=direct)

    def scan_branch(self, branch: str) -> BranchScan:
        from ..mover.scan import scan_branch

        try:
            return scan_branch(branch)
        except PermissionError as exc:
            raise PermissionDenied(branch) from exc
        except OSError as exc:
            raise HostError(f"{branch}: {exc.strerror or exc}") from exc

    def open_files(self) -> OpenFiles:
        from ..mover.scan import open_files

        return open_files()

    def mount_users(self, mountpoint: str) -> MountUsers:
        from ..mount_users import mount_users

        return mount_users(mountpoint)

    def file_mover(self, journal_dir: str, *, verify: bool) -> FileMover:
        from ..mover.engine import LocalFileMover

        return LocalFileMover(journal_dir, verify=verify)

    def exclusive(self, key: str) -> AbstractContextManager[None]:
        from .. import locks

        return locks.exclusive(key)


def _output_until_exit(proc: Any) -> tuple[bytes, bytes]:
    """A command's stdout and stderr, read until it exits, not until the pipes close: a
    daemon it starts (a FUSE filesystem mount starts) may keep them open as long as it
    runs. Read in
    large blocks as they come, never a Python step per line (3 MB of smartctl JSON from
    a 240-disk NAS: 0.02 s of CPU); what is left in the pipes once the command has
    exited is read without waiting."""
    import selectors

    out_fd, err_fd = proc.stdout.fileno(), proc.stderr.fileno()
    chunks: dict[int, list[bytes]] = {out_fd: [], err_fd: []}
    # the exit as an event the selector sees: a thread waits for it and closes a pipe
    exit_read, exit_write = os.pipe()

    def wait_exit() -> None:
        proc.wait()
        os.close(exit_write)

    waiter = threading.Thread(target=wait_exit, daemon=True)
    try:
        with selectors.DefaultSelector() as selector:
            for fd in chunks:
                os.set_blocking(fd, False)
                selector.register(fd, selectors.EVENT_READ)
            selector.register(exit_read, selectors.EVENT_READ)
            waiter.start()
            exited = False
            while not exited:
                for key, _ in selector.select():
                    if key.fd == exit_read:
                        exited = True
                    elif not _read_ready(key.fd, chunks[key.fd]):
                        selector.unregister(key.fd)
        waiter.join()
        for fd, parts in chunks.items():
            _read_ready(fd, parts)
    finally:
        os.close(exit_read)
        proc.stdout.close()
        proc.stderr.close()
    return b"".join(chunks[out_fd]), b"".join(chunks[err_fd])


def _read_ready(fd: int, parts: list[bytes]) -> bool:
    """Append what ``fd`` holds now, without waiting; False once it is closed."""
    while True:
        try:
            block = os.read(fd, 65536)
        except BlockingIOError:
            return True
        if not block:
            return False
        parts.append(block)


def _decode(data: bytes | str | None) -> str:
    if data is None:
        return ""
    if isinstance(data, bytes):
        return data.decode("utf-8", errors="replace")
    return data
