"""Ask smartctl about every disk of a host: one scan, then one call per device, several
at once (a bound keeps a 240-disk NAS from starting 240 processes together), each with
``-n standby`` so a sleeping disk is reported asleep instead of being spun up.

Everything goes through the host seam (``host.run``), so a remote host works alike.
Without root nothing is run: smartctl cannot open a disk then, and each disk gets only
what sysfs gives anyone (its temperature when a hwmon driver exposes it).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from ...core.errors import HostError, ToolMissing, ToolTimeout
from ..host import Host
from .reading import DeviceDocument, read_text
from .scan import SmartTarget, parse_scan

SMARTCTL = "smartctl"
MAX_PARALLEL = 32  # smartctl processes at once on one host
CALL_TIMEOUT = 30.0  # a disk behind a slow bridge can take seconds; a hung one is cut


@dataclass(frozen=True)
class SmartAnswer:
    target: SmartTarget
    document: DeviceDocument | None  # None: nothing usable came back
    failure: str | None = None  # why there is no document


def device_argv(target: SmartTarget) -> list[str]:
    argv = [SMARTCTL, "--json", "-n", "standby", "-a"]
    if target.device_type:
        argv += ["-d", target.device_type]
    return [*argv, target.device]


def scan(host: Host) -> tuple[list[tuple[str, str | None, str | None]], str | None]:
    """The devices ``--scan-open`` lists, and why there are none when it failed."""
    try:
        result = host.run([SMARTCTL, "--json", "--scan-open"], timeout=CALL_TIMEOUT)
    except ToolMissing:
        return [], "smartctl is not installed (smartmontools >= 7)"
    except HostError as exc:
        return [], f"smartctl --scan-open: {exc}"
    if not result.stdout.lstrip().startswith("{"):
        # smartctl 6 has no --json: it prints its usage and exits 1
        return [], "smartctl is older than 7 (no --json): install smartmontools >= 7"
    return parse_scan(result.stdout), None


def read_device(host: Host, target: SmartTarget) -> SmartAnswer:
    try:
        result = host.run(device_argv(target), timeout=CALL_TIMEOUT)
    except ToolTimeout:
        return SmartAnswer(target, None, f"smartctl gave no answer in {CALL_TIMEOUT:.0f} s")
    except HostError as exc:
        return SmartAnswer(target, None, str(exc))
    document = read_text(result.stdout)
    if document is None:
        detail = (result.stderr or result.stdout).strip().splitlines()
        why = detail[0] if detail else f"exit status {result.returncode}"
        return SmartAnswer(target, None, f"smartctl gave no JSON: {why[:200]}")
    return SmartAnswer(target, document)


def read_devices(host: Host, targets: list[SmartTarget]) -> list[SmartAnswer]:
    """Every target's answer, in the targets' order."""
    if not targets:
        return []
    workers = min(MAX_PARALLEL, len(targets))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="smartctl") as pool:
        return list(pool.map(lambda t: read_device(host, t), targets))


def hwmon_temperature(host: Host, disk: str) -> int | None:
    """The disk's temperature from sysfs (the drivetemp driver for SATA, the nvme
    driver's own hwmon), readable without root; None when neither is there."""
    base = f"/sys/block/{disk}/device"
    for folder in (f"{base}/hwmon", base):
        try:
            entries = [e for e in host.listdir(folder) if e.startswith("hwmon") and e != "hwmon"]
        except (OSError, HostError):
            continue
        for entry in entries:
            try:
                text = host.read_text(f"{folder}/{entry}/temp1_input").strip()
            except (OSError, HostError):
                continue
            if text.isascii() and text.lstrip("-").isdigit() and len(text) < 10:
                return round(int(text) / 1000)
    return None
