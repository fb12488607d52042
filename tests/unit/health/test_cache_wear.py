"""Health readings kept in the history file, and the cache wear forecast from them, on
recorded hosts whose disks answer with real smartctl documents."""

from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest
from tierdeck.app.health.check import wear_items
from tierdeck.app.health.collect import collect
from tierdeck.app.health.render import health_to_dict, render_health_text
from tierdeck.app.health.wear import cache_branches, host_cache_wear
from tierdeck.app.history.health_readings import disk_id, readings_of
from tierdeck.app.history.readings_file import keep, kept
from tierdeck.app.history.store import HistoryStore
from tierdeck.backends.host import RecordedHost
from tierdeck.core.cache_wear import DAY_S, forecast
from tierdeck.core.disk_health import HealthReport, HealthState
from tierdeck.core.health_rules import Thresholds

from tests.support.smart_recording import smart_recording
from tests.unit.cli_support import run
from tests.unit.history.older_files import older_history

T0 = 1_780_000_000.0
DOCS = Path(__file__).resolve().parents[3] / "docs" / "health-json.md"
P4510 = "nvme-intel-p4510-worn75.json"  # 75 % used, 2,567,435,299,328,000 bytes written


def _host(tmp_path: Path, name: str = "nvme0n1") -> RecordedHost:
    disks = {name: P4510, "sda": "ata-wd140edfz-healthy.json"}
    return RecordedHost(smart_recording(tmp_path / name, disks, pool=[name, "sda"]))


def _earlier(report: HealthReport, used: int, written_less: int, days: float) -> HealthReport:
    """The same collection ``days`` before, when the SSD had ``used`` % wear and had
    written ``written_less`` bytes fewer."""
    disks = []
    for d in report.disks:
        s = d.smart
        if s.percentage_used is not None and s.bytes_written is not None:
            d = replace(d, smart=replace(s, percentage_used=used,
                                         bytes_written=s.bytes_written - written_less))  # fmt: skip
        disks.append(d)
    return replace(report, collected_at=report.collected_at - days * DAY_S, disks=tuple(disks))


def test_readings_are_kept_per_disk_by_serial_and_read_back_in_time_order(
    tmp_path: Path, data_dir: Path
) -> None:
    store = HistoryStore()
    later, _ = collect(_host(tmp_path, "nvme1n1"), now=T0 + 3 * DAY_S)  # renamed since
    first, _ = collect(_host(tmp_path), now=T0)
    assert store.save_health(readings_of(later), "id-1") == 2
    assert store.save_health(readings_of(first), "id-1") == 2
    assert store.save_health(readings_of(first), "id-1") == 0  # the same instant: kept once
    key = disk_id("REDACTED")
    readings = store.health_readings(key)
    assert [(r.t, r.name, r.percentage_used, r.state) for r in readings] == [
        (T0, "nvme0n1", 75, "ok"),
        (T0 + 3 * DAY_S, "nvme1n1", 75, "ok"),
    ]
    assert readings[0].bytes_written == 2_567_435_299_328_000
    assert (readings[0].power_on_hours, readings[0].temperature_c) == (49441, 19)
    (hdd,) = store.health_readings(disk_id("9RK1XXXX"), since=T0 + DAY_S)
    assert (hdd.pending_sectors, hdd.reallocated_sectors, hdd.percentage_used) == (0, 0, None)


def test_forecast_from_two_readings_with_known_dates_and_wear(
    tmp_path: Path, data_dir: Path
) -> None:
    host = _host(tmp_path)
    report, inv = collect(host, now=T0 + 60 * DAY_S)
    store = HistoryStore()
    store.save_health(readings_of(_earlier(report, 73, 6 * 10**12, days=60)))
    store.save_health(readings_of(report))
    assert cache_branches(host, inv) == ("/mnt/nvme0n1",)  # the pool's first branch
    (wear,) = host_cache_wear(host, report, inv, store.health_readings)
    assert (wear.disk, wear.branch, wear.readings, wear.days_covered) == (
        "nvme0n1", "/mnt/nvme0n1", 2, 60.0)  # fmt: skip
    # 2 % in 60 days: 1.01 % a month, 25 % left
    assert wear.wear_pct_per_month == pytest.approx(2 / 60 * 30.44)
    assert wear.months_to_rated_wear == pytest.approx(25 / (2 / 60 * 30.44))
    assert wear.recent_write_bytes_per_day == pytest.approx(10**11)
    assert wear.lifetime_write_bytes_per_day == pytest.approx(2_567_435_299_328_000 / 49441 * 24)
    assert wear.basis == "wear rose from 73 % to 75 % in 60 days"
    text = render_health_text(report, [wear])
    assert ("/mnt/nvme0n1 (nvme0n1): reaches 100 % rated wear in about 25 months at the "
            "current rate (wear rose from 73 % to 75 % in 60 days)") in text  # fmt: skip
    # the check warns under its threshold, which health.toml sets
    (item,) = wear_items([wear], Thresholds())
    assert item.state is HealthState.OK
    (item,) = wear_items([wear], Thresholds(cache_wear_warning_months=30))
    assert item.state is HealthState.WARNING
    assert item.reasons[0].startswith("reaches 100 % rated wear in about 24.6 months")


