"""`tierdeck health` and `tierdeck check` on recorded hosts whose disks answer with real
smartctl documents."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.support.smart_recording import smart_recording
from tests.unit.cli_support import run

SMART_KEYS = [
    "passed", "temperature_c", "power_on_hours", "reallocated_sectors", "pending_sectors",
    "offline_uncorrectable", "crc_errors", "percentage_used", "available_spare_pct",
    "media_errors", "bytes_written",
]  # fmt: skip


def test_health_json_has_the_documented_shape(tmp_path: Path) -> None:
    folder = smart_recording(tmp_path / "nas", {"sda": "ata-st16000nm001g-healthy.json",
                                                "sdb": "standby-sda-transcribed.json"})  # fmt: skip
    result = run("health", "--json", "--recorded", str(folder))
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["schema"] == "tierdeck.health/1"
    assert {"disks", "pools", "cache_wear"} <= set(doc)
    sda, sdb = doc["disks"]
    assert list(sda)[:6] == ["name", "model", "serial", "state", "reasons", "smart"]
    assert list(sda["smart"])[: len(SMART_KEYS)] == SMART_KEYS
    assert (sda["name"], sda["state"], sda["smart"]["temperature_c"]) == ("sda", "ok", 26)
    assert (sdb["state"], sdb["smart"]["passed"]) == ("asleep", None)


@pytest.mark.parametrize(
    ("fixture", "thresholds", "code", "word"),
    [
        ("ata-st16000nm001g-healthy.json", "", 0, "OK"),
        ("standby-sda-transcribed.json", "", 0, "OK"),  # asleep is fine
        ("nvme-intel-p4510-worn75.json", "wear_warning_pct = 70", 1, "WARNING"),
        ("ata-usbjmicron-hds721050-failing.json", "", 2, "CRITICAL"),
        ("raid-volume-intel.json", "", 3, "UNKNOWN"),
    ],
)
def test_check_exit_status_for_each_state(
    tmp_path: Path, fixture: str, thresholds: str, code: int, word: str
) -> None:
    folder = smart_recording(tmp_path / "nas", {"sda": fixture})
    limits = tmp_path / "limits.toml"
    limits.write_text(f"[thresholds]\n{thresholds}\n")
    result = run("check", "--recorded", str(folder), "--thresholds", str(limits))
    assert result.exit_code == code, result.output
    (line,) = result.output.splitlines()
    assert line.startswith(f"TIERDECK {word} - ")


def test_check_writes_a_prometheus_file_that_parses(tmp_path: Path) -> None:
    folder = smart_recording(tmp_path / "nas", {"sda": "ata-usbjmicron-hds721050-failing.json",
                                                "sdb": "nvme-970evo-media-errors.json"})  # fmt: skip
    out = tmp_path / "textfile" / "tierdeck.prom"
    out.parent.mkdir()
    result = run("check", "--recorded", str(folder), "--prometheus", str(out))
    assert result.exit_code == 2
    families = {f.name: f for f in text_string_to_metric_families(out.read_text())}
    states = {s.labels["disk"]: s.value for s in families["tierdeck_disk_health_state"].samples}
    assert states == {"sda": 4, "sdb": 4}
    pending = {s.labels["disk"]: s.value for s in families["tierdeck_disk_pending_sectors"].samples}
    assert pending == {"sda": 8}  # an NVMe disk has no such figure: no sample, not 0
    assert families["tierdeck_check_status"].samples[0].value == 2
    assert [p.name for p in out.parent.iterdir()] == ["tierdeck.prom"]  # no temp file left


def test_check_that_cannot_run_is_unknown(tmp_path: Path) -> None:
    assert run("check", "--no-such-option").exit_code == 3
    bad = tmp_path / "limits.toml"
    bad.write_text("[thresholds]\nnope = 1\n")
    assert run("check", "--demo", "--thresholds", str(bad)).exit_code == 3


def test_check_of_an_unreachable_host_is_unknown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # no ssh config: the name resolves nowhere
    result = run("check", "--host", "tierdeck-no-such-host.invalid")
    assert result.exit_code == 3, result.output
    assert result.output.splitlines()[-1] == "TIERDECK UNKNOWN - the host could not be reached"
    assert run("check", "--demo", "--recorded", str(tmp_path)).exit_code == 3  # exclusive


def _kept_rows() -> int:
    from tierdeck.app.history.paths import default_history_path

    path = default_history_path()
    if not path.exists():
        return 0
    with sqlite3.connect(path) as db:
        return int(db.execute("SELECT count(*) FROM health_readings").fetchone()[0])


def test_check_keeps_readings_only_when_asked(tmp_path: Path) -> None:
    """The layout's health timer runs check alone: --keep-readings keeps what `health`
    keeps, so the trends and the wear forecast go on; a plain check keeps nothing."""
    folder = smart_recording(tmp_path / "nas", {"sda": "ata-st16000nm001g-healthy.json",
                                                "sdb": "nvme-intel-p4510-worn75.json"})  # fmt: skip
    assert run("check", "--recorded", str(folder)).exit_code == 0
    assert _kept_rows() == 0
    result = run("check", "--recorded", str(folder), "--keep-readings")
    assert result.exit_code == 0, result.output
    kept = _kept_rows()
    assert kept > 0
    assert run("health", "--recorded", str(folder)).exit_code == 0
    assert _kept_rows() == 2 * kept  # the rows `health` keeps, no other
    assert run("check", "--demo", "--keep-readings").exit_code in (0, 1, 2, 3)
    assert _kept_rows() == 2 * kept  # the demo keeps none, as `health --demo`
