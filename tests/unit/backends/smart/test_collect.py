"""smartctl through the real subprocess path: a shim `smartctl` on PATH replays real
documents (tests/shims/smart/mixed) and writes down how it was called."""

from __future__ import annotations

from pathlib import Path

import pytest
from tierdeck.app.health.collect import collect_health
from tierdeck.backends.host import LiveHost
from tierdeck.backends.smart.collect import read_devices, scan
from tierdeck.backends.smart.scan import SmartTarget, plan_targets, target_name
from tierdeck.core.disk_health import HealthState

from tests.smart_shims import shim_calls, use_smart_scenario

EXPECTED = {
    "sda": HealthState.OK,
    "sdb": HealthState.ASLEEP,
    "sdc": HealthState.CRITICAL,  # SMART FAILED, pending and reallocated sectors
    "sdd": HealthState.OK,  # SAS
    "sde": HealthState.UNKNOWN,  # a RAID volume
    "sdf": HealthState.UNKNOWN,  # a USB bridge that passes no SMART
    "nvme0": HealthState.OK,
    "nvme1": HealthState.CRITICAL,  # media errors
    "nvme2": HealthState.OK,  # 75 % worn: below the 80 % default
    "bus/0:megaraid,0": HealthState.OK,  # a disk behind a RAID controller
}


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    return use_smart_scenario(monkeypatch, "mixed", tmp_path)


def test_every_scanned_disk_is_read_with_its_type_and_never_woken(calls: Path) -> None:
    host = LiveHost()
    scanned, failure = scan(host)
    assert failure is None
    targets = plan_targets(host, scanned, ())
    answers = read_devices(host, targets)
    found = {a.target.name: a for a in answers}
    assert set(found) == set(EXPECTED)
    assert all(a.document is not None for a in answers), [a.failure for a in answers]
    assert found["sdb"].document is not None and found["sdb"].document.low_power_mode == "STANDBY"
    device_calls = [c for c in shim_calls(calls) if "--scan-open" not in c]
    assert len(device_calls) == len(EXPECTED)
    # -n standby, and the scan's -d type: smartctl's own detection could wake a disk
    for call in device_calls:
        assert call[:4] == ["--json", "-n", "standby", "-a"] and call[4] == "-d", call


def test_health_states_and_reasons_end_to_end(calls: Path) -> None:
    report = collect_health(LiveHost())
    states = {d.name: d.state for d in report.disks if d.name in EXPECTED}
    assert states == EXPECTED
    by_name = {d.name: d for d in report.disks}
    assert "8 pending sectors" in by_name["sdc"].reasons
    assert "SMART overall-health check FAILED" in by_name["sdc"].reasons
    assert "7 media errors" in by_name["nvme1"].reasons
    assert by_name["sdf"].reasons[0].startswith("USB bridge does not pass SMART")
    assert by_name["sdb"].reasons == ("in standby: not read, so as not to wake it",)
    assert report.state is HealthState.CRITICAL


def test_a_missing_smartctl_says_so(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert scan(LiveHost()) == ([], "smartctl is not installed (smartmontools >= 7)")


def test_names_for_controllers_and_nvme() -> None:
    host = LiveHost()
    assert target_name(host, "/dev/bus/0", "megaraid,3") == "bus/0:megaraid,3"
    assert target_name(host, "/dev/sda", "sat+megaraid,0") == "sda:megaraid,0"
    assert target_name(host, "/dev/sdb", "sat") == "sdb"
    assert SmartTarget("sda", "/dev/sda", None).device_type is None
