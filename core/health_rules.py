"""The rules that turn SMART readings and pool counters into a state and its reasons.

Defaults follow what monitoring projects use, each cited where it is defined:

* the drive's own verdict (SMART overall-health FAILED) is critical, as smartd's ``-H``
  reports it;
* reallocated (ATA 5), pending (197) and offline-uncorrectable (198) sectors: any is a
  warning, as smartd's default ``-C 197 -U 198`` reports any non-zero count; Scrutiny
  lists the three among its critical attributes (from Backblaze's failure data), so
  pending or uncorrectable sectors past ``sectors_critical`` are critical;
* UDMA CRC errors (199) are a warning: the cable or backplane, not the medium (Scrutiny
  does not count 199 as critical);
* NVMe: a critical warning bit, spare below the drive's own threshold and media errors
  are critical (NVMe base specification; Scrutiny's critical attributes
  ``critical_warning``, ``available_spare``, ``media_errors``); wear (percentage used)
  warns from 80 % and is critical at 100 %, the rated endurance the NVMe specification
  defines 100 as;
* temperature: the drive's own warning/critical limits when it reports them (NVMe
  WCTEMP/CCTEMP); otherwise 50 °C / 60 °C, under the 60-65 °C operating maximum that the
  data sheets of common NAS hard disks give;
* a failed last self-test is critical (smartd ``-l selftest`` reports it);
* SAS grown defects: any is a warning, as for ATA reallocations;
* ZFS: a scrub that left errors is critical, one older than 35 days a warning (TrueNAS's
  default scrub task threshold); md: a non-zero ``mismatch_cnt`` after a check is a
  warning (mdadm's checkarray cron job reports it); btrfs: any device error counter is a
  warning, corruption errors critical.

All of these are :class:`Thresholds` fields, so a user can set their own.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from .disk_health import DeviceErrors, HealthState, ScrubInfo, SmartReading


@dataclass(frozen=True)
class Thresholds:
    temperature_warning_c: int = 50
    temperature_critical_c: int = 60
    nvme_temperature_warning_c: int = 70  # when the drive gives no limits of its own
    nvme_temperature_critical_c: int = 80
    wear_warning_pct: int = 80
    wear_critical_pct: int = 100
    sectors_warning: int = 1  # reallocated, pending, offline uncorrectable
    sectors_critical: int = 10  # pending or offline uncorrectable
    crc_warning: int = 1
    grown_defects_warning: int = 1
    scrub_age_warning_days: int = 35
    md_mismatch_warning: int = 1
    # a cache SSD forecast to reach its rated wear sooner: time to order its successor
    cache_wear_warning_months: int = 6

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))


@dataclass
class Verdict:
    """Reasons gathered with their severity; the state is the worst of them."""

    critical: list[str]
    warning: list[str]

    @classmethod
    def empty(cls) -> Verdict:
        return cls([], [])

    def state(self, fallback: HealthState = HealthState.OK) -> HealthState:
        if self.critical:
            return HealthState.CRITICAL
        if self.warning:
            return HealthState.WARNING
        return fallback

    def reasons(self) -> tuple[str, ...]:
        return (*self.critical, *self.warning)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _temperature(reading: SmartReading, nvme: bool, limits: Thresholds, out: Verdict) -> None:
    temp = reading.temperature_c
    if temp is None:
        return
    warn = reading.temperature_warning_c or (
        limits.nvme_temperature_warning_c if nvme else limits.temperature_warning_c
    )
    crit = reading.temperature_critical_c or (
        limits.nvme_temperature_critical_c if nvme else limits.temperature_critical_c
    )
    if temp >= crit:
        out.critical.append(f"{temp} °C")
    elif temp >= warn:
        out.warning.append(f"{temp} °C")


def _sectors(reading: SmartReading, limits: Thresholds, out: Verdict) -> None:
    for count, word, can_be_critical in (
        (reading.pending_sectors, "pending sector", True),
        (reading.offline_uncorrectable, "offline uncorrectable sector", True),
        (reading.reallocated_sectors, "reallocated sector", False),
    ):
        if count is None or count < limits.sectors_warning:
            continue
        text = _plural(count, word)
        if can_be_critical and count >= limits.sectors_critical:
            out.critical.append(text)
        else:
            out.warning.append(text)
    if reading.crc_errors is not None and reading.crc_errors >= limits.crc_warning:
        out.warning.append(f"{_plural(reading.crc_errors, 'CRC error')} (cable or backplane)")


def _nvme(reading: SmartReading, limits: Thresholds, out: Verdict) -> None:
    if reading.critical_warning:
        out.critical.append(f"NVMe critical warning 0x{reading.critical_warning:02x}")
    spare, floor = reading.available_spare_pct, reading.available_spare_threshold_pct
    if spare is not None and floor is not None and spare < floor:
        out.critical.append(f"spare {spare} % below the drive's {floor} %")
    if reading.media_errors:
        out.critical.append(_plural(reading.media_errors, "media error"))
    used = reading.percentage_used
    if used is not None:
        if used >= limits.wear_critical_pct:
            out.critical.append(f"wear {used} %")
        elif used >= limits.wear_warning_pct:
            out.warning.append(f"wear {used} %")


def judge_disk(reading: SmartReading, *, nvme: bool, limits: Thresholds) -> Verdict:
    """The reasons a disk that was read deserves attention."""
    out = Verdict.empty()
    if reading.passed is False:
        out.critical.append("SMART overall-health check FAILED")
    if reading.self_test_passed is False:
        out.critical.append(f"last self-test failed ({reading.self_test or 'no detail'})")
    _nvme(reading, limits, out)
    _sectors(reading, limits, out)
    _temperature(reading, nvme, limits, out)
    if reading.grown_defects is not None and reading.grown_defects >= limits.grown_defects_warning:
        out.warning.append(_plural(reading.grown_defects, "grown defect"))
    return out


def judge_scrub(scrub: ScrubInfo | None, limits: Thresholds, out: Verdict) -> None:
    if scrub is None or scrub.state == "none":
        out.warning.append("never scrubbed")
        return
    if scrub.errors:
        out.critical.append(f"last scrub left {_plural(scrub.errors, 'error')}")
    if scrub.age_days is not None and scrub.age_days > limits.scrub_age_warning_days:
        out.warning.append(f"last scrub {scrub.age_days:.0f} days ago")


def judge_btrfs_errors(devices: tuple[DeviceErrors, ...], out: Verdict) -> None:
    for dev in devices:
        if dev.corruption_errs:
            out.critical.append(f"{dev.device}: {_plural(dev.corruption_errs, 'corruption error')}")
        rest = dev.total - dev.corruption_errs
        if rest:
            out.warning.append(f"{dev.device}: {_plural(rest, 'I/O error')}")


def judge_mismatch(mismatch: int | None, limits: Thresholds, out: Verdict) -> None:
    if mismatch is not None and mismatch >= limits.md_mismatch_warning:
        out.warning.append(f"mismatch_cnt {mismatch} after the last check")
