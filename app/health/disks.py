"""A disk's health from what smartctl answered (or why it could not be asked)."""

from __future__ import annotations

from ...backends.smart.collect import SmartAnswer
from ...backends.smart.reading import EXIT_OPEN_FAILED_OR_ASLEEP, DeviceDocument
from ...backends.smart.scan import SmartTarget
from ...core.disk_health import DiskHealth, HealthState, SmartReading
from ...core.health_rules import Thresholds, judge_disk
from ...core.models import Disk

NEEDS_ROOT = "SMART not readable without root"
_VIRTUAL_TRANSPORTS = ("virtio", "xen")


def _usb(target: SmartTarget, disk: Disk | None) -> bool:
    return (disk is not None and disk.transport == "usb") or (target.device_type or "").startswith(
        "usb"
    )


def _unreadable_reason(target: SmartTarget, doc: DeviceDocument, disk: Disk | None) -> str:
    """Why a device gave no SMART figures, in words a NAS admin can act on."""
    text = "; ".join(doc.messages)
    lower = text.lower()
    if "permission denied" in lower or "operation not permitted" in lower:
        return NEEDS_ROOT
    if "usb bridge" in lower or (_usb(target, disk) and doc.smart_available is not True):
        return (
            f"USB bridge does not pass SMART ({text})" if text else "USB bridge does not pass SMART"
        )
    if disk is not None and disk.transport in _VIRTUAL_TRANSPORTS:
        # a virtual machine's disk: the hypervisor passes no SMART through it
        return f"{disk.transport} virtual disk: no SMART to read ({text or 'no answer'})"
    if doc.smart_available is False:
        return "the device has no SMART (smartctl: SMART support unavailable)"
    if text:
        return f"smartctl: {text}"
    status = f"; smartctl exit status {doc.exit_status}" if doc.exit_status else ""
    return f"no SMART data reported (a RAID volume or a bridge hides the disks behind it{status})"


def _identity(doc: DeviceDocument | None, disk: Disk | None) -> tuple[str | None, str | None]:
    model = (doc.model if doc else None) or (disk.model if disk else None)
    serial = (doc.serial if doc else None) or (disk.serial if disk else None)
    return model, serial


def _health(
    target: SmartTarget,
    doc: DeviceDocument | None,
    disk: Disk | None,
    state: HealthState,
    reasons: tuple[str, ...],
    smart: SmartReading | None = None,
    *,
    needs_root: bool = False,
) -> DiskHealth:
    model, serial = _identity(doc, disk)
    return DiskHealth(
        name=target.name,
        device=target.device,
        device_type=(doc.device_type if doc and doc.device_type else target.device_type),
        protocol=doc.protocol if doc else None,
        model=model,
        serial=serial,
        state=state,
        reasons=reasons,
        smart=smart or SmartReading(),
        needs_root=needs_root,
    )


def without_root(target: SmartTarget, disk: Disk | None, temperature: int | None,
                 limits: Thresholds) -> DiskHealth:  # fmt: skip
    """What anyone may read (sysfs: model, serial, a hwmon temperature): never "ok"."""
    smart = SmartReading(temperature_c=temperature)
    nvme = target.name.startswith("nvme")
    verdict = judge_disk(smart, nvme=nvme, limits=limits)
    state = verdict.state(fallback=HealthState.UNKNOWN)
    return _health(target, None, disk, state, (*verdict.reasons(), NEEDS_ROOT), smart,
                   needs_root=True)  # fmt: skip


def unknown(target: SmartTarget, disk: Disk | None, reason: str) -> DiskHealth:
    return _health(target, None, disk, HealthState.UNKNOWN, (reason,))


def from_answer(answer: SmartAnswer, disk: Disk | None, limits: Thresholds) -> DiskHealth:
    target, doc = answer.target, answer.document
    if doc is None:
        return unknown(target, disk, answer.failure or "smartctl gave no answer")
    if doc.low_power_mode is not None:
        mode = doc.low_power_mode.lower()
        return _health(target, doc, disk, HealthState.ASLEEP,
                       (f"in {mode}: not read, so as not to wake it",))  # fmt: skip
    if not doc.has_data:
        reason = _unreadable_reason(target, doc, disk)
        return _health(target, doc, disk, HealthState.UNKNOWN, (reason,),
                       needs_root=reason == NEEDS_ROOT)  # fmt: skip
    verdict = judge_disk(doc.reading, nvme=doc.protocol == "NVMe", limits=limits)
    if doc.reading.passed is None and not verdict.critical:
        # figures without the drive's verdict (a bridge that passes attributes only)
        state = verdict.state(fallback=HealthState.UNKNOWN)
        reasons = (*verdict.reasons(), "no overall-health verdict from the drive")
        return _health(target, doc, disk, state, reasons, doc.reading)
    if doc.exit_status is not None and doc.exit_status & EXIT_OPEN_FAILED_OR_ASLEEP:
        verdict.warning.append(
            "smartctl: " + "; ".join(doc.messages or ("could not open it fully",))
        )
    return _health(target, doc, disk, verdict.state(), verdict.reasons(), doc.reading)
