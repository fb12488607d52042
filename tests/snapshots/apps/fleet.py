"""A fleet of three with fixed data, for the fleet screen's snapshot and Pilot tests:
"nas" (up: a ZFS pool, a tiered mergerfs pool whose cache is above the mover's high
watermark, one warning), "backup" (up: a degraded md array) and "attic" (down: no
answer); with ``login=True`` a fourth, "vault", that wants a password (the row in its
``login`` state). ``FixedFleet`` stands in for app/fleet/collect.Fleet: each host answers when
the test says (``answer``), or all at once; an opened host is the demo NAS.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from tierdeck.app.fleet.config import FleetHost
from tierdeck.app.fleet.status import CacheState, HostStatus, PoolState, needs_secret
from tierdeck.backends.host import Host
from tierdeck.core.models import Problem, Severity

ENTRIES = (
    FleetHost("nas", "nas", ("home", "media")),
    FleetHost("backup", "root@10.0.0.7"),
    FleetHost("attic", "admin@10.0.0.9:2222"),
)
VAULT = FleetHost("vault", "admin@10.0.0.12")

STATUSES = {
    "nas": HostStatus(
        "nas", "nas", True, hostname="nas",
        problems=(Problem(Severity.WARNING, "filesystem /mnt/cache", "91% full (90 GiB free)"),),
        pools=(PoolState("zfs", "tank", "ONLINE", "ok", 41.0),
               PoolState("mergerfs", "/mnt/storage", "ok", "warning", 58.2)),
        cache=(CacheState("/mnt/storage", 91.3, 80, 60),),
        seconds=0.6,
    ),
    "backup": HostStatus(
        "backup", "root@10.0.0.7", True, hostname="backup",
        problems=(Problem(Severity.CRITICAL, "md md0", "degraded: 1 of 2 devices active"),),
        pools=(PoolState("md", "md0", "degraded", "critical"),
               PoolState("btrfs", "backups", "ok", "ok", 35.0)),
        seconds=0.8,
    ),
    "attic": HostStatus(
        "attic", "admin@10.0.0.9:2222", False,
        error="admin@10.0.0.9:2222: no answer within 10 s", seconds=10.0,
    ),
    "vault": needs_secret(VAULT, "a password", seconds=0.3),
}  # fmt: skip


class FixedFleet:
    """A FleetSource of ``STATUSES``. ``held``: each host answers only once
    ``answer(name)`` is called (rows filling in one by one); otherwise all at once."""

    def __init__(self, *, held: bool = False, opened: Callable[[], Host] | None = None,
                 login: bool = False) -> None:  # fmt: skip
        self._entries = (*ENTRIES, VAULT) if login else ENTRIES
        self.held = held
        self.opened = opened
        self.rounds = 0
        self._go: dict[str, threading.Event] = {e.name: threading.Event() for e in self._entries}

    @property
    def entries(self) -> tuple[FleetHost, ...]:
        return self._entries

    def answer(self, name: str) -> None:
        self._go[name].set()

    def collect(self, on_status: Callable[[HostStatus], None] | None = None) -> list[HostStatus]:
        self.rounds += 1
        out = []
        for entry in self._entries:
            if self.held:
                self._go[entry.name].wait(30)
            status = STATUSES[entry.name]
            if on_status is not None:
                on_status(status)
            out.append(status)
        return out

    def sign_in(self, name: str, prompt: Callable[[str], str | None]) -> HostStatus:
        return STATUSES[name]  # no host here wants a secret

    def host(self, name: str) -> Host | None:
        if self.opened is None or not STATUSES[name].reachable:
            return None
        return self.opened()

    def close(self) -> None:
        pass
