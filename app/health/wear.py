"""The cache wear forecast of a health report: each SSD under a cache branch, its
readings kept in the history file, and core/cache_wear's forecast from them.

The cache branches are a saved layout's when one is given, else those of every pool
``layout apply`` mounted (its fstab block), else a live mergerfs pool's first branch:
mergerfs's first-found policies write there first, which is how a pool without tierdeck
is tiered by hand.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from ...backends.host import Host
from ...core.cache_wear import CacheWear, HealthReading, forecast, write_window
from ...core.disk_health import HealthReport
from ...core.models import DiskKind, Inventory
from ...core.relations import disks_under
from ..history.health_readings import disk_id, reading_of

_SSD = (DiskKind.SSD, DiskKind.NVME)


def cache_branches(host: Host, inv: Inventory) -> tuple[str, ...]:
    """The cache branches of the machine's mergerfs pools (see the module's note)."""
    ssd = {d.name for d in inv.disks if d.kind in _SSD}
    if not ssd:
        return ()
    # a pool with no branch on an SSD has no cache SSD to forecast, whatever its tiers
    pools = [p for p in inv.mergerfs
             if any(ssd.intersection(disks_under(inv, b.path)) for b in p.branches)]  # fmt: skip
    if not pools:
        return ()
    from ..layout.applied import read_applied_tiers  # only with a pool to read it of

    branches: list[str] = []
    for pool in pools:
        tiers = read_applied_tiers(host, pool)
        if tiers is not None:
            branches += tiers.cache
        elif len(pool.branches) > 1:  # one branch alone is no tier
            branches.append(pool.branches[0].path)
    return tuple(dict.fromkeys(branches))


# a disk's kept readings by its disk_id (health_readings.kept on a history file)
Kept = Callable[[str], list[HealthReading]]
# the bytes the benchmark history wrote to a mountpoint between two epoch seconds
# (health_readings.benchmark_writes); None: unknown
BenchmarkWrites = Callable[[str, float, float], int | None]


def _with_benchmarks(
    wear: CacheWear, readings: list[HealthReading], inv: Inventory,
    written: BenchmarkWrites | None,
) -> CacheWear:  # fmt: skip
    """``wear`` with what the benchmarks wrote to its branch's filesystem while the
    drive counted the recent writes, and their share of them."""
    window = write_window(readings)
    if written is None or window is None:
        return wear
    from ..layout.facts import mount_of  # only with a cache SSD read twice

    mount = mount_of(inv, wear.branch)
    since, until, counted = window
    bench = written(mount.mountpoint if mount else wear.branch, since, until)
    if bench is None:
        return wear
    share = min(1.0, bench / counted) if counted else None
    return replace(wear, benchmark_bytes_written=bench, benchmark_write_share=share)


def cache_wear(
    report: HealthReport, inv: Inventory, branches: Sequence[str], kept: Kept | None,
    written: BenchmarkWrites | None = None,
) -> list[CacheWear]:  # fmt: skip
    """One forecast per SSD under each branch, from the ``kept`` readings and the
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
            readings = {r.t: r for r in (kept(key) if key and kept else [])}
            if now is not None:
                readings[now.t] = now
            else:  # no serial nor wwn: only today's figures, never kept
                readings[report.collected_at] = HealthReading(
                    "", report.collected_at, name, reading.state.value,
                    power_on_hours=reading.smart.power_on_hours,
                    bytes_written=reading.smart.bytes_written,
                    percentage_used=reading.smart.percentage_used,
                )  # fmt: skip
            wear = forecast(branch, name, reading.serial or disk.serial,
                            reading.model or disk.model, list(readings.values()))  # fmt: skip
            out.append(_with_benchmarks(wear, list(readings.values()), inv, written))
    return out


def host_cache_wear(
    host: Host, report: HealthReport, inv: Inventory, kept: Kept | None,
    layout_cache: Sequence[str] | None = None, written: BenchmarkWrites | None = None,
) -> list[CacheWear]:  # fmt: skip
    branches = layout_cache if layout_cache is not None else cache_branches(host, inv)
    return cache_wear(report, inv, branches, kept, written)
