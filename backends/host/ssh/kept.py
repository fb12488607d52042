"""The thin client of a keeper (``keeper.py``): a plain remote command sent over the
keeper's unix socket, run on the connection it holds. Imports no asyncssh: a command
whose host has a keeper pays neither that import nor a key exchange nor a login shell.

Only what ``SshHost`` runs as one request (a shell line, its input, timeout, output and
exit status) goes this way; spawns, writes and locks keep their own connection.
``shell`` returns None when the keeper is gone or its connection is down before the
request ran: the caller then connects itself, silently. A keeper lost while running a
request is a lost connection (``HostUnreachable``), as it would be on a direct one: a
command is never sent twice; a read (``again_safe``) is read again on the caller's
own connection.

One request a socket connection, each a JSON header line then raw bytes (sizes in the
header), both ways.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import select
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ....core.errors import HostNotAnswering, HostUnreachable
from . import persist
from .result import RemoteResult

CONNECT_S = 2.0  # a keeper answers its socket at once, or it is not there
ANSWER_GRACE_S = 15.0  # beyond a request's own timeout, as the direct link allows
START_TIMEOUT_S = 30.0  # a keeper's start: Python, asyncssh, the connection, the login
KEEPER_MODULE = "tierdeck.backends.host.ssh.keeper"
# beside a socket: its keeper could not log in without someone typing (a password, a
# passphrase); no keeper is started for that host for NEEDS_LOGIN_S after it
NEEDS_LOGIN_SUFFIX = ".login"
UNREACHABLE = "unreachable"  # a starting keeper's word: no server answered it (and why)
NEEDS_LOGIN_S = 3600.0


def send(stream: io.BufferedIOBase, header: dict[str, Any], *blobs: bytes) -> None:
    stream.write(json.dumps(header).encode() + b"\n")
    for blob in blobs:
        stream.write(blob)
    stream.flush()


def _receive(stream: io.BufferedIOBase) -> dict[str, Any] | None:
    line = stream.readline()
    if not line.endswith(b"\n"):
        return None
    header = json.loads(line)
    return header if isinstance(header, dict) else None


def _exactly(stream: io.BufferedIOBase, size: int) -> bytes:
    data = stream.read(size)
    if len(data) != size:
        raise EOFError
    return data


@dataclass
class KeptLink:
    """Requests to the keeper of ``target`` listening at ``path``."""

    target: str
    path: Path
    round_trips: int = 0

    def _connect(self, timeout: float | None) -> socket.socket | None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(CONNECT_S)
        try:
            sock.connect(os.fspath(self.path))
        except OSError:  # no keeper (ENOENT, ECONNREFUSED: a stale socket)
            sock.close()
            return None
        sock.settimeout(timeout)
        return sock

    def ask(self, header: dict[str, Any], *blobs: bytes,
            timeout: float | None = CONNECT_S) -> dict[str, Any] | None:  # fmt: skip
        """One exchange with no payload back (info, stop); None: no keeper there."""
        sock = self._connect(timeout)
        if sock is None:
            return None
        with sock, sock.makefile("rwb") as stream:
            try:
                send(stream, header, *blobs)
                return _receive(stream)
            except (OSError, ValueError):
                return None

    def shell(self, body: str, *, stdin: bytes | None = None, timeout: float | None = None,
              again_safe: bool = False) -> RemoteResult | None:  # fmt: skip
        """The line's result; None when it was not run (no keeper, or its connection
        down), or when it may have been and ``again_safe`` says running it again is
        harmless (a read): the caller then runs it on its own connection."""
        wait = None if timeout is None else timeout + ANSWER_GRACE_S
        sock = self._connect(wait)
        if sock is None:
            return None
        data = stdin if stdin is not None else b""
        out = err = b""
        header = {"op": "run", "body": body, "timeout": timeout,
                  "stdin": len(data) if stdin is not None else None}  # fmt: skip
        with sock, sock.makefile("rwb") as stream:
            try:
                send(stream, header, data)
                answer = _receive(stream)
                if answer is not None and answer.get("state") == "ok":
                    out = _exactly(stream, int(answer["out"]))
                    err = _exactly(stream, int(answer["err"]))
            except TimeoutError:
                raise
            except (OSError, ValueError, EOFError) as exc:
                if again_safe:
                    return None
                raise HostUnreachable(self.target, f"the kept connection was lost: {exc}") from exc
        if answer is not None and answer.get("state") == "down":
            return None  # nothing ran: the caller connects itself
        if answer is None or answer.get("state") != "ok":
            # lost while it ran (a NAS rebooted under the keeper): a read is read again
            # on the caller's connection; a command is not run twice
            if again_safe:
                return None
            reason = "connection lost" if answer is None else answer.get("reason")
            raise HostUnreachable(self.target, f"the kept connection was lost: {reason}")
        self.round_trips += 1
        signal = answer.get("signal")
        status = answer.get("status")
        return RemoteResult(status if isinstance(status, int) else None, out, err,
                            signal if isinstance(signal, str) else None)  # fmt: skip


def open_kept(target: str, idle_s: float) -> KeptLink | None:
    """The keeper of ``target``, started now when there is none (this waits for its
    connection); None when it cannot be had: then the caller connects itself, and its
    errors (a refused host key, a password to ask) are said as always."""
    path = persist.socket_path(target, create=True)
    if path is None:
        return None
    kept = KeptLink(target, path)
    probe = kept._connect(CONNECT_S)
    if probe is not None:
        probe.close()
        return kept
    with contextlib.suppress(OSError):
        if time.time() - os.stat(f"{path}{NEEDS_LOGIN_SUFFIX}").st_mtime < NEEDS_LOGIN_S:
            return None  # its keeper wanted a password lately: no keeper for it now
    said = start_keeper(target, path, idle_s)
    if said.startswith(UNREACHABLE + " "):
        # no server answered the keeper: a connection of our own would wait as long
        # for the same answer, so it is said now
        raise HostNotAnswering(target, said.removeprefix(UNREACHABLE + " "))
    if said not in ("ready", "busy"):
        return None
    return kept


def start_keeper(target: str, path: Path, idle_s: float) -> str:
    """Start the keeper of ``target`` in the background (a session of its own, detached
    from this terminal) and wait until it says it is connected and listening: what it
    said, "ready" or "busy" (another keeper of the target is there or on its way), else
    why not ("" when it said nothing in time)."""
    idle = "inf" if math.isinf(idle_s) else f"{idle_s:g}"
    argv = [sys.executable, "-m", KEEPER_MODULE, target, os.fspath(path), idle]
    try:
        starter = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, start_new_session=True)  # fmt: skip
    except OSError:
        return ""
    assert starter.stdout is not None
    with starter.stdout as said:
        # the starter forks the keeper and exits at once; the keeper holds the pipe
        # and writes one line when it listens (or why it could not)
        deadline = time.monotonic() + START_TIMEOUT_S
        line = b""
        while not line.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([said], [], [], left)[0]:
                break
            chunk = os.read(said.fileno(), 256)
            if not chunk:
                break
            line += chunk
    with contextlib.suppress(subprocess.TimeoutExpired):
        starter.wait(5)
    return line.decode(errors="replace").strip() if line.endswith(b"\n") else ""


@dataclass(frozen=True)
class KeeperInfo:
    target: str
    pid: int
    idle_limit_s: float | None  # None: no limit
    idle_s: float
    started: float  # epoch seconds
    requests: int
    socket: str


def keepers() -> list[KeeperInfo]:
    """Every live keeper of this user (a stale socket found is removed)."""
    folder = persist.private_folder(create=False)
    if folder is None:
        return []
    found = []
    for path in sorted(folder.glob("*" + persist.SOCKET_SUFFIX)):
        answer = KeptLink("", path).ask({"op": "info"})
        if answer is None:
            with contextlib.suppress(OSError):
                path.unlink()
            continue
        limit = answer.get("idle_limit")
        found.append(KeeperInfo(str(answer.get("target", "?")), int(answer.get("pid", 0)),
                                None if limit is None else float(limit),
                                float(answer.get("idle", 0.0)), float(answer.get("started", 0.0)),
                                int(answer.get("requests", 0)), os.fspath(path)))  # fmt: skip
    return found


def stop_keeper(info: KeeperInfo) -> bool:
    """Ask one keeper to close its connection and exit; True when it said it would."""
    answer = KeptLink(info.target, Path(info.socket)).ask({"op": "stop"})
    return answer is not None and answer.get("state") == "ok"
