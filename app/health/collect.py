"""``collect_health(host)``: every disk's SMART health and every pool's, at once.

The inventory (disks, pools) and smartctl's scan start together; on a live host whose
files read without a round trip, the devices whose ``-d`` type sysfs makes certain (SATA
disks, NVMe controllers) are read beside the scan already; the rest of the scanned
devices as soon as the scan answers, the disks only the inventory knows of once it is
read, so the slowest part (one smartctl call per disk) overlaps the rest.
"""

from __future__ import annotations

import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace

from ...backends.host import Host
from ...backends.pool_health import btrfs_device_errors, md_mismatch, scrub_info
from ...backends.smart.collect import (
    SMARTCTL,
    SmartAnswer,
    hwmon_temperature,
    read_devices,
    scan,
)
from ...backends.smart.scan import SmartTarget, certain_targets, plan_targets
from ...core.disk_health import DiskHealth, HealthReport, HealthState, PoolHealth
from ...core.health import find_problems
from ...core.health_rules import (
    Thresholds,
    Verdict,
    judge_btrfs_errors,
    judge_mismatch,
    judge_scrub,
)
from ...core.models import Disk, Inventory, Severity
from ..machine.inventory import collect_inventory
from .disks import from_answer, unknown, without_root


def _problems_by_subject(inv: Inventory) -> dict[str, Verdict]:
    """core/health's problems (pool states, vdev errors, fullness) filed by pool."""
    verdicts: dict[str, Verdict] = {}
    for problem in find_problems(inv):
        words = problem.subject.split()
        if len(words) < 2 or words[0] not in ("zpool", "md", "btrfs"):
            continue
        key = f"{words[0]} {words[1]}"
        verdict = verdicts.setdefault(key, Verdict.empty())
        detail = problem.message if len(words) == 2 else f"{' '.join(words[2:])}: {problem.message}"
        if problem.severity is Severity.CRITICAL:
            verdict.critical.append(detail)
        elif problem.severity is Severity.WARNING:
            verdict.warning.append(detail)
    return verdicts


def collect_pools(
    host: Host, inv: Inventory, limits: Thresholds, now: float
) -> tuple[PoolHealth, ...]:
    problems = _problems_by_subject(inv)
    pools: list[PoolHealth] = []
    for zpool in inv.zfs.pools:
        verdict = problems.get(f"zpool {zpool.name}", Verdict.empty())
        scrub = scrub_info(zpool, now)
        judge_scrub(scrub, limits, verdict)
        pools.append(PoolHealth(zpool.name, "zfs", verdict.state(), verdict.reasons(), scrub=scrub))
    for fs in inv.btrfs:
        name = fs.label or fs.uuid
        verdict = problems.get(f"btrfs {name}", Verdict.empty())
        errors, why = btrfs_device_errors(host, fs)
        judge_btrfs_errors(errors, verdict)
        reasons = verdict.reasons() + ((f"device errors unread: {why}",) if why else ())
        state = verdict.state(fallback=HealthState.UNKNOWN if why else HealthState.OK)
        pools.append(PoolHealth(name, "btrfs", state, reasons, device_errors=errors))
    for array in inv.md:
        verdict = problems.get(f"md {array.name}", Verdict.empty())
        mismatch = md_mismatch(host, array)
        judge_mismatch(mismatch, limits, verdict)
        pools.append(PoolHealth(array.name, "md", verdict.state(), verdict.reasons(),
                                mismatch_cnt=mismatch))  # fmt: skip
    return tuple(pools)


def _answers(host: Host, targets: list[SmartTarget], scan_failure: str | None) -> list[SmartAnswer]:
    """smartctl's answers; none without root or without a working smartctl."""
    if not host.is_root or scan_failure is not None:
        return []
    return read_devices(host, targets)


def _judged(
    host: Host, targets: list[SmartTarget], answers: list[SmartAnswer], disks: dict[str, Disk],
    limits: Thresholds, scan_failure: str | None,
) -> list[DiskHealth]:  # fmt: skip
    if not host.is_root:
        return [without_root(t, disks.get(t.name), hwmon_temperature(host, t.name), limits)
                for t in targets]  # fmt: skip
    if scan_failure is not None:
        return [unknown(t, disks.get(t.name), scan_failure) for t in targets]
    return [from_answer(a, disks.get(a.target.name), limits) for a in answers]


