"""Kept health readings with fixed dates and figures for the disk charts' tests, filed
under the serials of tests/fixtures/smart's documents as the mixed recording of
test_health_snapshots.py gives them to its disks."""

from __future__ import annotations

from pathlib import Path

from tierdeck.app.history.health_readings import disk_id
from tierdeck.app.history.store import HistoryStore
from tierdeck.backends.host import RecordedHost
from tierdeck.core.cache_wear import DAY_S, HealthReading

from tests.support.smart_recording import smart_recording

START = 1_756_684_800.0  # 2025-09-01 00:00 UTC
WEEK = 7 * DAY_S
TRENDED = {
    "sda": "ata-wd140edfz-healthy.json",  # ten weeks: pending sectors 0 -> 3
    "sdb": "ata-usbjmicron-hds721050-failing.json",  # one reading
    "sdc": "nvme-intel-p4510-worn75.json",  # ten weeks: wear 70 -> 75 %
}
HDD = disk_id("9RK1XXXX")
ONCE = disk_id("MSK423Y20S3HBC")
NVME = disk_id("REDACTED")
HDD_TEMPS = (31, 33, 34, 36, 35, 38, 40, 39, 37, 32)
HDD_PENDING = (0, 0, 0, 0, 0, 2, 2, 3, 3, 3)
NVME_TEMPS = (24, 22, 21, 25, 27, 26, 23, 20, 19, 19)
NVME_WEAR = (70, 70, 71, 72, 72, 73, 74, 74, 75, 75)


def trend_readings() -> list[HealthReading]:
    hdd = [
        HealthReading(HDD, START + i * WEEK, "sda", "ok" if p == 0 else "warning", temp,
                      1000 + i * 168, None, None, p, 0)
        for i, (temp, p) in enumerate(zip(HDD_TEMPS, HDD_PENDING, strict=True))
    ]  # fmt: skip
    nvme = [
        HealthReading(NVME, START + i * WEEK, "sdc", "ok", temp, 30_000 + i * 168,
                      10**15 + i * 10**13, wear, None, None)
        for i, (temp, wear) in enumerate(zip(NVME_TEMPS, NVME_WEAR, strict=True))
    ]  # fmt: skip
    once = [HealthReading(ONCE, START + 9 * WEEK, "sdb", "critical", 25, 40_000, None, None, 8, 2)]
    return hdd + nvme + once


def trend_host(folder: Path) -> RecordedHost:
    """The recorded NAS of three disks, its readings kept in this test's history."""
    HistoryStore().save_health(trend_readings(), "nas")
    return RecordedHost(smart_recording(folder, TRENDED))
