"""The devices whose -d type sysfs makes certain are read while smartctl's scan runs, and
an early answer counts only where the scan's plan makes that very call.

A recorded machine's sysfs (a SATA disk, one on USB, a SAS one, NVMe ...) with smartctl
run for real: a shim on PATH whose ``--scan-open`` answers only once a device call has
arrived (or after its own wait, writing SCAN-ALONE down), so a test sees the overlap
without timing anything."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest
from tierdeck.app.health.collect import collect
from tierdeck.backends.host import RecordedHost
from tierdeck.backends.host.seam import HostCapabilities
from tierdeck.backends.smart.scan import SmartTarget, certain_targets

from tests.paths import FIXTURES
from tests.support.live_smartctl import LiveSmartctl
from tests.support.recording import HostRecording

_TB = 10**12
_SHIM = r"""#!/bin/sh
d="$SMART_SHIM_DIR"
case " $* " in
  *" --scan-open "*)
    n=0
    until grep -q -- "-n standby" "$d/calls" 2>/dev/null; do
      n=$((n + 1)); [ "$n" -gt "${SMART_SHIM_WAIT:-300}" ] && { echo SCAN-ALONE >> "$d/calls"; break; }
      sleep 0.1
    done
    printf '%s\n' "$*" >> "$d/calls"
    exec cat "$d/scan.json";;
esac
printf '%s\n' "$*" >> "$d/calls"
exec cat "$d/disk.json"
"""
# what the scan answers: sdd's INQUIRY says ATA, yet the scan's type is scsi; sde is
# not listed (the inventory's plan asks it without a type)
_SCANNED = [
    ("/dev/sda", "sat"),
    ("/dev/sdb", "sat"),  # on USB: its bridge's type, never guessed
    ("/dev/sdc", "scsi"),
    ("/dev/sdd", "scsi"),
    ("/dev/nvme0", "nvme"),
]


def _machine(folder: Path) -> Path:
    rec = HostRecording(folder)
    rec.add_disk("sda", 4 * _TB, True, model="WDC WD140EDFZ-11A0VA0", vendor="ATA", serial="A1")
    rec.add_disk("sdb", 4 * _TB, True, model="ST4000", vendor="ATA", serial="B1", transport="usb")
    rec.add_disk("sdc", _TB, True, model="ST1200MM0088", vendor="SEAGATE", serial="C1",
                 transport="sas")  # fmt: skip
    rec.add_disk("sdd", 4 * _TB, True, model="WDC WD140EDFZ", vendor="ATA", serial="D1",
                 transport="sas")  # fmt: skip
    rec.add_disk("sde", 4 * _TB, True, model="WDC WD140EDFZ", vendor="ATA", serial="E1")
    rec.add_disk("nvme0n1", _TB, False, model="Force MP510", serial="N1", transport="nvme")
    rec.set_file("/sys/class/nvme/nvme0/nvme0n1/size", "1953525168\n")
    return rec.write()


@pytest.fixture
def shim(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    answers = tmp_path / "smart"
    answers.mkdir()
    scan = json.loads((FIXTURES / "smart" / "vm-scan-open.json").read_text())
    scan["devices"] = [{"name": n, "info_name": n, "type": t, "protocol": "ATA"}
                       for n, t in _SCANNED]  # fmt: skip
    (answers / "scan.json").write_text(json.dumps(scan))
    disk = FIXTURES / "smart" / "ata-wd140edfz-healthy.json"
    (answers / "disk.json").write_text(disk.read_text())
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "smartctl").write_text(_SHIM)
    (bin_dir / "smartctl").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("SMART_SHIM_DIR", str(answers))
    return answers / "calls"


def test_only_types_sysfs_makes_certain(tmp_path: Path) -> None:
    host = RecordedHost(_machine(tmp_path / "nas"))
    assert certain_targets(host) == [
        SmartTarget("sda", "/dev/sda", "sat"),
        SmartTarget("sdd", "/dev/sdd", "sat"),  # a SATA disk behind a SAS HBA
        SmartTarget("sde", "/dev/sde", "sat"),
        SmartTarget("nvme0n1", "/dev/nvme0", "nvme"),
    ]  # not sdb (USB: its bridge decides) nor sdc (SAS)


def test_certain_devices_are_read_while_the_scan_runs(shim: Path, tmp_path: Path) -> None:
    report, _ = collect(LiveSmartctl(_machine(tmp_path / "nas")))
    lines = shim.read_text().splitlines()
    assert "SCAN-ALONE" not in lines  # a device call came while the scan waited
    scan_at = lines.index("--json --scan-open")
    early = lines[:scan_at]
    assert early and all(line.split()[-1] in ("/dev/sda", "/dev/sdd", "/dev/sde", "/dev/nvme0")
                         for line in early)  # fmt: skip
    device_calls = [line for line in lines if line != "--json --scan-open"]
    assert all(line.startswith("--json -n standby -a ") for line in device_calls)
    # each planned call made once; sdd (the scan says scsi) and sde (not scanned: no
    # type) asked again as the plan asks them, their early answers dropped
    assert sorted(device_calls) == sorted([
        "--json -n standby -a -d sat /dev/sda",
        "--json -n standby -a -d sat /dev/sdb",
        "--json -n standby -a -d scsi /dev/sdc",
        "--json -n standby -a -d sat /dev/sdd",
        "--json -n standby -a -d scsi /dev/sdd",
        "--json -n standby -a -d sat /dev/sde",
        "--json -n standby -a /dev/sde",
        "--json -n standby -a -d nvme /dev/nvme0",
    ])  # fmt: skip
    assert [d.name for d in report.disks] == ["sda", "sdb", "sdc", "sdd", "nvme0n1", "sde"]


def test_a_host_over_ssh_reads_nothing_early(
    shim: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Remote(LiveSmartctl):
        @property
        def capabilities(self) -> HostCapabilities:
            return replace(super().capabilities, cheap_reads=False)

    monkeypatch.setenv("SMART_SHIM_WAIT", "2")  # no device call will come: wait 0.2 s
    collect(Remote(_machine(tmp_path / "nas")))
    lines = shim.read_text().splitlines()
    assert lines[0] == "SCAN-ALONE" and lines[1] == "--json --scan-open"
