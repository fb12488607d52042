"""One host of the fleet as a row: reachable or why not, its problems, its pools and
their health, how full its cache is against the mover's watermarks.

Built from the host's inventory (``collect_inventory``) and the problems the dashboard
shows (``core/health.find_problems``); the only reads beyond the inventory are the
layout tierdeck applied to a tiered pool (fstab's block and the mover's layout file,
``app/layout/applied.py``), which give the cache branches and the watermarks.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...backends.host import Host
from ...core.errors import one_line
from ...core.models import Inventory, MergerfsPool, Problem, Severity
from ..layout.applied import AppliedTiers, read_applied_tiers
from ..layout.facts import mount_of
from ..layout.fill import cache_fills
from .config import FleetHost

_RANK = {Severity.CRITICAL: 0, Severity.WARNING: 1, Severity.INFO: 2}


@dataclass(frozen=True)
class PoolState:
    kind: str  # "zfs", "btrfs", "md", "mergerfs"
    name: str  # the pool's name, the btrfs label (or uuid), the md array, the mountpoint
    state: str  # the pool's own word: ONLINE, DEGRADED, clean, ok
    health: str  # "ok", or the worst severity among the problems naming the pool
    used_pct: float | None = None


@dataclass(frozen=True)
class CacheState:
    """A mergerfs pool's fill. With a layout tierdeck applied (its cache branches and
    the mover's watermarks known): the fullest cache branch against ``high_pct``;
    otherwise the pool's own fill and no watermark."""

    pool: str  # the mergerfs pool's mountpoint
    used_pct: float | None
    high_pct: int | None = None  # the mover's watermarks, None without a layout
    low_pct: int | None = None

    @property
    def above_high(self) -> bool:
        """The mover would move the oldest files whatever their age."""
        if self.used_pct is None or self.high_pct is None:
            return False
        return self.used_pct > self.high_pct


@dataclass(frozen=True)
class HostStatus:
    name: str
    target: str  # the ssh target as configured
    reachable: bool
    error: str | None = None  # why not reachable (one line)
    hostname: str | None = None
    problems: tuple[Problem, ...] = ()
    pools: tuple[PoolState, ...] = ()
    cache: tuple[CacheState, ...] = ()
    # the newest ok benchmark of this machine in the local history ("#12 seqwrite, 3 d ago")
    last_bench: str | None = None
    seconds: float | None = None  # how long the host took to answer
    # the host asks for a secret no one was there to give ("a password", "the
    # passphrase of KEY"): it is up, and signing in asks for it
    needs_secret: str | None = None


def unreachable(entry: FleetHost, error: str, seconds: float | None = None) -> HostStatus:
    return HostStatus(entry.name, entry.ssh, False, error, seconds=seconds)


def needs_secret(entry: FleetHost, what: str, seconds: float | None = None) -> HostStatus:
    """A host that wants a password or passphrase: its row says so and what to run (a
    row never waits for a prompt: the other rows would wait with it)."""
    error = f"needs {what}: sign in with tierdeck --host {entry.name} (it asks for it)"
    return HostStatus(entry.name, entry.ssh, False, error, seconds=seconds, needs_secret=what)


def safe_problems(inv: Inventory) -> tuple[Problem, ...]:
    """find_problems, but a bug in a health rule is a problem of the host, not a crash
    of the whole fleet."""
    try:
        from ...core.health import find_problems

        return find_problems(inv)
    except Exception as exc:  # noqa: BLE001
        return (Problem(Severity.WARNING, "tierdeck", f"health checks failed: {one_line(exc)}"),)


def _health(subject: str, problems: tuple[Problem, ...]) -> str:
    """The worst severity among the problems about ``subject`` (or a part of it: a
    vdev, a branch), or "ok"."""
    found = [p.severity for p in problems
             if p.subject == subject or p.subject.startswith(subject + " ")]  # fmt: skip
    return str(min(found, key=_RANK.__getitem__)) if found else "ok"


def _pct(used: int | None, size: int | None) -> float | None:
    return used / size * 100 if used is not None and size else None


