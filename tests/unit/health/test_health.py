"""Health states from recorded hosts: non-root, thresholds, pools."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tierdeck.app.health.collect import collect_health
from tierdeck.app.health.config import ThresholdsError, load_thresholds
from tierdeck.backends.host import RecordedHost
from tierdeck.backends.pool_health import parse_device_stats, scrub_info
from tierdeck.core.disk_health import HealthState
from tierdeck.core.health_rules import Thresholds
from tierdeck.core.models import ScanStatus, ZPool

from tests.support.smart_recording import smart_recording


def test_without_root_readable_fields_are_shown_and_nothing_is_ok(tmp_path: Path) -> None:
    folder = smart_recording(tmp_path / "nas", {"sda": "ata-wd140edfz-healthy.json"}, is_root=False)
    report = collect_health(RecordedHost(folder))
    (disk,) = report.disks
    assert disk.state is HealthState.UNKNOWN
    assert disk.needs_root and "SMART not readable without root" in disk.reasons
    assert (disk.model, disk.serial) == ("WDC WD140EDFZ-11A0VA0", "9RK1XXXX")
    assert disk.smart.passed is None


def test_thresholds_are_configurable(tmp_path: Path) -> None:
    folder = smart_recording(tmp_path / "nas", {"sdb": "nvme-intel-p4510-worn75.json"})
    assert collect_health(RecordedHost(folder)).disks[0].state is HealthState.OK
    limits = Thresholds(wear_warning_pct=70)
    (disk,) = collect_health(RecordedHost(folder), limits).disks
    assert (disk.state, disk.reasons) == (HealthState.WARNING, ("wear 75 %",))


def test_a_thresholds_file_is_read_and_a_typo_refused(tmp_path: Path) -> None:
    good = tmp_path / "health.toml"
    good.write_text("[thresholds]\nwear_warning_pct = 70\ntemperature_warning_c = 45\n")
    assert load_thresholds(good) == Thresholds(wear_warning_pct=70, temperature_warning_c=45)
    bad = tmp_path / "bad.toml"
    bad.write_text("[thresholds]\nwear_warn_pct = 70\n")
    with pytest.raises(ThresholdsError, match="unknown threshold wear_warn_pct"):
        load_thresholds(bad)
    bad.write_text("[thresholds]\nwear_warning_pct = '70'\n")
    with pytest.raises(ThresholdsError, match="whole number"):
        load_thresholds(bad)


def _pool(scan: str) -> ZPool:
    return ZPool("tank", "ONLINE", (), scan=ScanStatus("scrub", "finished", scan))


def test_zfs_scrub_age_and_errors_from_zpools_words() -> None:
    text = "scrub repaired 0B in 00:00:01 with 2 errors on Sun Nov  6 10:00:01 2022"
    ended = time.mktime(time.strptime("Sun Nov 6 10:00:01 2022", "%a %b %d %H:%M:%S %Y"))
    info = scrub_info(_pool(text), now=ended + 40 * 86400)
    assert (info.errors, round(info.age_days or 0)) == (2, 40)
    assert scrub_info(ZPool("t", "ONLINE", ()), now=0).state == "none"


def test_btrfs_device_stats_command_output() -> None:
    text = ("[/dev/sdb].write_io_errs    0\n[/dev/sdb].read_io_errs     3\n"
            "[/dev/sdb].flush_io_errs    0\n[/dev/sdb].corruption_errs  1\n"
            "[/dev/sdb].generation_errs  0\n")  # fmt: skip
    (dev,) = parse_device_stats(text)
    assert (dev.device, dev.read_io_errs, dev.corruption_errs, dev.total) == ("/dev/sdb", 3, 1, 4)


def test_the_big_nas_pools_report_their_scrubs() -> None:
    from tests.support.large_host import build_large_host

    report = None
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        report = collect_health(RecordedHost(build_large_host(Path(tmp) / "nas", disks=24, zpools=2,
                                                              mergerfs_pools=1)))  # fmt: skip
    zfs = [p for p in report.pools if p.kind == "zfs"]
    assert len(zfs) == 2 and all(p.scrub is not None and p.scrub.state == "finished" for p in zfs)
    assert all(p.scrub is not None and p.scrub.ended is not None for p in zfs)


def test_md_mismatch_count_after_a_check(tmp_path: Path) -> None:
    from tierdeck.backends.pool_health import md_mismatch
    from tierdeck.core.health_rules import Verdict, judge_mismatch
    from tierdeck.core.models import MdArray

    from tests.support.recording import HostRecording

    rec = HostRecording(tmp_path / "h")
    rec.set_file("/sys/block/md0/md/mismatch_cnt", "128\n")
    host = RecordedHost(rec.write())
    assert md_mismatch(host, MdArray("md0", "raid1", "clean", ())) == 128
    assert md_mismatch(host, MdArray("md1", "raid1", "clean", ())) is None
    verdict = Verdict.empty()
    judge_mismatch(128, Thresholds(), verdict)
    assert verdict.warning == ["mismatch_cnt 128 after the last check"]


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_any_scan_or_stats_text_reads_without_raising(text: str) -> None:
    scrub_info(_pool(text), now=time.time())
    parse_device_stats(text)


def test_the_big_nas_smart_answers_are_plausible(tmp_path: Path) -> None:
    from tierdeck.app.health.disks import from_answer
    from tierdeck.backends.smart.collect import SmartAnswer
    from tierdeck.backends.smart.reading import read_text
    from tierdeck.backends.smart.scan import SmartTarget, parse_scan

    from tests.support.large_host import large_host_asleep, write_smartctl_answers
    from tests.support.recording import sd_name

    folder = write_smartctl_answers(tmp_path, disks=48)
    assert len(parse_scan((folder / "scan.json").read_text())) == 48
    asleep = [sd_name(i) for i in large_host_asleep(48)]
    assert (folder / "asleep").read_text().split() == asleep and len(asleep) == 12
    states = {}
    for path in sorted((folder / "disks").iterdir()):
        doc = read_text(path.read_text())
        answer = SmartAnswer(SmartTarget(path.stem, f"/dev/{path.stem}", "sat"), doc)
        states[path.stem] = from_answer(answer, None, Thresholds())
    worn = {n for n, h in states.items() if h.state is not HealthState.OK}
    assert worn == {sd_name(7), sd_name(47)}  # every 40th disk from the 8th
    assert states["sdh"].reasons == ("3 pending sectors",)


def test_without_root_a_hwmon_temperature_is_still_judged(tmp_path: Path) -> None:
    from tests.support.recording import HostRecording

    rec = HostRecording(tmp_path / "h", is_root=False)
    rec.add_disk("sda", 4 * 10**12, True, model="WDC WD180EDGZ-11B2DA0", serial="3GJ1")
    # drivetemp's hwmon sits in the SCSI device's folder, where /sys/block/sda/device points
    device = "/sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0"
    rec.set_file(f"{device}/hwmon/hwmon3/temp1_input", "63000\n")
    (disk,) = collect_health(RecordedHost(rec.write())).disks
    assert disk.smart.temperature_c == 63
    assert disk.state is HealthState.CRITICAL
    assert disk.reasons == ("63 °C", "SMART not readable without root")


def test_the_dashboards_reading_of_an_inventory_agrees_with_the_command() -> None:
    """health_of (the dashboard's: the inventory already on screen) and collect_health
    (`tierdeck health`: the inventory read alongside) judge the demo NAS alike."""
    from tierdeck.app.health.collect import health_of
    from tierdeck.app.machine.demo import load_demo_host
    from tierdeck.app.machine.inventory import collect_inventory

    host = load_demo_host()
    now = time.time()
    dashboard = health_of(host, collect_inventory(host), now=now)
    assert dashboard == collect_health(host, now=now)
    states = {d.name: d.state for d in dashboard.disks}
    assert states == {
        "sdc": HealthState.OK,
        "sdd": HealthState.ASLEEP,
        "sde": HealthState.OK,
        "nvme0n1": HealthState.CRITICAL,
        "sda": HealthState.UNKNOWN,
        "sdb": HealthState.UNKNOWN,
    }
