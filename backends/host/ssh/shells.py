"""Kept shells on a remote host: a request is a few lines written to one, not a new
SSH session.

Each new session costs the host a fork of sshd and a start of the user's login shell
(bash reads ~/.bashrc even for ``ssh host cmd``): 100-300 ms on a loaded machine, for
every file an inventory reads. A kept ``sh`` per channel costs that once; a request is
then one write and one read on the channel. The body of a request runs in a subshell
(an ``exit`` ends only it) with stdin from /dev/null, and its end is marked on stdout
and stderr with a random line it cannot guess; data for its stdin travels base64 in a
here-document, byte for byte.

A few shells run side by side (the inventory's sources run their commands in threads);
a request that outlives its timeout takes its shell with it (what it would still print
could be read as the next answer).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import secrets
from typing import Any

import asyncssh

from ....core.errors import HostUnreachable

MAX_SHELLS = 4
PATIENCE_S = 0.05  # how long a request waits for a busy shell before opening another


class ShellTimeout(TimeoutError):
    """A request did not end within its timeout (its shell was closed)."""


class _Shell:
    def __init__(self, process: Any) -> None:
        self.process = process

    async def request(
        self, body: str, stdin: bytes | None, timeout: float | None
    ) -> tuple[int, bytes, bytes]:
        marker = secrets.token_hex(16)
        if stdin is not None:
            data = base64.encodebytes(stdin).decode("ascii")
            # the here-document's data follows the line that names it: the body is a
            # function defined before it
            body = f"__b() {{ {body}\n}}\nbase64 -d <<'{marker}' | __b\n{data}{marker}\n"
        script = (
            f"( {body}\n) </dev/null; __s=$?; "
            f"printf '\\n{marker} %s\\n' \"$__s\"; printf '\\n{marker}\\n' >&2\n"
        )
        self.process.stdin.write(script.encode())

        async def answer() -> tuple[int, bytes, bytes]:
            out = await self.process.stdout.readuntil(f"\n{marker} ".encode())
            status = await self.process.stdout.readline()
            err = await self.process.stderr.readuntil(f"\n{marker}\n".encode())
            return (
                int(status.strip() or 1),
                out[: -len(marker) - 2],
                err[: -len(marker) - 2],
            )

        return await asyncio.wait_for(answer(), timeout)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.process.close()


class ShellPool:
    """Up to MAX_SHELLS kept shells on one connection, made as they are needed."""

    def __init__(self) -> None:
        self._idle: list[_Shell] = []
        self._count = 0
        self._freed: asyncio.Condition | None = None

    async def _take(self, conn: asyncssh.SSHClientConnection) -> _Shell:
        if self._freed is None:
            self._freed = asyncio.Condition()
        async with self._freed:
            if not self._idle and 0 < self._count < MAX_SHELLS:
                # a busy shell is usually free again within milliseconds; a new one costs
                # the host a session and a login shell (tens to hundreds of ms)
                with contextlib.suppress(TimeoutError, asyncio.TimeoutError):
                    await asyncio.wait_for(self._freed.wait(), PATIENCE_S)
            while not self._idle and self._count >= MAX_SHELLS:
                await self._freed.wait()
            if self._idle:
                return self._idle.pop()
            self._count += 1
        try:
            process = await conn.create_process("exec sh", encoding=None)
        except BaseException:
            async with self._freed:
                self._count -= 1
                self._freed.notify()
            raise
        return _Shell(process)

    async def _give_back(self, shell: _Shell, *, usable: bool) -> None:
        assert self._freed is not None
        async with self._freed:
            if usable:
                self._idle.append(shell)
            else:
                shell.close()
                self._count -= 1
            self._freed.notify()

    async def request(
        self, conn: asyncssh.SSHClientConnection, target: str, body: str,
        stdin: bytes | None, timeout: float | None,
    ) -> tuple[int, bytes, bytes]:  # fmt: skip
        shell = await self._take(conn)
        usable = False
        try:
            answer = await shell.request(body, stdin, timeout)
            usable = True
            return answer
        except TimeoutError as exc:
            raise ShellTimeout(f"{target}: no answer within {timeout:g} s") from exc
        except (asyncssh.Error, asyncio.IncompleteReadError, BrokenPipeError, OSError) as exc:
            raise HostUnreachable(target, f"connection lost: {exc}") from exc
        finally:
            await self._give_back(shell, usable=usable)

    async def warm(self, conn: asyncssh.SSHClientConnection, count: int) -> None:
        """Open ``count`` shells side by side now (each costs the host a session
        start): the first requests in parallel then find them ready."""
        shells = await asyncio.gather(*(self._take(conn) for _ in range(count)),
                                      return_exceptions=True)  # fmt: skip
        for shell in shells:
            if isinstance(shell, _Shell):
                await self._give_back(shell, usable=True)

    def forget(self) -> None:
        """The connection is gone: so are its shells."""
        for shell in self._idle:
            shell.close()
        self._idle.clear()
        self._count = 0
