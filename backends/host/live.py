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

# Every exit status is the caller's to judge; a signal (negative) stays an error.
_ANY_EXIT = list(range(256))


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
                # sh reads by lines unless told otherwise, a Python step per line: 3 MB
                # of smartctl JSON from a 240-disk NAS cost ~2 s of CPU; in 64 KiB
                # blocks, 0.02 s. The output is used whole, once the command ends.
                _out_bufsize=65536,
                _err_bufsize=65536,
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


def _decode(data: bytes | str | None) -> str:
    if data is None:
        return ""
    if isinstance(data, bytes):
        return data.decode("utf-8", errors="replace")
    return data
