"""The cache wear forecast of a health report: each SSD under a cache branch, its
readings kept in the history file, and core/cache_wear's forecast from them.

The cache branches are a saved layout's when one is given, else those of every pool
``layout apply`` mounted (its fstab block), else a live mergerfs pool's first branch:
mergerfs's first-found policies write there first, which is how a pool without tierdeck
is tiered by hand.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...backends.host import Host
from ...core.cache_wear import CacheWear, HealthReading, forecast
from ...core.disk_health import HealthReport
from ...core.models import DiskKind, Inventory
from ...core.relations import disks_under
from ..history.health_readings import disk_id, reading_of
from ..history.paths import default_history_path
from ..history.store import HistoryError, HistoryStore
from ..layout.applied import read_applied_tiers

_SSD = (DiskKind.SSD, DiskKind.NVME)


def cache_branches(host: Host, inv: Inventory) -> tuple[str, ...]:
    """The cache branches of the machine's mergerfs pools (see the module's note)."""
    branches: list[str] = []
    for pool in inv.mergerfs:
        tiers = read_applied_tiers(host, pool)
        if tiers is not None:
            branches += tiers.cache
        elif len(pool.branches) > 1:  # one branch alone is no tier
            branches.append(pool.branches[0].path)
    return tuple(dict.fromkeys(branches))


def _kept(store: HistoryStore | None, key: str) -> list[HealthReading]:
    if store is None:
        return []
    try:
        return store.health_readings(key)
    except HistoryError:
        return []  # an unreadable history: the forecast says it has one reading


def cache_wear(
    report: HealthReport, inv: Inventory, branches: Sequence[str], store: HistoryStore | None
) -> list[CacheWear]:
    """One forecast per SSD under each branch, from ``store``'s readings and the
    report's own (whether or not it was kept)."""
    health = {d.name: d for d in report.disks}
    disks = {d.name: d for d in inv.disks}
    out: list[CacheWear] = []
    for branch in branches:
        for name in disks_under(inv, branch):
            disk, reading = disks.get(name), health.get(name)
            if disk is None or reading is None or disk.kind not in _SSD:
                continue
            key = disk_id(reading.serial or disk.serial, disk.wwn)
            now = reading_of(reading, report.collected_at, disk.wwn)
            readings = {r.t: r for r in (_kept(store, key) if key else [])}
            if now is not None:
                readings[now.t] = now
            else:  # no serial nor wwn: only today's figures, never kept
                readings[report.collected_at] = HealthReading(
                    "", report.collected_at, name, reading.state.value,
                    power_on_hours=reading.smart.power_on_hours,
                    bytes_written=reading.smart.bytes_written,
                    percentage_used=reading.smart.percentage_used,
                )  # fmt: skip
            out.append(forecast(branch, name, reading.serial or disk.serial,
                                reading.model or disk.model, list(readings.values())))  # fmt: skip
    return out


def open_store(*, create: bool) -> HistoryStore | None:
    """The history file, or None when it cannot be opened or (``create`` False: a
    check only reads) does not exist; the forecast then rests on the current reading
    alone, and says so."""
    if not create and not default_history_path().exists():
        return None
    try:
        return HistoryStore()
    except HistoryError:
        return None


def host_cache_wear(
    host: Host, report: HealthReport, inv: Inventory, store: HistoryStore | None,
    layout_cache: Sequence[str] | None = None,
) -> list[CacheWear]:  # fmt: skip
    branches = layout_cache if layout_cache is not None else cache_branches(host, inv)
    return cache_wear(report, inv, branches, store)
