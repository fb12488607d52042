"""``tierdeck check``: one verdict over disks, pools, a layout's cache fill and its
mover's last run, for cron, systemd timers, Nagios/Icinga and Prometheus.

The exit status and the one line follow the monitoring-plugins convention
(https://www.monitoring-plugins.org/doc/guidelines.html#AEN78): 0 OK, 1 WARNING,
2 CRITICAL, 3 UNKNOWN, ``SERVICE STATE - text``. A disk asleep counts as OK: sleeping
is what it should do. ``--prometheus FILE`` writes node_exporter's textfile-collector
format (https://github.com/prometheus/node_exporter#textfile-collector), replaced
atomically so the collector never reads half a file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...backends.host import Host
from ...core.cache_wear import CacheWear
from ...core.disk_health import HealthReport, HealthState
from ...core.health_rules import Thresholds
from ...core.layout.model import Layout, MoverPolicy
from ...core.models import Inventory
from ..layout.applied import mover_layout_path, read_applied_tiers
from ..layout.fill import FillState, cache_fills
from ..mover.history import MoverHistory, MoverHistoryError

EXIT_OK, EXIT_WARNING, EXIT_CRITICAL, EXIT_UNKNOWN = 0, 1, 2, 3
_EXIT = {
    HealthState.OK: EXIT_OK,
    HealthState.ASLEEP: EXIT_OK,
    HealthState.WARNING: EXIT_WARNING,
    HealthState.CRITICAL: EXIT_CRITICAL,
    HealthState.UNKNOWN: EXIT_UNKNOWN,
}
CACHE_FULL_CRITICAL_PCT = 97  # as core/health's filesystems: past it writes start failing


@dataclass(frozen=True)
class CheckItem:
    subject: str  # "disk sda", "zpool tank", "cache /mnt/cache", "mover"
    state: HealthState
    reasons: tuple[str, ...]


def tier_items(
    cache: tuple[str, ...], mover: MoverPolicy | None, layout_path: str | None,
    inv: Inventory, history: Path | None, now: float,
) -> list[CheckItem]:  # fmt: skip
    """Each cache branch's fill against the mover's watermarks (``mover`` None: only
    against the point where writes start failing), and the mover's last recorded run
    of ``layout_path`` (an absolute path) in the mover's history file ``history``, when
    one is given (the machine's own: the mover records where it runs)."""
    items: list[CheckItem] = []
    for fill in cache_fills(inv, cache):
        subject = f"cache {fill.path}"
        if fill.used_pct is None:
            items.append(CheckItem(subject, HealthState.UNKNOWN, ("not mounted: fill unknown",)))
        elif fill.used_pct >= CACHE_FULL_CRITICAL_PCT:
            items.append(CheckItem(subject, HealthState.CRITICAL, (f"{fill.used_pct:.0f} % full",)))
        elif mover is not None and fill.state(mover) is FillState.ABOVE_HIGH:
            reason = f"{fill.used_pct:.0f} % full, above the mover's {mover.fill_high_pct} %"
            items.append(CheckItem(subject, HealthState.WARNING, (reason,)))
        else:
            items.append(CheckItem(subject, HealthState.OK, ()))
    if history is None or layout_path is None:
        return items
    return [*items, _mover_item(history, layout_path, now)]


def _mover_item(history: Path, layout_path: str, now: float) -> CheckItem:
    if not history.exists():  # not created by a check: no mover ever ran here
        return CheckItem("mover", HealthState.WARNING, ("the mover has never run",))
    try:
        runs = [r for r in MoverHistory(history).list(layout_path, limit=5) if not r.dry_run]
    except MoverHistoryError as exc:
        return CheckItem("mover", HealthState.UNKNOWN, (f"history unreadable: {exc}",))
    if not runs:
        return CheckItem("mover", HealthState.WARNING, ("the mover has never run",))
    last = runs[0]
    when = f"last run {max(0.0, (now - last.started) / 3600):.0f} h ago"
    if last.failed:
        why = last.refused or last.message or (last.stopped.value if last.stopped else "failed")
        return CheckItem("mover", HealthState.WARNING, (f"{when} failed: {why}",))
    return CheckItem("mover", HealthState.OK, (when,))


def layout_items(
    layout: Layout, layout_path: Path, inv: Inventory, history: Path | None, now: float
) -> list[CheckItem]:
    """The layout's cache branches against the mover's watermarks, and its last run."""
    return tier_items(layout.cache, layout.mover, str(layout_path.resolve()), inv, history, now)


def applied_items(host: Host, inv: Inventory, history: Path | None, now: float) -> list[CheckItem]:
    """``tier_items`` of every mergerfs pool tierdeck applied a layout to (its fstab
    block, and the layout file its mover service runs)."""
    items: list[CheckItem] = []
    for pool in inv.mergerfs:
        tiers = read_applied_tiers(host, pool)
        if tiers is None:
            continue
        items += tier_items(tiers.cache, tiers.mover, mover_layout_path(host, pool), inv,
                            history, now)  # fmt: skip
    return items


def report_items(report: HealthReport) -> list[CheckItem]:
    items = [CheckItem(f"disk {d.name}", d.state, d.reasons) for d in report.disks]
    items += [CheckItem(f"{p.kind} {p.name}", p.state, p.reasons) for p in report.pools]
    return items


def wear_items(wears: list[CacheWear], limits: Thresholds) -> list[CheckItem]:
    """A cache SSD forecast to reach its rated wear within
    ``cache_wear_warning_months`` warns; an unknown forecast is no alarm (a new
    install has one reading), its basis is shown."""
    items = []
    for wear in wears:
        subject = f"cache wear {wear.branch} ({wear.disk})"
        months = wear.months_to_rated_wear
        if months is not None and months < limits.cache_wear_warning_months:
            reason = (f"reaches 100 % rated wear in about {max(months, 0):.1f} months "
                      f"({wear.basis})")  # fmt: skip
            items.append(CheckItem(subject, HealthState.WARNING, (reason,)))
        else:
            items.append(CheckItem(subject, HealthState.OK, (wear.basis,)))
    return items


def overall(items: list[CheckItem]) -> HealthState:
    """The worst state, asleep counted as ok."""
    states = [HealthState.OK if i.state is HealthState.ASLEEP else i.state for i in items]
    return max(states, key=lambda s: s.rank, default=HealthState.OK)


def exit_code(state: HealthState) -> int:
    return _EXIT[state]


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def summary_line(items: list[CheckItem], state: HealthState, *, limit: int = 5) -> str:
    """``TIERDECK OK - 12 disks, 2 pools`` or the worst items first with their reasons."""
    word = {EXIT_OK: "OK", EXIT_WARNING: "WARNING", EXIT_CRITICAL: "CRITICAL",
            EXIT_UNKNOWN: "UNKNOWN"}[exit_code(state)]  # fmt: skip
    disks = sum(1 for i in items if i.subject.startswith("disk "))
    pools = sum(1 for i in items if i.subject.startswith(("zfs ", "btrfs ", "md ")))
    asleep = sum(1 for i in items if i.state is HealthState.ASLEEP)
    counts = _count(disks, "disk") + (f" ({asleep} asleep)" if asleep else "")
    counts += ", " + _count(pools, "pool")
    wear = sum(1 for i in items if i.subject.startswith("cache wear "))
    if len(items) > disks + pools + wear:
        counts += ", " + _count(len(items) - disks - pools - wear, "layout check")
    if wear:
        counts += ", the wear of " + _count(wear, "cache SSD")
    bad = sorted((i for i in items if i.state.rank >= HealthState.UNKNOWN.rank),
                 key=lambda i: -i.state.rank)  # fmt: skip
    if not bad:
        return f"TIERDECK {word} - {counts}"
    shown = "; ".join(f"{i.subject}: {', '.join(i.reasons) or i.state.value}" for i in bad[:limit])
    more = f"; and {len(bad) - limit} more" if len(bad) > limit else ""
    return f"TIERDECK {word} - {shown}{more} ({counts})"
