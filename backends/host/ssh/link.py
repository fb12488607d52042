"""One SSH connection to a remote host, kept open and shared by every call.

asyncssh is asyncio-only and the host seam is mostly synchronous (the inventory reads
from worker threads), so the connection lives on an event loop of its own, in a daemon
thread; synchronous callers hand it coroutines and wait. Each command is a channel of
the one connection: no new TCP or key exchange per call.

Authentication is ssh's own (asyncssh reads ~/.ssh/config, the agent, the keys and
~/.ssh/known_hosts as OpenSSH does). A host key that is unknown or changed refuses the
connection before anything is sent (``HostKeyRefused``). A password or passphrase is
asked of ``prompt`` when one is needed and kept in this object's memory only.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import os
import threading
import time
from collections.abc import Awaitable
from concurrent.futures import CancelledError, Future
from typing import Any, TypeVar

# isort: off
from . import asyncssh_import  # noqa: F401 - first: asyncssh's import, quicker (see there)
import asyncssh

# isort: on

from ....core.errors import HostKeyRefused, HostNotAnswering, HostUnreachable, SecretNeeded
from .result import Prompt, RemoteResult
from .shells import ShellPool, ShellTimeout
from .ssh_config import connect_timeout as ssh_connect_timeout
from .target import SshTarget

T = TypeVar("T")
__all__ = ["Prompt", "RemoteResult", "SshLink"]

# A link that stops answering is found out within ~30 s even when nothing is sent.
KEEPALIVE_INTERVAL = 10.0
KEEPALIVE_COUNT_MAX = 3
WARM_SHELLS = 1
PROMPT_POLL_S = 0.2  # a call waiting while a prompt is open looks again this often


class _Client(asyncssh.SSHClient):
    """Asks for a password or a key's passphrase only when the server wants one."""

    def __init__(self, link: SshLink) -> None:
        self._link = link
        # questions answered on this connection: one asked again was refused, and its
        # answer is not sent again (asyncssh would resend it until the server's
        # MaxAuthTries, each a failed login on the host: fail2ban's count, a lockout)
        self._answered: set[str] = set()

    def _answer(self, question: str) -> str | None:
        if question in self._answered:
            return None
        self._answered.add(question)
        return self._link._ask(question, "a password")

    def password_auth_requested(self) -> str | None:
        return self._answer(f"Password for {self._link.target}: ")

    def kbdint_auth_requested(self) -> str:
        return ""  # answer its questions one by one below

    def kbdint_challenge_received(
        self, name: str, instructions: str, lang: str, prompts: Any
    ) -> list[str] | None:
        answers = []
        for text, _echo in prompts:
            answer = self._answer(text or f"Password for {self._link.target}: ")
            if answer is None:
                return None
            answers.append(answer)
        return answers