def test_the_rates_are_the_last_90_days(tmp_path: Path, data_dir: Path) -> None:
    host = _host(tmp_path)
    report, inv = collect(host, now=T0 + 400 * DAY_S)
    store = HistoryStore()
    store.save_health(readings_of(_earlier(report, 40, 9 * 10**14, days=400)))  # left out
    store.save_health(readings_of(_earlier(report, 73, 6 * 10**12, days=60)))
    (wear,) = host_cache_wear(host, report, inv, store.health_readings)
    assert (wear.readings, wear.basis) == (2, "wear rose from 73 % to 75 % in 60 days")
    later, _ = collect(host, now=T0 + 600 * DAY_S)  # alone in its 90 days: the one before
    (wear,) = host_cache_wear(host, later, inv, store.health_readings)
    assert (wear.readings, wear.days_covered) == (2, 260.0)  # from day 340


def test_unchanged_wear_is_scaled_by_the_recent_write_rate(tmp_path: Path, data_dir: Path) -> None:
    host = _host(tmp_path)
    report, inv = collect(host, now=T0 + 10 * DAY_S)
    store = HistoryStore()
    store.save_health(readings_of(_earlier(report, 75, 10**12, days=10)))
    (wear,) = host_cache_wear(host, report, inv, store.health_readings)
    per_byte = 75 / 2_567_435_299_328_000
    assert wear.wear_pct_per_month == pytest.approx(per_byte * 10**11 * 30.44)
    assert wear.basis.startswith("wear unchanged at 75 % over 10 days; its lifetime wear")


def test_one_reading_or_no_wear_attribute_is_unknown(tmp_path: Path, data_dir: Path) -> None:
    host = _host(tmp_path)
    report, inv = collect(host, now=T0)
    (wear,) = host_cache_wear(host, report, inv, HistoryStore().health_readings)
    assert (wear.months_to_rated_wear, wear.wear_pct_per_month, wear.readings) == (None, None, 1)
    assert wear.basis.startswith("unknown: 1 reading kept; the wear rate needs two")
    assert wear.lifetime_write_bytes_per_day is not None and wear.recent_write_bytes_per_day is None
    assert "forecast unknown: 1 reading kept" in render_health_text(report, [wear])
    (item,) = wear_items([wear], Thresholds())
    assert item.state is HealthState.OK  # a new install is no alarm
    hdd = readings_of(report)[1]  # the disk reports no wear attribute
    later = replace(hdd, t=hdd.t + 30 * DAY_S)
    wear = forecast("/mnt/sda", "sda", "9RK1XXXX", None, [hdd, later])
    assert wear.months_to_rated_wear is None
    assert wear.basis == "unknown: the drive reports no wear attribute (percentage used)"


def test_the_v9_history_is_migrated_keeping_its_runs(tmp_path: Path) -> None:
    from tests.unit.history.test_history import recorded_result

    path = tmp_path / "history.sqlite3"
    (run_id,) = older_history(path, 9, [recorded_result()])
    report, _ = collect(_host(tmp_path), now=T0)
    assert kept(path, disk_id("REDACTED")) == []  # read through the store: migrated
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 10
    assert conn.execute("SELECT count(*) FROM health_readings").fetchone()[0] == 0
    conn.close()
    assert HistoryStore(path).get(run_id) is not None
    keep(path, readings_of(report), "id-1")  # at this version: sqlite3 alone
    later = replace(report, collected_at=T0 + DAY_S)
    keep(path, readings_of(later), "id-1")
    assert [r.t for r in kept(path, disk_id("REDACTED"))] == [T0, T0 + DAY_S]
    older = tmp_path / "older.sqlite3"
    older_history(older, 8, [])
    keep(older, readings_of(report), "")  # an older file: the store migrates it first
    assert [r.t for r in HistoryStore(older).health_readings(disk_id("9RK1XXXX"))] == [T0]
    assert not kept(tmp_path / "none.sqlite3", "serial:x")
    assert not (tmp_path / "none.sqlite3").exists()  # reading makes no file