def collect_health(
    host: Host, limits: Thresholds | None = None, now: float | None = None
) -> HealthReport:
    """Every disk's health and every pool's. Never raises for a missing tool or an
    unreadable disk: each says why in its reasons."""
    return collect(host, limits, now)[0]


def collect(
    host: Host, limits: Thresholds | None = None, now: float | None = None
) -> tuple[HealthReport, Inventory]:
    """The health report and the inventory it was built from (``check`` reads the
    cache fill from it)."""
    limits = limits or Thresholds()
    now = time.time() if now is None else now
    with ThreadPoolExecutor(max_workers=3, thread_name_prefix="health") as pool:
        # the devices whose -d type is certain are read while the scan runs: found
        # before the inventory starts, whose thread would compete for the interpreter
        early = _read_certain(host, pool) if host.is_root else None
        inventory = pool.submit(collect_inventory, host)
        scanned: list[tuple[str, str | None, str | None]] = []
        scan_failure = None
        if host.is_root:
            scanned, scan_failure = scan(host)
        first = plan_targets(host, scanned, ())
        # the scanned devices are read while the inventory is still being collected
        rest = pool.submit(_first_answers, host, first, early, scan_failure)
        inv = inventory.result()
        disks = {d.name: d for d in inv.disks}
        known = {t.name for t in first}
        later = [t for t in plan_targets(host, scanned, inv.disks) if t.name not in known]
        answers = rest.result() + _answers(host, later, scan_failure)
        health = _judged(host, first + later, answers, disks, limits, scan_failure)
    return _report(host, inv, health, limits, now), inv


def _read_certain(host: Host, pool: ThreadPoolExecutor) -> Future[list[SmartAnswer]] | None:
    """The certain devices' reads (backends/smart/scan.certain_targets), started now;
    None where finding them costs round trips (a host over SSH) or smartctl is missing."""
    if not (host.capabilities.live and host.capabilities.cheap_reads):
        return None
    if not host.has_tool(SMARTCTL):
        return None
    targets = certain_targets(host)
    return pool.submit(read_devices, host, targets) if targets else None


def _first_answers(
    host: Host, targets: list[SmartTarget], early: Future[list[SmartAnswer]] | None,
    scan_failure: str | None,
) -> list[SmartAnswer]:  # fmt: skip
    """The answers for the scan's targets: an early answer where it answered the very
    call the plan makes (same name, device and type), a call of its own for the rest,
    made once the early ones are done (so MAX_PARALLEL bounds every call at once)."""
    if not host.is_root or scan_failure is not None:
        # the early answers too: smartctl is too old (no --json: each early call only
        # printed its usage), or the scan failed; the report says why for every disk
        return []
    ready: dict[tuple[str, str, str | None], SmartAnswer] = {}
    for answer in early.result() if early is not None else ():
        t = answer.target
        ready[(t.name, t.device, t.device_type)] = answer
    missing = [t for t in targets if (t.name, t.device, t.device_type) not in ready]
    fresh = iter(_answers(host, missing, scan_failure))
    return [
        replace(ready[key], target=t) if (key := (t.name, t.device, t.device_type)) in ready
        else next(fresh)
        for t in targets
    ]  # fmt: skip


def health_of(host: Host, inv: Inventory, limits: Thresholds | None = None,
              now: float | None = None) -> HealthReport:  # fmt: skip
    """The health report for an inventory already read (the dashboard's, refreshed
    rarely): one scan, then the devices, without reading the inventory again."""
    limits = limits or Thresholds()
    now = time.time() if now is None else now
    scanned: list[tuple[str, str | None, str | None]] = []
    scan_failure = None
    if host.is_root:
        scanned, scan_failure = scan(host)
    targets = plan_targets(host, scanned, inv.disks)
    answers = _answers(host, targets, scan_failure)
    disks = {d.name: d for d in inv.disks}
    health = _judged(host, targets, answers, disks, limits, scan_failure)
    return _report(host, inv, health, limits, now)


def _report(host: Host, inv: Inventory, health: list[DiskHealth], limits: Thresholds,
            now: float) -> HealthReport:  # fmt: skip
    notes = tuple(f"{note.source}: {note.message}" for note in inv.notes)
    if inv.zfs.message and inv.zfs.available:
        notes += (f"zfs: {inv.zfs.message}",)
    return HealthReport(
        hostname=host.hostname,
        collected_at=now,
        disks=tuple(health),
        pools=collect_pools(host, inv, limits, now),
        notes=notes,
    )
