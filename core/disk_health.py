"""Disk and pool health as typed values: what smartctl and the pools report, and the
state tierdeck gives each (ok / warning / critical / asleep / unknown) with its reasons.

Nothing here does I/O. ``None`` means the disk did not report the field (or it could
not be read), never zero. The rules that turn readings into states are
``core/health_rules.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from .models import Problem


class HealthState(StrEnum):
    OK = "ok"
    WARNING = "warning"
    CRITICAL = "critical"
    ASLEEP = "asleep"  # in standby: not read, so as not to spin it up
    UNKNOWN = "unknown"  # nothing trustworthy was read: never taken as healthy

    @property
    def rank(self) -> int:
        """Worse is higher; asleep and unknown sit between ok and warning: a sleeping
        disk is fine as far as anyone knows, an unknown one needs a look, not an alarm."""
        return _RANK[self]


_RANK = {
    HealthState.OK: 0,
    HealthState.ASLEEP: 1,
    HealthState.UNKNOWN: 2,
    HealthState.WARNING: 3,
    HealthState.CRITICAL: 4,
}


@dataclass(frozen=True)
class SmartReading:
    """One disk's SMART figures as smartctl reported them (ATA, NVMe or SCSI/SAS)."""

    passed: bool | None = None  # the drive's own overall-health verdict
    temperature_c: int | None = None
    power_on_hours: int | None = None
    reallocated_sectors: int | None = None  # ATA 5
    pending_sectors: int | None = None  # ATA 197
    offline_uncorrectable: int | None = None  # ATA 198
    crc_errors: int | None = None  # ATA 199: the cable or backplane, not the medium
    percentage_used: int | None = None  # NVMe, or an ATA SSD's wear indicator
    available_spare_pct: int | None = None  # NVMe
    available_spare_threshold_pct: int | None = None  # NVMe: below it the drive warns
    media_errors: int | None = None  # NVMe media and data integrity errors
    critical_warning: int | None = None  # NVMe critical warning bits (0: none)
    unsafe_shutdowns: int | None = None  # NVMe
    bytes_written: int | None = None  # NVMe data units, ATA total LBAs, SAS gigabytes
    self_test_passed: bool | None = None  # the last self-test; None: none logged
    self_test: str | None = None  # its result in smartctl's words
    grown_defects: int | None = None  # SAS grown defect list
    non_medium_errors: int | None = None  # SAS
    temperature_warning_c: int | None = None  # the drive's own limits (NVMe)
    temperature_critical_c: int | None = None


@dataclass(frozen=True)
class DiskHealth:
    name: str  # "sda", "nvme0n1", "bus/0:megaraid,1" (a disk behind a RAID controller)
    device: str  # what smartctl was given: "/dev/sda", "/dev/bus/0"
    device_type: str | None  # smartctl's -d type: "sat", "nvme", "megaraid,1"
    protocol: str | None  # "ATA", "NVMe", "SCSI"
    model: str | None
    serial: str | None
    state: HealthState
    reasons: tuple[str, ...]
    smart: SmartReading
    needs_root: bool = False  # SMART itself was not read: only the fields without it


@dataclass(frozen=True)
class ScrubInfo:
    """A ZFS pool's last scrub (from ``zpool status``)."""

    state: str  # "finished", "in_progress", "canceled", "none"
    ended: float | None = None  # epoch seconds of its end, when zpool says
    errors: int | None = None  # errors it could not repair
    age_days: float | None = None


@dataclass(frozen=True)
class DeviceErrors:
    """A btrfs device's error counters (``btrfs device stats``)."""

    device: str
    write_io_errs: int
    read_io_errs: int
    flush_io_errs: int
    corruption_errs: int
    generation_errs: int

    @property
    def total(self) -> int:
        return (self.write_io_errs + self.read_io_errs + self.flush_io_errs
                + self.corruption_errs + self.generation_errs)  # fmt: skip


@dataclass(frozen=True)
class PoolHealth:
    name: str  # "tank", "md0", a btrfs label or uuid
    kind: str  # "zfs", "btrfs", "md"
    state: HealthState
    reasons: tuple[str, ...]
    scrub: ScrubInfo | None = None  # zfs
    device_errors: tuple[DeviceErrors, ...] = ()  # btrfs
    mismatch_cnt: int | None = None  # md: sectors found different by the last check


@dataclass(frozen=True)
class HealthReport:
    hostname: str
    collected_at: float  # epoch seconds
    disks: tuple[DiskHealth, ...]
    pools: tuple[PoolHealth, ...]
    notes: tuple[str, ...] = field(default=())  # what could not be read at all, and why

    @property
    def state(self) -> HealthState:
        states = [d.state for d in self.disks] + [p.state for p in self.pools]
        return max(states, key=lambda s: s.rank, default=HealthState.OK)


def _already_listed(reason: str, problems: tuple[Problem, ...]) -> bool:
    # a pool's health repeats core/health's problems (state, vdev errors, fullness),
    # which core/health.find_problems reports already (the Problems tab lists them)
    return any(p.message and p.message in reason for p in problems)


def health_problems(
    report: HealthReport, problems: tuple[Problem, ...]
) -> list[tuple[HealthState, str, str]]:
    """(state, subject, reasons) of each warning or critical disk and pool, worst first."""
    items: list[tuple[HealthState, str, str]] = []
    for disk in report.disks:
        if disk.state in (HealthState.WARNING, HealthState.CRITICAL):
            model = f" ({disk.model})" if disk.model else ""
            items.append((disk.state, f"disk {disk.name}{model}", "; ".join(disk.reasons)))
    for pool in report.pools:
        if pool.state not in (HealthState.WARNING, HealthState.CRITICAL):
            continue
        reasons = [r for r in pool.reasons if not _already_listed(r, problems)]
        if reasons:
            items.append((pool.state, f"{pool.kind} {pool.name}", "; ".join(reasons)))
    return sorted(items, key=lambda item: -item[0].rank)