def test_health_json_cache_wear_keys_are_documented(tmp_path: Path, data_dir: Path) -> None:
    host = _host(tmp_path)
    report, inv = collect(host, now=T0)
    doc = health_to_dict(report, host_cache_wear(host, report, inv, None))
    (wear,) = doc["cache_wear"]
    documented = DOCS.read_text(encoding="utf-8")
    block = documented[documented.index("Cache wear:") :]
    assert list(wear) == re.findall(r'^  "(\w+)":', block, re.M)[: len(wear)]
    assert (wear["disk"], wear["percentage_used"], wear["months_to_rated_wear"]) == (
        "nvme0n1", 75, None)  # fmt: skip
    json.dumps(doc)


def test_health_keeps_its_readings_unless_told_not_to(tmp_path: Path, data_dir: Path) -> None:
    folder = smart_recording(tmp_path / "nas", {"nvme0n1": P4510}, pool=["nvme0n1"])
    assert run("health", "--json", "--no-save", "--recorded", str(folder)).exit_code == 0
    assert HistoryStore().health_readings(disk_id("REDACTED")) == []
    result = run("health", "--json", "--recorded", str(folder))
    assert result.exit_code == 0, result.output
    assert len(HistoryStore().health_readings(disk_id("REDACTED"))) == 1
    assert "readings" in run("health", "--help").output


def test_check_warns_when_a_cache_ssd_has_fewer_months_left_than_set(
    tmp_path: Path, data_dir: Path
) -> None:
    import time

    folder = smart_recording(tmp_path / "nas", {"nvme0n1": P4510, "sda": "ata-wd140edfz-healthy.json"},
                             pool=["nvme0n1", "sda"])  # fmt: skip
    report, _ = collect(RecordedHost(folder), now=time.time())
    HistoryStore().save_health(readings_of(_earlier(report, 73, 6 * 10**12, days=60)))
    result = run("check", "--recorded", str(folder))
    assert (result.exit_code, result.output.strip()) == (
        0,
        "TIERDECK OK - 2 disks, 0 pools, the wear of 1 cache SSD",
    )
    limits = tmp_path / "health.toml"
    limits.write_text("[thresholds]\ncache_wear_warning_months = 30\n")
    prom = tmp_path / "tierdeck.prom"
    result = run("check", "--recorded", str(folder), "--thresholds", str(limits),
                 "--prometheus", str(prom))  # fmt: skip
    assert result.exit_code == 1, result.output
    from prometheus_client.parser import text_string_to_metric_families

    families = {f.name: f for f in text_string_to_metric_families(prom.read_text())}
    (sample,) = families["tierdeck_cache_wear_months_left"].samples
    assert sample.labels == {"branch": "/mnt/nvme0n1", "disk": "nvme0n1"}
    assert sample.value == pytest.approx(24.6, abs=0.05)
    assert result.output.startswith("TIERDECK WARNING - cache wear /mnt/nvme0n1 (nvme0n1): "
                                    "reaches 100 % rated wear in about 24.6 months")  # fmt: skip
    assert (
        HistoryStore().health_readings(disk_id("REDACTED"))[-1].t < report.collected_at
    )  # kept none


def test_the_benchmarks_share_of_the_recent_writes(tmp_path: Path, data_dir: Path) -> None:
    from tierdeck.app.history.paths import default_history_path
    from tierdeck.app.history.readings_file import benchmark_writes
    from tierdeck.core.bench_models import BenchTarget, RunHost, TargetKind

    from tests.unit.history.test_history import recorded_result

    host = _host(tmp_path)
    report, inv = collect(host, now=T0 + 60 * DAY_S)
    store = HistoryStore()
    store.save_health(readings_of(_earlier(report, 73, 6 * 10**12, days=60)))
    target = BenchTarget("/mnt/nvme0n1/bench", TargetKind.BRANCH, "branch /mnt/nvme0n1",
                         ("nvme0n1",), "ext4", "/mnt/nvme0n1")  # fmt: skip
    run = recorded_result(
        target=target, started_at=T0 + DAY_S, host=RunHost("smartnas", host.identity)
    )
    store.save(run)
    store.save(replace(run, started_at=T0 - DAY_S))  # before the window: not counted
    store.save(replace(run, host=RunHost("other", "ssh:other")))  # another machine's
    fio_bytes = round(sum(s.write.bw_bytes_per_s * s.interval_s for s in run.series))
    assert fio_bytes > 0
    path = default_history_path()

    def written(mountpoint: str, since: float, until: float) -> int | None:
        return benchmark_writes(path, host.identity, mountpoint, since, until)

    (wear,) = host_cache_wear(host, report, inv, store.health_readings, written=written)
    assert wear.benchmark_bytes_written == pytest.approx(fio_bytes, rel=1e-6)
    assert wear.benchmark_write_share == pytest.approx(fio_bytes / (6 * 10**12))
    assert health_to_dict(report, [wear])["cache_wear"][0]["benchmark_bytes_written"] > 0
    (alone,) = host_cache_wear(host, report, inv, None, written=written)  # one reading
    assert alone.benchmark_write_share is None