def pool_states(inv: Inventory, problems: tuple[Problem, ...]) -> tuple[PoolState, ...]:
    pools = []
    for zpool in inv.zfs.pools:
        used = float(zpool.capacity_pct) if zpool.capacity_pct is not None else None
        pools.append(PoolState("zfs", zpool.name, zpool.health or zpool.state,
                               _health(f"zpool {zpool.name}", problems), used))  # fmt: skip
    for fs in inv.btrfs:
        name = fs.label or fs.uuid
        missing = any(d.missing for d in fs.devices)
        mount = mount_of(inv, fs.mountpoints[0]) if fs.mountpoints else None
        pools.append(PoolState("btrfs", name, "degraded" if missing else "ok",
                               _health(f"btrfs {name}", problems),
                               None if mount is None or mount.use_fraction is None
                               else mount.use_fraction * 100))  # fmt: skip
    for array in inv.md:
        state = "degraded" if array.degraded else array.state
        pools.append(PoolState("md", array.name, state, _health(f"md {array.name}", problems)))
    for pool in inv.mergerfs:
        pools.append(PoolState("mergerfs", pool.mountpoint, "error" if pool.error else "ok",
                               _health(f"mergerfs {pool.mountpoint}", problems),
                               _pool_fill(pool)))  # fmt: skip
    return tuple(pools)


def _pool_fill(pool: MergerfsPool) -> float | None:
    if pool.size_bytes is None or pool.avail_bytes is None:
        return None
    return _pct(pool.size_bytes - pool.avail_bytes, pool.size_bytes)


def _cache_state(inv: Inventory, pool: MergerfsPool, tiers: AppliedTiers | None) -> CacheState:
    if tiers is None:
        return CacheState(pool.mountpoint, _pool_fill(pool))
    fills = [f.used_pct for f in cache_fills(inv, tiers.cache) if f.used_pct is not None]
    mover = tiers.mover
    return CacheState(pool.mountpoint, max(fills) if fills else None,
                      mover.fill_high_pct if mover else None,
                      mover.fill_low_pct if mover else None)  # fmt: skip


def cache_states(host: Host, inv: Inventory) -> tuple[CacheState, ...]:
    """Each mergerfs pool's fill; the slow pool of a tiered one is left out (the tiered
    pool's row says what matters: its cache)."""
    tiers = {pool.mountpoint: read_applied_tiers(host, pool) for pool in inv.mergerfs}
    slow = {t.slow_pool for t in tiers.values() if t is not None and t.slow_pool}
    return tuple(_cache_state(inv, pool, tiers[pool.mountpoint])
                 for pool in inv.mergerfs if pool.mountpoint not in slow)  # fmt: skip


def last_bench(identity: str, now: float | None = None) -> str | None:
    """The newest ok run of the machine ``identity`` names (its machine id: reached
    here or over SSH, it is one machine) in this machine's history, in a few words;
    None without one or without a readable history."""
    import time

    from ..history.paths import default_history_path
    from ..history.store import HistoryError, HistoryStore

    machine = identity.partition(":")[2] or identity
    if not default_history_path().exists():  # asking must not create an empty history
        return None
    try:
        runs = HistoryStore().list(host=machine, series=False, limit=1)
    except (HistoryError, OSError):
        return None
    if not runs:
        return None
    run = runs[0]
    age = max(0.0, (time.time() if now is None else now) - run.started_at)
    when = (f"{age / 86400:.0f} d" if age >= 86400 else f"{age / 3600:.0f} h"
            if age >= 3600 else f"{age / 60:.0f} min")  # fmt: skip
    return f"#{run.id} {run.preset or run.name}, {when} ago"


def host_status(entry: FleetHost, host: Host, inv: Inventory, seconds: float) -> HostStatus:
    problems = safe_problems(inv)
    try:
        identity = host.identity
    except Exception:  # noqa: BLE001 - a host that cannot say who it is has no runs here
        identity = ""
    return HostStatus(
        entry.name,
        entry.ssh,
        True,
        hostname=inv.hostname,
        problems=problems,
        pools=pool_states(inv, problems),
        cache=cache_states(host, inv),
        last_bench=last_bench(identity) if identity else None,
        seconds=seconds,
    )
