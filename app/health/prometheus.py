"""A health report in Prometheus' text exposition format, for node_exporter's textfile
collector (``--collector.textfile.directory``): one gauge family per figure, each disk
labelled by name (and model and serial on the state gauge), HELP and TYPE lines first.

Label values are escaped as the format requires (backslash, double quote, newline).
A figure a disk does not report has no sample: absent, never zero.
"""

from __future__ import annotations

from collections.abc import Sequence

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


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _labels(**labels: str | None) -> str:
    body = ",".join(f'{k}="{_escape(v)}"' for k, v in labels.items() if v is not None)
    return "{" + body + "}"


def _family(name: str, help_text: str, samples: list[str]) -> list[str]:
    return [f"# HELP {name} {help_text}", f"# TYPE {name} gauge", *samples]


def render_prometheus(
    report: HealthReport, items: list[CheckItem], state: HealthState,
    wears: Sequence[CacheWear] = (),
) -> str:  # fmt: skip
    lines: list[str] = []
    lines += _family(
        "tierdeck_disk_health_state", f"Disk health: {_STATE_HELP}.",
        [f"tierdeck_disk_health_state{_labels(disk=d.name, model=d.model, serial=d.serial)}"
         f" {d.state.rank}" for d in report.disks],
    )  # fmt: skip
    for metric, field, help_text in _DISK_FIGURES:
        samples = []
        for disk in report.disks:
            value = getattr(disk.smart, field)
            if value is not None:
                samples.append(f"tierdeck_disk_{metric}{_labels(disk=disk.name)} {value}")
        if samples:
            lines += _family(f"tierdeck_disk_{metric}", help_text, samples)
    passed = [f"tierdeck_disk_smart_passed{_labels(disk=d.name)} {int(d.smart.passed)}"
              for d in report.disks if d.smart.passed is not None]  # fmt: skip
    if passed:
        lines += _family("tierdeck_disk_smart_passed",
                         "The drive's own overall-health verdict (1 passed).", passed)  # fmt: skip
    lines += _family(
        "tierdeck_pool_health_state", f"Pool health: {_STATE_HELP}.",
        [f"tierdeck_pool_health_state{_labels(pool=p.name, kind=p.kind)} {p.state.rank}"
         for p in report.pools],
    )  # fmt: skip
    scrubs = [f"tierdeck_zfs_scrub_age_seconds{_labels(pool=p.name)} {p.scrub.age_days * 86400:.0f}"
              for p in report.pools if p.scrub is not None and p.scrub.age_days is not None]  # fmt: skip
    if scrubs:
        lines += _family(
            "tierdeck_zfs_scrub_age_seconds", "Time since the last scrub ended.", scrubs
        )
    others = [i for i in items if not i.subject.startswith(("disk ", "zfs ", "btrfs ", "md "))]
    if others:
        lines += _family(
            "tierdeck_check_item_state", f"Cache fill, mover and cache wear checks: {_STATE_HELP}.",
            [f"tierdeck_check_item_state{_labels(item=i.subject)} {i.state.rank}" for i in others],
        )  # fmt: skip
    months = [f"tierdeck_cache_wear_months_left{_labels(branch=w.branch, disk=w.disk)}"
              f" {w.months_to_rated_wear:.2f}"
              for w in wears if w.months_to_rated_wear is not None]  # fmt: skip
    if months:
        lines += _family("tierdeck_cache_wear_months_left",
                         "Months until a cache SSD reaches 100 % rated wear at the current rate.",
                         months)  # fmt: skip
    lines += _family("tierdeck_check_status",
                     "tierdeck check's exit status: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.",
                     [f"tierdeck_check_status {exit_code(state)}"])  # fmt: skip
    lines += _family("tierdeck_health_collected_timestamp_seconds",
                     "When this was collected (Unix time).",
                     [f"tierdeck_health_collected_timestamp_seconds {report.collected_at:.0f}"])  # fmt: skip
    return "\n".join(lines) + "\n"
