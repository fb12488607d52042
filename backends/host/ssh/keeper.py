"""The keeper: a small background process holding one authenticated SSH connection to a
host for later commands, as OpenSSH's ControlMaster with ControlPersist does.

    python -m tierdeck.backends.host.ssh.keeper TARGET SOCKET IDLE_S

Started by the first command that wants it (``kept.start_keeper``): it forks away from
that command, connects with ``SshLink`` (ssh's config, keys, agent and known_hosts, no
prompt: a host that wants a password or passphrase gets no keeper, and an empty marker
beside the socket says so for a while; nothing secret is ever written), listens on
SOCKET (0600 in a 0700 folder) and says "ready" on its stdout. It serves one kind of request, a plain command run (``kept.py``), to peers of
the same uid only (SO_PEERCRED). It ends when idle for IDLE_S seconds ("inf": never),
when its connection drops (it never reconnects: the next command connects itself and
starts a new keeper), on SIGTERM/SIGHUP, or when asked (``tierdeck fleet keepers
--stop``); its socket goes with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import math
import os
import signal
import socket
import struct
import sys
import time
from pathlib import Path
from typing import Any

from ....core.errors import HostError, HostNotAnswering, SecretNeeded
from .kept import NEEDS_LOGIN_SUFFIX, UNREACHABLE
from .link import SshLink
from .target import SshTarget

_PEERCRED = struct.Struct("3i")  # struct ucred: pid, uid, gid


def _say(word: str) -> None:
    """One line to the command that started us, then stdout is let go (its pipe closed
    for good: that command reads until it ends)."""
    with contextlib.suppress(OSError):
        os.write(1, word.encode() + b"\n")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)


def peer_uid(sock: socket.socket) -> int:
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _PEERCRED.size)
    return int(_PEERCRED.unpack(creds)[1])


class Keeper:
    def __init__(self, link: SshLink, path: Path, idle_limit: float) -> None:
        self.link = link
        self.path = path
        self.idle_limit = idle_limit
        self.started = time.time()
        self.last_used = time.monotonic()
        self.active = 0
        self.requests = 0
        self.stopping = asyncio.Event()

    async def _on_link(self, coro: Any) -> Any:
        return await asyncio.wrap_future(self.link.submit(coro))

    async def serve(self) -> None:
        conn = await self._on_link(self.link.connection())
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()  # a dead keeper's (we hold the lock: no live one owns it)
        umask = os.umask(0o177)
        try:
            server = await asyncio.start_unix_server(self._handle, path=os.fspath(self.path))
        finally:
            os.umask(umask)
        os.chmod(self.path, 0o600)
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            loop.add_signal_handler(sig, self.stopping.set)
        watch = asyncio.ensure_future(self._on_link(conn.wait_closed()))
        watch.add_done_callback(lambda _: self.stopping.set())
        _say("ready")
        try:
            await self._until_idle()
        finally:
            server.close()
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
            watch.cancel()

    async def _until_idle(self) -> None:
        while not self.stopping.is_set():
            left = self.idle_limit - (time.monotonic() - self.last_used)
            if self.active == 0 and left <= 0:
                return
            wait = None if math.isinf(left) else max(left, 1.0)  # inf: no idle limit
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stopping.wait(), wait)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            if peer_uid(writer.get_extra_info("socket")) != os.geteuid():
                return  # another user's process: not a byte for it
            header = json.loads(await reader.readline())
            if not isinstance(header, dict):
                return
            await self._answer(header, reader, writer)
            await writer.drain()
        except (OSError, ValueError, asyncio.IncompleteReadError):
            pass  # the asker went away (its command ended or was killed)
        finally:
            writer.close()

    def _reply(self, writer: asyncio.StreamWriter, header: dict[str, Any], *blobs: bytes) -> None:
        writer.write(json.dumps(header).encode() + b"\n" + b"".join(blobs))

    async def _answer(self, header: dict[str, Any], reader: asyncio.StreamReader,
                      writer: asyncio.StreamWriter) -> None:  # fmt: skip
        op = header.get("op")
        if op == "info":
            limit = None if math.isinf(self.idle_limit) else self.idle_limit
            self._reply(writer, {"state": "ok", "target": str(self.link.target), "pid": os.getpid(),
                                 "idle_limit": limit, "started": self.started,
                                 "idle": time.monotonic() - self.last_used,
                                 "requests": self.requests})  # fmt: skip
        elif op == "stop":
            self._reply(writer, {"state": "ok"})
            self.stopping.set()
        elif op == "run":
            await self._run(header, reader, writer)

    async def _run(self, header: dict[str, Any], reader: asyncio.StreamReader,
                   writer: asyncio.StreamWriter) -> None:  # fmt: skip
        size = header.get("stdin")
        stdin = await reader.readexactly(int(size)) if size is not None else None
        conn = self.link._conn
        if self.stopping.is_set() or conn is None or conn.is_closed():
            self._reply(writer, {"state": "down"})  # not run: the asker connects itself
            return
        timeout = header.get("timeout")
        self.active += 1
        try:
            result = await self._on_link(self.link.shell_async(
                str(header["body"]), stdin=stdin,
                timeout=None if timeout is None else float(timeout)))  # fmt: skip
        except HostError as exc:
            self._reply(writer, {"state": "lost", "reason": str(exc)})
            return
        finally:
            self.active -= 1
            self.requests += 1
            self.last_used = time.monotonic()
        self._reply(writer, {"state": "ok", "status": result.returncode, "signal": result.signal,
                             "out": len(result.stdout), "err": len(result.stderr)},
                    result.stdout, result.stderr)  # fmt: skip


def main(argv: list[str]) -> int:
    target, socket_path, idle = argv
    if os.fork() != 0:
        os._exit(0)  # the starter returns at once; we live on, reparented, no terminal
    os.chdir("/")
    path = Path(socket_path)
    # one keeper a socket: held for our life, let go by the kernel when we end
    lock = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        _say("busy")  # another keeper of this target is starting or serving
        return 0
    link = SshLink(SshTarget.parse(target), prompt=None)
    try:
        link.connect()
    except (HostError, OSError, TimeoutError) as exc:
        if isinstance(exc, SecretNeeded):
            # that a login needs someone to type (never what): no keeper is tried
            # for this host a while, each command logs in itself at once
            Path(f"{path}{NEEDS_LOGIN_SUFFIX}").touch(mode=0o600)
        if isinstance(exc, HostNotAnswering):
            # the command that started us says this itself, instead of waiting out
            # a second connection to a host that did not answer the first
            _say(f"{UNREACHABLE} {' '.join(exc.reason.split())}")
        else:
            _say(f"failed {type(exc).__name__}")
        link.close()
        return 1
    try:
        asyncio.run(Keeper(link, path, float(idle)).serve())
    finally:
        link.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