class SshLink:
    """The connection to one target. ``round_trips`` counts the requests sent."""

    def __init__(
        self,
        target: SshTarget,
        *,
        prompt: Prompt | None = None,
        connect_timeout: float | None = None,
        warm_shells: int = WARM_SHELLS,
    ) -> None:
        """``warm_shells``: the shells opened with the connection, each a session (and
        a login shell) on the host; more are opened as requests run side by side."""
        self.target = target
        self._warm_shells = warm_shells
        self.round_trips = 0
        self._prompt = prompt
        # ssh's ConnectTimeout for the host (~/.ssh/config) when not given, else 10 s
        self._connect_timeout = (
            connect_timeout if connect_timeout is not None else ssh_connect_timeout(target.host)
        )
        self._secrets: dict[str, str] = {}  # the question asked -> its answer, in memory
        # a secret the login wanted while there was no one to ask (said by SecretNeeded)
        self._secret_wanted: str | None = None
        self._secret_given: str | None = None  # ... and one that was given (asked)
        self._asking = False  # a prompt is open
        self._asked_seconds = 0.0  # time spent in prompts, all told
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._conn: asyncssh.SSHClientConnection | None = None
        self._connecting: asyncio.Lock | None = None
        self._start_lock = threading.Lock()
        self._closed = False
        # whether known_hosts held keys for the host asked last: a refused key is then
        # "changed", else "unknown" (told by the check itself, not by message text)
        self._host_was_known = False
        self._shells = ShellPool()

    # ------------------------------------------------------------------ the loop

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._start_lock:
            if self._closed:
                # A closed link stays closed: a worker still reading through it (the
                # dashboard of a host left) ends now instead of connecting again.
                raise HostUnreachable(str(self.target), "the connection was closed")
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(
                    target=loop.run_forever, name=f"ssh {self.target}", daemon=True
                )
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    def submit(self, coro: Awaitable[T]) -> Future[T]:
        """Run ``coro`` on the link's loop; a concurrent Future of its result."""
        try:
            loop = self._ensure_loop()
        except HostUnreachable:
            if inspect.iscoroutine(coro):
                coro.close()  # never to run: said as such, not as "never awaited"
            raise
        return asyncio.run_coroutine_threadsafe(coro, loop)  # type: ignore[arg-type]

    def call(self, coro: Awaitable[T], timeout: float | None = None) -> T:
        """Run ``coro`` on the link's loop and wait for it (from any thread but that one).
        ``timeout`` does not count the time someone takes to answer a password prompt
        meanwhile; a link closed under the call ends it with ``HostUnreachable``."""
        future = self.submit(coro)
        if timeout is None:
            try:
                return future.result()
            except CancelledError:
                raise HostUnreachable(str(self.target), "the connection was closed") from None
        asked_before, deadline = self._asked_seconds, time.monotonic() + timeout
        while True:
            # a prompt open (or answered) meanwhile moves the deadline by its time
            left = deadline + (self._asked_seconds - asked_before) - time.monotonic()
            try:
                return future.result(PROMPT_POLL_S if self._asking else max(left, 0.0))
            except TimeoutError:
                if self._asking or left > 0:
                    continue
                future.cancel()
                raise
            except CancelledError:
                raise HostUnreachable(str(self.target), "the connection was closed") from None

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        return self._ensure_loop()

    def close(self) -> None:
        """End the connection and the loop, for good: later calls raise HostUnreachable."""
        with self._start_lock:
            self._closed = True
        loop = self._loop
        if loop is None:
            return
        conn, self._conn = self._conn, None

        async def _close() -> None:
            if conn is not None:
                conn.close()
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(conn.wait_closed(), 5)
            # Calls still waiting on the loop end now (HostUnreachable), not at their
            # timeout: every other task is cancelled, and its caller told.
            others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in others:
                task.cancel()
            await asyncio.gather(*others, return_exceptions=True)

        with contextlib.suppress(Exception):  # closing a broken link: nothing to keep
            asyncio.run_coroutine_threadsafe(_close(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(timeout=5)
        loop.close()
        self._loop = self._thread = None

    # ------------------------------------------------------------------ connecting

    def _ask(self, question: str, what: str) -> str | None:
        """The answer to ``question``: kept from before, or asked. ``what`` names the
        secret when there is no one to ask (``SecretNeeded``)."""
        if question in self._secrets:
            return self._secrets[question]
        if self._prompt is None:
            self._secret_wanted = what
            return None
        # Someone types (the link's loop waits, or asyncssh's executor thread): that
        # time is not counted against the link's timeouts (``call``, ``_connect_within``).
        self._asking = True
        started = time.monotonic()
        try:
            answer = self._prompt(question)
        finally:
            self._asked_seconds += time.monotonic() - started
            self._asking = False
        if answer is not None:
            self._secrets[question] = answer
            self._secret_given = what
        return answer

    def _known_hosts(self, host: str, addr: str, port: int) -> Any:
        """ssh's own ~/.ssh/known_hosts, remembering whether it knew this host at all:
        a refusal then says "unknown" or "changed" without guessing from text."""
        path = os.path.expanduser("~/.ssh/known_hosts")
        try:
            known = asyncssh.read_known_hosts(path)
        except (OSError, ValueError):
            return ([], [], [])
        trusted, *rest = known.match(host, addr, port)
        self._host_was_known = bool(trusted)
        return (trusted, *rest)

    async def connection(self) -> asyncssh.SSHClientConnection:
        """The open connection, made on first use and again after it was lost."""
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:
            if self._conn is not None and not self._conn.is_closed():
                return self._conn
            self._shells.forget()
            self._conn = await self._connect()
            # the inventory's readers and its command-running sources ask side by side
            await self._shells.warm(self._conn, self._warm_shells)
            return self._conn

    async def _connect(self) -> asyncssh.SSHClientConnection:
        target = self.target
        options: dict[str, Any] = {
            "known_hosts": self._known_hosts,
            "keepalive_interval": KEEPALIVE_INTERVAL,
            "keepalive_count_max": KEEPALIVE_COUNT_MAX,
            "client_factory": lambda: _Client(self),
            # a key's passphrase, asked only when the server accepts that key (asyncssh
            # decrypts it then), as ssh asks it
            "passphrase": self._passphrase,
        }
        if target.user:
            options["username"] = target.user
        if target.port:
            options["port"] = target.port
        self.round_trips += 1
        self._secret_wanted = self._secret_given = None
        try:
            return await self._connect_within(target.host, options)
        except asyncssh.HostKeyNotVerifiable as exc:
            fingerprint = await self._offered_fingerprint()
            raise HostKeyRefused(
                str(target),
                changed=self._host_was_known,
                fingerprint=fingerprint,
                accept_hint=target.ssh_command(),
            ) from exc
        except (asyncssh.PermissionDenied, asyncssh.KeyImportError) as exc:
            self._secrets.clear()  # a wrong answer is asked again, not offered again
            if self._secret_wanted is not None:
                raise SecretNeeded(str(target), self._secret_wanted) from exc
            if isinstance(exc, asyncssh.KeyImportError):
                raise HostUnreachable(str(target), f"cannot read the key: {exc}") from exc
            if self._secret_given is not None:  # asked again at the next try
                raise HostUnreachable(
                    str(target), f"{self._secret_given} was given, and not accepted"
                ) from exc
            raise HostUnreachable(
                str(target),
                "the server refused every key (and password) we offered: check the "
                "user, IdentityFile in ~/.ssh/config, the ssh agent, and the server's "
                "authorized_keys",
            ) from exc
        except asyncssh.KeyEncryptionError as exc:
            self._secrets.clear()
            raise HostUnreachable(str(target), f"cannot unlock the key: {exc}") from exc
        except TimeoutError as exc:
            raise HostNotAnswering(
                str(target), f"no answer within {self._connect_timeout:g} s"
            ) from exc
        except asyncssh.Error as exc:
            raise HostUnreachable(str(target), exc.reason or type(exc).__name__) from exc
        except OSError as exc:  # refused, no route, a name that does not resolve
            raise HostNotAnswering(str(target), exc.strerror or str(exc)) from exc

    async def _connect_within(
        self, host: str, options: dict[str, Any]
    ) -> asyncssh.SSHClientConnection:
        """asyncssh's connect within ``connect_timeout``, the time someone takes to
        type a password or passphrase left out (asyncssh's own connect_timeout counts
        it: a password typed in 11 s would fail)."""
        task = asyncio.ensure_future(asyncssh.connect(host, **options))
        asked_before, started = self._asked_seconds, time.monotonic()
        while True:
            waited = time.monotonic() - started - (self._asked_seconds - asked_before)
            left = PROMPT_POLL_S if self._asking else self._connect_timeout - waited
            if left <= 0:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, asyncssh.Error, OSError):
                    await task
                raise TimeoutError
            done, _ = await asyncio.wait({task}, timeout=left)
            if done:
                return task.result()

    def _passphrase(self, filename: str) -> str | None:
        return self._ask(f"Passphrase for key {filename}: ", f"the passphrase of {filename}")

    async def _offered_fingerprint(self) -> str:
        try:
            options: dict[str, Any] = {}
            if self.target.port:
                options["port"] = self.target.port
            key = await asyncio.wait_for(
                asyncssh.get_server_host_key(self.target.host, **options), self._connect_timeout
            )
        except (asyncssh.Error, OSError, TimeoutError):
            return "(its key could not be read)"
        if key is None:
            return "(no key offered)"
        return f"{key.get_algorithm()} {key.get_fingerprint()}"

    def connect(self) -> None:
        """Open the connection now (the errors of a bad target, key or login)."""
        self.call(self.connection(), timeout=self._connect_timeout + 30)

    # ------------------------------------------------------------------ commands

    async def shell_async(
        self, body: str, *, stdin: bytes | None = None, timeout: float | None = None
    ) -> RemoteResult:
        conn = await self.connection()
        self.round_trips += 1
        try:
            status, out, err = await self._shells.request(
                conn, str(self.target), body, stdin, timeout
            )
        except ShellTimeout:
            return RemoteResult(None, b"", b"", "timeout")
        return RemoteResult(status, out, err)

    def shell(
        self, body: str, *, stdin: bytes | None = None, timeout: float | None = None
    ) -> RemoteResult:
        """Run POSIX sh lines in one of the kept shells (``shells.py``) to their end:
        the quick way for every short request."""
        grace = None if timeout is None else timeout + self._connect_timeout + 5
        return self.call(self.shell_async(body, stdin=stdin, timeout=timeout), grace)
