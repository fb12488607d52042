"""smartctl's JSON read into SMART figures: real documents (tests/fixtures/smart/), and
garbage that must never raise."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from tierdeck.backends.smart.collect import _split
from tierdeck.backends.smart.reading import read_document, read_text
from tierdeck.backends.smart.scan import parse_scan

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "smart"


def doc(name: str):  # type: ignore[no-untyped-def]
    document = read_text((FIXTURES / name).read_text())
    assert document is not None
    return document


def test_an_ata_disk_reports_its_attributes() -> None:
    d = doc("ata-st16000nm001g-healthy.json")
    r = d.reading
    assert (d.model, d.protocol) == ("ST16000NM001G-2KK103", "ATA")
    assert r.passed is True and r.temperature_c == 26
    assert (r.reallocated_sectors, r.pending_sectors, r.offline_uncorrectable, r.crc_errors) == (
        0,
        0,
        0,
        0,
    )
    assert r.bytes_written == 385165652077 * 512  # Total_LBAs_Written x logical block
    assert r.percentage_used is None  # a hard disk has no wear indicator


def test_a_failing_disk_behind_a_usb_bridge() -> None:
    d = doc("ata-usbjmicron-hds721050-failing.json")
    assert d.device_type == "usbjmicron"
    assert d.reading.passed is False
    assert (d.reading.reallocated_sectors, d.reading.pending_sectors) == (1975, 8)


def test_an_ata_ssd_wear_from_its_attribute() -> None:
    # Samsung's Wear_Leveling_Count counts down from 100
    assert doc("ata-ssd-samsung860evo.json").reading.percentage_used == 19


def test_nvme_health_log() -> None:
    r = doc("nvme-970evo-media-errors.json").reading
    assert (r.percentage_used, r.available_spare_pct, r.available_spare_threshold_pct) == (
        3,
        99,
        10,
    )
    assert (r.media_errors, r.unsafe_shutdowns, r.critical_warning) == (7, 10, 0)
    assert r.bytes_written == 65602088 * 512_000
    assert r.power_on_hours == 12798


def test_sas_grown_defects_and_bytes_written() -> None:
    d = doc("sas-st1200mm0088.json")
    assert d.protocol == "SCSI"
    assert d.reading.grown_defects == 0
    assert d.reading.bytes_written == 806_827_000_000
    assert d.reading.reallocated_sectors is None


def test_a_raid_volume_has_no_smart_and_a_zero_temperature_is_no_reading() -> None:
    d = doc("raid-volume-intel.json")
    assert d.model == "Intel Raid 1 Volume"
    assert not d.has_data and d.reading.temperature_c is None


def test_standby_is_told_apart_from_a_failed_open() -> None:
    assert doc("standby-sda-transcribed.json").low_power_mode == "STANDBY"
    vda = doc("vm-virtio-vda.json")
    assert vda.low_power_mode is None and not vda.has_data
    assert vda.messages == ("/dev/vda: Unable to detect device type",)


def test_not_json_is_none() -> None:
    assert read_text("smartctl 6.6 2016-05-31 r4324\n=======> UNRECOGNIZED OPTION: json") is None


def test_scan_of_a_megaraid_controller_lists_each_disk() -> None:
    found = parse_scan((FIXTURES / "scan-megaraid.json").read_text())
    assert found == [("/dev/bus/0", "megaraid,0", None), ("/dev/bus/0", "megaraid,1", None)]
    assert parse_scan((FIXTURES / "vm-scan-open.json").read_text()) == []


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=5)
    ),
    max_leaves=30,
)


def _mutated(name: str, key_path: list[str], value: object) -> object:
    document = json.loads((FIXTURES / name).read_text())
    node = document
    for key in key_path[:-1]:
        node = node.setdefault(key, {}) if isinstance(node, dict) else node
    if isinstance(node, dict):
        node[key_path[-1]] = value
    return document


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_any_json_value_reads_without_raising(value: object) -> None:
    read_document(value)
    parse_scan(json.dumps(value))


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(["ata-ssd-samsung860evo.json", "nvme-970evo-media-errors.json",
                     "sas-st1200mm0088.json", "megaraid0-wd4000fyyx.json"]),
    st.sampled_from([["smart_status", "passed"], ["temperature", "current"],
                     ["ata_smart_attributes", "table"], ["nvme_smart_health_information_log"],
                     ["smartctl", "messages"], ["smartctl", "exit_status"], ["power_on_time"],
                     ["ata_device_statistics", "pages"], ["scsi_error_counter_log", "write"],
                     ["ata_smart_self_test_log", "standard"], ["logical_block_size"]]),
    json_values,
)  # fmt: skip
def test_a_real_document_with_one_part_replaced_by_garbage(
    name: str, key_path: list[str], value: object
) -> None:
    read_document(_mutated(name, key_path, value))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300), st.integers(min_value=0, max_value=5))
def test_a_broken_batch_output_is_split_without_raising(text: str, count: int) -> None:
    found = _split(text, count)
    assert set(found) <= set(range(count))
