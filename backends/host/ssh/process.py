"""A command started on a remote host (fio), seen from the caller's event loop.

The SSH channel lives on the link's loop (its own thread); the benchmark runner reads
the output on its own loop. Output is handed across as it arrives into
``asyncio.StreamReader``s of the caller's loop, so the runner reads a remote fio exactly
as it reads a local one (``HostProcess``).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

# isort: off
from . import asyncssh_import  # noqa: F401 - first: asyncssh's import, quicker (see there)
import asyncssh

# isort: on

from ....core.errors import HostUnreachable
from . import remote_sh
from .link import SshLink

# Stands for "the connection was lost": the remote watcher stops the command then.
LOST = -1


class RemoteProcess:
    """``HostProcess`` of a command on a remote host. ``pid`` is its process group on
    the host; ``lost`` says why the connection ended, when it did before the command."""

    def __init__(self, link: SshLink, caller: asyncio.AbstractEventLoop) -> None:
        self._link = link
        self._caller = caller
        self.pid = 0
        self.returncode: int | None = None
        self.lost: str | None = None
        self.stdout: asyncio.StreamReader | None = asyncio.StreamReader()
        self.stderr: asyncio.StreamReader | None = asyncio.StreamReader()
        self._exited: asyncio.Future[int] = caller.create_future()
        self._channel: Any = None

    # -- on the link's loop ---------------------------------------------------------

    async def start(self, command: str) -> None:
        conn = await self._link.connection()
        self._link.round_trips += 1
        try:
            self._channel = await conn.create_process(command, encoding=None)
        except (asyncssh.Error, OSError) as exc:
            raise OSError(f"{self._link.target}: cannot start: {exc}") from exc
        first = await self._channel.stdout.readline()
        try:
            self.pid = int(first.strip())
        except ValueError as exc:
            self._channel.close()
            raise OSError(f"{self._link.target}: the command did not start") from exc
        asyncio.get_running_loop().create_task(self._pump())

    async def _pump(self) -> None:
        channel = self._channel
        assert self.stdout is not None and self.stderr is not None

        async def copy(source: Any, into: asyncio.StreamReader) -> None:
            with contextlib.suppress(asyncssh.Error, OSError):
                while chunk := await source.read(65536):
                    self._caller.call_soon_threadsafe(into.feed_data, chunk)

        code = LOST
        try:
            await asyncio.gather(copy(channel.stdout, self.stdout),
                                 copy(channel.stderr, self.stderr))  # fmt: skip
            completed = await channel.wait(check=False)
            code = _exit_code(completed.exit_status, completed.exit_signal)
        except (asyncssh.Error, OSError) as exc:
            self.lost = f"the connection to {self._link.target} was lost ({exc})"
        finally:
            # Also when the link is closed under it (its tasks cancelled): the caller
            # reading the output is told, never left waiting for an end.
            if code == LOST and self.lost is None:
                self.lost = f"the connection to {self._link.target} was lost"
            with contextlib.suppress(RuntimeError):  # the caller's loop is gone already
                self._caller.call_soon_threadsafe(self._finish, code)

    # -- on the caller's loop -------------------------------------------------------

    def _finish(self, code: int) -> None:
        assert self.stdout is not None and self.stderr is not None
        self.stdout.feed_eof()
        self.stderr.feed_eof()
        self.returncode = code
        if not self._exited.done():
            self._exited.set_result(code)

    async def wait(self) -> int:
        code = await asyncio.shield(self._exited)
        if self.lost is not None:
            raise HostUnreachable(str(self._link.target), self.lost)
        return code


def _exit_code(status: int | None, exit_signal: Any) -> int:
    if exit_signal:
        import signal

        name = str(exit_signal[0])
        try:
            return -int(signal.Signals[f"SIG{name}"])
        except KeyError:
            return -int(signal.SIGKILL)
    if status is None or status < 0:
        return LOST
    if status > 128 and status - 128 < 65:  # the shell's way to say "killed by N"
        return -(status - 128)
    return status


async def spawn_remote(
    link: SshLink, argv: list[str], env: dict[str, str] | None, *, kill_after: int | None = 5
) -> RemoteProcess:
    """Start argv on the host; the process once its pid is known. A lost link stops it
    with TERM, and KILL ``kill_after`` s later (None: TERM alone)."""
    caller = asyncio.get_running_loop()
    process = RemoteProcess(link, caller)
    line = remote_sh.spawn_line(argv, env, kill_after=kill_after)
    command = "exec sh -c " + remote_sh.q(line)
    await asyncio.wrap_future(link.submit(process.start(command)))
    return process
