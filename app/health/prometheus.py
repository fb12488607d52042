"""A health report in Prometheus' text exposition format, for node_exporter's textfile
collector (``--collector.textfile.directory``): one gauge family per figure, each disk
labelled by name (and model and serial on the state gauge), HELP and TYPE lines first.

The text is prometheus_client's own (``generate_latest``): the escaping, the float
formatting and the HELP/TYPE lines as Prometheus writes them. A figure a disk does not
report has no sample: absent, never zero.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from prometheus_client.core import CollectorRegistry, GaugeMetricFamily, Metric
from prometheus_client.exposition import generate_latest

from ...core.cache_wear import CacheWear
from ...core.disk_health import HealthReport, HealthState
from .check import CheckItem, exit_code

_STATE_HELP = "0 ok, 1 asleep, 2 unknown, 3 warning, 4 critical"
_DISK_FIGURES = (
    # (metric, SmartReading field, help)
    ("temperature_celsius", "temperature_c", "Temperature the disk reports."),
    ("power_on_hours", "power_on_hours", "Power-on hours."),
    ("reallocated_sectors", "reallocated_sectors", "ATA reallocated sectors (attribute 5)."),
    ("pending_sectors", "pending_sectors", "ATA pending sectors (attribute 197)."),
    ("offline_uncorrectable_sectors", "offline_uncorrectable",
     "ATA offline uncorrectable sectors (attribute 198)."),
    ("crc_errors", "crc_errors", "ATA UDMA CRC errors (attribute 199)."),
    ("percentage_used", "percentage_used", "Rated endurance used, percent."),
    ("available_spare_percent", "available_spare_pct", "NVMe available spare, percent."),
    ("media_errors", "media_errors", "NVMe media and data integrity errors."),
    ("unsafe_shutdowns", "unsafe_shutdowns", "NVMe unsafe shutdowns."),
    ("written_bytes", "bytes_written", "Bytes written over the disk's life."),
    ("grown_defects", "grown_defects", "SAS grown defect list length."),
)  # fmt: skip


def _families(
    report: HealthReport, items: list[CheckItem], state: HealthState, wears: Sequence[CacheWear]
) -> Iterator[Metric]:
    disk_state = GaugeMetricFamily("tierdeck_disk_health_state", f"Disk health: {_STATE_HELP}.",
                                   labels=("disk", "model", "serial"))  # fmt: skip
    for d in report.disks:
        disk_state.add_metric((d.name, d.model or "", d.serial or ""), d.state.rank)
    yield disk_state
    for metric, field, help_text in _DISK_FIGURES:
        family = GaugeMetricFamily(f"tierdeck_disk_{metric}", help_text, labels=("disk",))
        for disk in report.disks:
            value = getattr(disk.smart, field)
            if value is not None:
                family.add_metric((disk.name,), value)
        if family.samples:
            yield family
    passed = GaugeMetricFamily("tierdeck_disk_smart_passed",
                               "The drive's own overall-health verdict (1 passed).",
                               labels=("disk",))  # fmt: skip
    for d in report.disks:
        if d.smart.passed is not None:
            passed.add_metric((d.name,), int(d.smart.passed))
    if passed.samples:
        yield passed
    pools = GaugeMetricFamily("tierdeck_pool_health_state", f"Pool health: {_STATE_HELP}.",
                              labels=("pool", "kind"))  # fmt: skip
    for p in report.pools:
        pools.add_metric((p.name, p.kind), p.state.rank)
    yield pools
    scrubs = GaugeMetricFamily("tierdeck_zfs_scrub_age_seconds",
                               "Time since the last scrub ended.", labels=("pool",))  # fmt: skip
    for p in report.pools:
        if p.scrub is not None and p.scrub.age_days is not None:
            scrubs.add_metric((p.name,), round(p.scrub.age_days * 86400))
    if scrubs.samples:
        yield scrubs
    others = [i for i in items if not i.subject.startswith(("disk ", "zfs ", "btrfs ", "md "))]
    if others:
        checks = GaugeMetricFamily("tierdeck_check_item_state",
                                   f"Cache fill, mover and cache wear checks: {_STATE_HELP}.",
                                   labels=("item",))  # fmt: skip
        for i in others:
            checks.add_metric((i.subject,), i.state.rank)
        yield checks
    months = GaugeMetricFamily(
        "tierdeck_cache_wear_months_left",
        "Months until a cache SSD reaches 100 % rated wear at the current rate.",
        labels=("branch", "disk"),
    )
    for w in wears:
        if w.months_to_rated_wear is not None:
            months.add_metric((w.branch, w.disk), round(w.months_to_rated_wear, 2))
    if months.samples:
        yield months
    yield GaugeMetricFamily("tierdeck_check_status",
                            "tierdeck check's exit status: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.",
                            value=exit_code(state))  # fmt: skip
    yield GaugeMetricFamily("tierdeck_health_collected_timestamp_seconds",
                            "When this was collected (Unix time).",
                            value=round(report.collected_at))  # fmt: skip


class _Report:
    """A collector of one report: what prometheus_client's registry asks for."""

    def __init__(self, families: list[Metric]) -> None:
        self.families = families

    def collect(self) -> Iterator[Metric]:
        return iter(self.families)


def render_prometheus(
    report: HealthReport,
    items: list[CheckItem],
    state: HealthState,
    wears: Sequence[CacheWear] = (),
) -> str:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Report(list(_families(report, items, state, wears))))
    text: bytes = generate_latest(registry)
    return text.decode("utf-8")
