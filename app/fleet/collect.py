"""Every host of the fleet at once: each in a thread of its own, under one deadline.

A host that is down, or answers slowly, never holds the others: each host's connection
and inventory run in a daemon thread, the caller takes the answers as they come and,
at the deadline, writes the hosts still silent down as "no answer within N s". A thread
left behind that answers later closes its own connection; being a daemon, it never
keeps the process from ending either.

The connections that answered are kept (``host(name)``) so the dashboard of one of
them opens on a link already made, and closed by the next round or ``close()``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import queue
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from ...backends.host import Host
from ...core.errors import SecretNeeded, one_line
from ...core.models import Inventory
from .config import FleetHost
from .status import HostStatus, host_status, needs_secret, unreachable

if TYPE_CHECKING:
    from ...backends.host.ssh.link import Prompt
    from ...backends.sources import ReaderSource, Source

DEFAULT_TIMEOUT = 10.0

Connect = Callable[[FleetHost, float], Host]  # an entry and the timeout -> its Host
SignIn = Callable[[FleetHost, float, "Prompt"], Host]  # the same, asking for a secret
Collect = Callable[[Host], Inventory]
OnStatus = Callable[[HostStatus], None]


def ssh_connect(entry: FleetHost, timeout: float) -> Host:
    """The entry's SshHost, its connection attempt bounded by ``timeout``. One shell
    is opened with the connection, not the dashboard's two: a row's reads go one after
    the other (``row_inventory``), and each shell costs the host a session and a login
    shell (its ~/.bashrc), which ten hosts at once feel (bench/fleet.py). A host whose
    connection is kept (``persist``, or ssh's ControlPersist) reads through its keeper,
    as ``tierdeck --host`` does: the next round, or command, connects to no one."""
    from ...backends.host.ssh import SshHost, SshTarget
    from ...backends.host.ssh.link import SshLink
    from ...backends.host.ssh.persist import idle_limit

    target = SshTarget.parse(entry.ssh)
    link = SshLink(target, connect_timeout=timeout, warm_shells=1)
    return SshHost(target, link=link, keep_idle_s=idle_limit(target.host, entry.persist))


def ssh_sign_in(entry: FleetHost, timeout: float, prompt: Prompt) -> Host:
    """The entry's SshHost, logged in now, asking ``prompt`` for a password or a key's
    passphrase; its link keeps the answer in memory for the rounds after. A dashboard
    opens on it, so it keeps the usual shells."""
    from ...backends.host.ssh import SshHost, SshTarget
    from ...backends.host.ssh.link import SshLink

    target = SshTarget.parse(entry.ssh)
    host = SshHost(target, link=SshLink(target, prompt=prompt, connect_timeout=timeout))
    try:
        host.facts  # noqa: B018 - log in now: the prompt is answered while the row waits
    except BaseException:
        close_quietly(host)
        raise
    return host


def _nothing_of(source: ReaderSource[Any]) -> Callable[[Host, Any], tuple[Any, tuple[()]]]:
    """A reader that reads nothing: the source's empty part, no note."""

    def nothing(host: Host, parts: Any) -> tuple[Any, tuple[()]]:
        return source.empty(), ()

    return nothing


def row_sources() -> tuple[Source[Any], ...]:
    """The inventory's sources a row shows: every pool and what the problems are found
    in (core/health reads mounts, mergerfs, btrfs, md and ZFS). The disks (sysfs, udev,
    lsscsi) and their stacking are left empty: no row shows them, and the dashboard
    opened from the row reads them all. Each source is read in the caller's thread,
    one after the other: the host's answers then need one shell (hosts run side by
    side, each in its own thread, already)."""
    from ...backends.sources import DISKS, SOURCES, STACKING, ReaderSource

    sources: list[Source[Any]] = []
    for source in SOURCES:
        if isinstance(source, ReaderSource):
            if source in (DISKS, STACKING):
                source = dataclasses.replace(source, reader=_nothing_of(source))
            source = dataclasses.replace(source, runs_commands=False)
        sources.append(source)
    return tuple(sources)


def row_inventory(host: Host) -> Inventory:
    from ..machine.inventory import collect_inventory

    return collect_inventory(host, row_sources())


def close_quietly(host: Host) -> None:
    close = getattr(host, "close", None)
    if close is not None:
        with contextlib.suppress(Exception):
            close()


class FleetSource(Protocol):
    """What the fleet screen asks: the hosts, their states as each answers, and the
    connection of one that answered."""

    @property
    def entries(self) -> tuple[FleetHost, ...]: ...

    def collect(self, on_status: OnStatus | None = None) -> list[HostStatus]: ...

    def host(self, name: str) -> Host | None: ...

    def sign_in(self, name: str, prompt: Prompt) -> HostStatus: ...

    def close(self) -> None: ...


class _Round:
    """One collection: which of its threads' hosts were given up at the deadline."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.over = False


class Fleet:
    """The configured hosts, collected in parallel with a per-host ``timeout``."""

    def __init__(
        self,
        entries: tuple[FleetHost, ...],
        *,
        timeout: float = DEFAULT_TIMEOUT,
        connect: Connect | None = None,
        collect: Collect | None = None,
        sign_in: SignIn | None = None,
    ) -> None:
        """``connect``, ``sign_in`` and ``collect`` default to SSH and
        ``collect_inventory``."""
        self._entries = entries
        self.timeout = timeout
        self._connect = connect or ssh_connect
        self._sign_in = sign_in or ssh_sign_in
        self._collect = collect or row_inventory
        self._hosts: dict[str, Host] = {}
        # hosts signed in with a secret: kept across rounds (their links hold the
        # answer in memory), closed only by close()
        self._signed: dict[str, Host] = {}
        self._lock = threading.Lock()
        self._newest: _Round | None = None  # a round started again (r) supersedes this one

    @property
    def entries(self) -> tuple[FleetHost, ...]:
        return self._entries

    def host(self, name: str) -> Host | None:
        with self._lock:
            return self._hosts.get(name)

    def close(self) -> None:
        self._close_round()
        with self._lock:
            signed, self._signed = list(self._signed.values()), {}
        for host in signed:
            close_quietly(host)

    def _close_round(self) -> None:
        """The links of the last round, but those signed in with a secret."""
        with self._lock:
            hosts = [h for h in self._hosts.values() if h not in self._signed.values()]
            self._hosts = {}
        for host in hosts:
            close_quietly(host)

    def sign_in(self, name: str, prompt: Prompt) -> HostStatus:
        """Log in to the host ``name``, asking ``prompt`` for its password or passphrase
        (blocks: from a worker thread), and read its row. The link is kept for the
        next rounds, so ``r`` does not ask again."""
        entry = next(e for e in self._entries if e.name == name)
        started = time.monotonic()
        try:
            host = self._sign_in(entry, self.timeout, prompt)
        except Exception as exc:  # noqa: BLE001 - its row says why
            return self._failed(entry, exc, time.monotonic() - started)
        try:
            status = host_status(entry, host, self._collect(host), time.monotonic() - started)
        except Exception as exc:  # noqa: BLE001
            close_quietly(host)
            return self._failed(entry, exc, time.monotonic() - started)
        with self._lock:
            old = self._signed.get(name)
            self._signed[name] = self._hosts[name] = host
        if old is not None and old is not host:
            close_quietly(old)
        return status

    @staticmethod
    def _failed(entry: FleetHost, exc: Exception, seconds: float) -> HostStatus:
        if isinstance(exc, SecretNeeded):
            return needs_secret(entry, exc.what, seconds)
        return unreachable(entry, one_line(exc), seconds)

    def _one(self, entry: FleetHost, answers: queue.Queue[tuple[HostStatus, Host | None]],
             this_round: _Round) -> None:  # fmt: skip
        started = time.monotonic()
        with self._lock:
            signed = self._signed.get(entry.name)
        host: Host | None = signed
        try:
            if host is None:
                host = self._connect(entry, self.timeout)
            inv = self._collect(host)
            status = host_status(entry, host, inv, time.monotonic() - started)
        except Exception as exc:  # noqa: BLE001 - a host's failure is its row, never the fleet's
            status = self._failed(entry, exc, time.monotonic() - started)
            if host is not None and host is not signed:
                close_quietly(host)
            host = None if host is not signed else host
        with this_round.lock:
            late = this_round.over
        if late:  # written down as silent already: nobody will use this link
            if host is not None and host is not signed:
                close_quietly(host)
            return
        answers.put((status, host))

    def collect(self, on_status: OnStatus | None = None) -> list[HostStatus]:
        """Every host's state, in the file's order; ``on_status`` gets each one as it
        answers (in the calling thread). Returns within ``timeout`` (plus the little
        the answers take to build)."""
        this_round = _Round()
        with self._lock:
            self._newest = this_round
        self._close_round()  # the previous round's links: this round makes its own
        answers: queue.Queue[tuple[HostStatus, Host | None]] = queue.Queue()
        for entry in self._entries:
            threading.Thread(target=self._one, args=(entry, answers, this_round),
                             name=f"fleet {entry.name}", daemon=True).start()  # fmt: skip
        found: dict[str, HostStatus] = {}
        deadline = time.monotonic() + self.timeout
        while len(found) < len(self._entries):
            try:
                status, host = answers.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                break
            found[status.name] = status
            if host is not None:
                with self._lock:
                    current = self._newest is this_round
                    if current:
                        self._hosts[status.name] = host
                if not current and host not in self._signed.values():
                    close_quietly(host)  # a newer round keeps its own links
            if on_status is not None:
                on_status(status)
        with this_round.lock:
            this_round.over = True
        while not answers.empty():  # answered between the deadline and the lock
            status, host = answers.get_nowait()
            if host is not None and host not in self._signed.values():
                close_quietly(host)
        for entry in self._entries:
            if entry.name not in found:
                found[entry.name] = unreachable(
                    entry, f"no answer within {self.timeout:g} s", self.timeout
                )
                if on_status is not None:
                    on_status(found[entry.name])
        return [found[entry.name] for entry in self._entries]
