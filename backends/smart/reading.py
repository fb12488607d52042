"""One ``smartctl --json -a`` document read into a :class:`SmartReading`.

smartctl's JSON (smartmontools 7.0+) keeps the same keys as its text output grows:
``smart_status.passed``, ``temperature.current``, ``power_on_time.hours``; for ATA the
attribute table ``ata_smart_attributes.table`` (id, name, normalized ``value``,
``raw.value``), the self-test log and, with ``-x``, the device statistics; for NVMe
``nvme_smart_health_information_log``; for SCSI/SAS ``scsi_grown_defect_list`` and
``scsi_error_counter_log``.

smartctl's exit status is a bit mask (smartctl(8), "RETURN VALUES"): bit 0 the command
line, bit 1 the device could not be opened *or is in a low-power mode* (with ``-n``),
bit 2 a SMART command failed, bit 3 the disk is failing, bits 4-7 attributes and logs.
So a document with bit 1 set is either a sleeping disk (its message says which mode)
or one that could not be read, and its message says why.

Every value is checked for its type: a document from a broken bridge or a newer
smartctl gives None for what it does not hold, never an exception (hypothesis tests).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ...core.disk_health import SmartReading

EXIT_OPEN_FAILED_OR_ASLEEP = 0x02
EXIT_DISK_FAILING = 0x08
# "Device is in STANDBY mode, exit(2)", "... in SLEEP mode ...", "... in STANDBY BY
# COMMAND mode ..." (smartctl 7.4 names the SCSI power condition too)
_LOW_POWER_RE = re.compile(r"\bDevice is in (\w+(?: \w+)*?) mode\b", re.IGNORECASE)
_NVME_UNIT_BYTES = 512_000  # NVMe "data units" are thousands of 512-byte blocks
_MAX_INT = 2**63  # larger than any counter a disk keeps: garbage beyond it is dropped
# ATA attributes (smartmontools' drivedb names); wear indicators count down from 100
_WEAR_ATTRIBUTES = {
    177: "Wear_Leveling_Count",
    231: "SSD_Life_Left",
    233: "Media_Wearout_Indicator",
}
_WRITTEN_UNITS = {  # attribute name -> bytes per raw unit
    "Total_LBAs_Written": None,  # the logical block size
    "Host_Writes_32MiB": 32 * 1024 * 1024,
    "Host_Writes_GiB": 1024**3,
    "Lifetime_Writes_GiB": 1024**3,
}


@dataclass(frozen=True)
class DeviceDocument:
    """What one smartctl call said about a device, besides the SMART figures."""

    exit_status: int | None
    messages: tuple[str, ...]  # smartctl's own messages (errors and information)
    low_power_mode: str | None  # "STANDBY", "SLEEP": the disk was not read
    model: str | None
    serial: str | None
    protocol: str | None  # "ATA", "NVMe", "SCSI"
    device_type: str | None  # "sat", "nvme", "sat+megaraid,0"
    smart_available: bool | None  # smart_support.available, when smartctl says
    has_data: bool  # any SMART figure at all was reported
    reading: SmartReading


def _int(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or not -_MAX_INT < value < _MAX_INT:
        return None
    return value


def _get(doc: Any, *path: str | int) -> Any:
    for key in path:
        if isinstance(key, int):
            if not isinstance(doc, list) or len(doc) <= key:
                return None
        elif not isinstance(doc, dict):
            return None
        doc = doc[key] if isinstance(key, int) else doc.get(key)
    return doc


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _str(value: Any) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


def _attributes(doc: dict[str, Any]) -> dict[int, dict[str, Any]]:
    table = _get(doc, "ata_smart_attributes", "table")
    found: dict[int, dict[str, Any]] = {}
    if isinstance(table, list):
        for row in table:
            ident = _int(_get(row, "id"))
            if ident is not None and isinstance(row, dict):
                found[ident] = row
    return found


def _raw(attrs: dict[int, dict[str, Any]], ident: int) -> int | None:
    raw = _int(_get(attrs.get(ident), "raw", "value"))
    return None if raw is None or raw < 0 else raw


def _ata_wear(doc: dict[str, Any], attrs: dict[int, dict[str, Any]]) -> int | None:
    # ACS device statistics page 7 "Percentage Used Endurance Indicator" (with -x)
    pages = _get(doc, "ata_device_statistics", "pages")
    for page in _list(pages):
        for row in _list(_get(page, "table")):
            if _get(row, "name") == "Percentage Used Endurance Indicator":
                value = _int(_get(row, "value"))
                if value is not None and 0 <= value <= 255:
                    return value
    for ident, name in _WEAR_ATTRIBUTES.items():
        row = attrs.get(ident)
        value = _int(_get(row, "value"))
        if (
            row is not None
            and _get(row, "name") == name
            and value is not None
            and 0 <= value <= 100
        ):
            return 100 - value
    return None


def _ata_written(doc: dict[str, Any], attrs: dict[int, dict[str, Any]]) -> int | None:
    block = _int(doc.get("logical_block_size")) or 512
    for row in attrs.values():
        name = _get(row, "name")
        if isinstance(name, str) and name in _WRITTEN_UNITS:
            raw = _int(_get(row, "raw", "value"))
            if raw is not None and raw >= 0:
                return raw * (_WRITTEN_UNITS[name] or block)
    return None


def _self_test(doc: dict[str, Any]) -> tuple[bool | None, str | None]:
    for path in (
        ("ata_smart_self_test_log", "extended", "table", 0),
        ("ata_smart_self_test_log", "standard", "table", 0),
        ("nvme_self_test_log", "table", 0),
    ):
        entry = _get(doc, *path)
        if isinstance(entry, dict):
            passed = _get(entry, "status", "passed")
            if passed is None:  # NVMe: self_test_result value 0 is "Completed without error"
                result = _int(_get(entry, "self_test_result", "value"))
                passed = None if result is None else result == 0
            text = _str(_get(entry, "status", "string")) or _str(
                _get(entry, "self_test_result", "string")
            )
            return (passed if isinstance(passed, bool) else None), text
    return None, None


def _non_medium(doc: dict[str, Any]) -> int | None:
    # the SCSI non-medium error log page; its key is not the same in every smartctl 7.x
    count = _int(_get(doc, "scsi_nonmedium_error", "count"))
    return count if count is not None else _int(doc.get("scsi_nonmedium_error_count"))


def _sas_written(doc: dict[str, Any]) -> int | None:
    text = _get(doc, "scsi_error_counter_log", "write", "gigabytes_processed")
    try:
        value = float(text) if isinstance(text, str) and len(text) < 30 else None
    except ValueError:
        return None
    return None if value is None or not 0 <= value < 1e12 else int(value * 1e9)


def read_document(doc: Any) -> DeviceDocument:
    """A parsed smartctl JSON document (anything json.loads gave) as a DeviceDocument."""
    if not isinstance(doc, dict):
        doc = {}
    messages = tuple(
        text
        for text in (_str(_get(m, "string")) for m in _list(_get(doc, "smartctl", "messages")))
        if text  # fmt: skip
    )
    exit_status = _int(_get(doc, "smartctl", "exit_status"))
    low_power = None
    if exit_status is not None and exit_status & EXIT_OPEN_FAILED_OR_ASLEEP:
        for text in messages:
            match = _LOW_POWER_RE.search(text)
            if match:
                low_power = match.group(1).upper()
    nvme = _get(doc, "nvme_smart_health_information_log")
    nvme = nvme if isinstance(nvme, dict) else {}
    attrs = _attributes(doc)
    temp = _int(_get(doc, "temperature", "current"))
    if temp is None:
        temp = _int(nvme.get("temperature"))
    if temp is not None and not 0 < temp < 150:
        temp = None  # RAID volumes and some bridges say 0: no sensor behind them
    passed = _get(doc, "smart_status", "passed")
    test_passed, test_text = _self_test(doc)
    units = _int(nvme.get("data_units_written"))
    written = units * _NVME_UNIT_BYTES if units is not None and units >= 0 else None
    if written is None:
        written = _ata_written(doc, attrs) if attrs else _sas_written(doc)
    reading = SmartReading(
        passed=passed if isinstance(passed, bool) else None,
        temperature_c=temp,
        power_on_hours=_int(_get(doc, "power_on_time", "hours")),
        reallocated_sectors=_raw(attrs, 5),
        pending_sectors=_raw(attrs, 197),
        offline_uncorrectable=_raw(attrs, 198),
        crc_errors=_raw(attrs, 199),
        percentage_used=_int(nvme.get("percentage_used")) if nvme else _ata_wear(doc, attrs),
        available_spare_pct=_int(nvme.get("available_spare")),
        available_spare_threshold_pct=_int(nvme.get("available_spare_threshold")),
        media_errors=_int(nvme.get("media_errors")),
        critical_warning=_int(nvme.get("critical_warning")),
        unsafe_shutdowns=_int(nvme.get("unsafe_shutdowns")),
        bytes_written=written,
        self_test_passed=test_passed,
        self_test=test_text,
        grown_defects=_int(doc.get("scsi_grown_defect_list")),
        non_medium_errors=_non_medium(doc),
        temperature_warning_c=_int(_get(doc, "nvme_composite_temperature_threshold", "warning")),
        temperature_critical_c=_int(_get(doc, "nvme_composite_temperature_threshold", "critical")),
    )
    available = _get(doc, "smart_support", "available")
    return DeviceDocument(
        exit_status=exit_status,
        messages=messages,
        low_power_mode=low_power,
        model=_str(doc.get("model_name")) or _str(doc.get("scsi_model_name")),
        serial=_str(doc.get("serial_number")),
        protocol=_str(_get(doc, "device", "protocol")),
        device_type=_str(_get(doc, "device", "type")),
        smart_available=available if isinstance(available, bool) else None,
        has_data=reading != SmartReading(),
        reading=reading,
    )


def read_text(text: str) -> DeviceDocument | None:
    """smartctl's stdout as a DeviceDocument; None when it is not JSON at all (a
    smartctl older than 7 prints its usage instead)."""
    try:
        return read_document(json.loads(text))
    except (ValueError, RecursionError):
        return None
