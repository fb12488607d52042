"""md arrays: /proc/mdstat texts published online, plus sysfs trees per md.rst
(tests/fixtures/md)."""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tierdeck.backends.host import RecordedHost
from tierdeck.backends.md import parse_mdstat, read_md
from tierdeck.core.errors import ParseError
from tierdeck.core.models import MdArray, MdMember

from tests.mutations import Edit, apply_edits, edits

from ...paths import FIXTURES as ALL_FIXTURES

FIXTURES = ALL_FIXTURES / "md"
TEXTS = {p.name: p.read_text() for p in sorted(FIXTURES.glob("*.mdstat"))}


def parse(name: str) -> dict[str, MdArray]:
    return {a.name: a for a in parse_mdstat(TEXTS[name])}


def in_sync(*names: str) -> tuple[MdMember, ...]:
    return tuple(MdMember(n, None, "in_sync") for n in names)


def test_raid5_recovery() -> None:
    (md,) = parse_mdstat(TEXTS["pymdstat-05-raid5-recovery.mdstat"])
    assert md == MdArray(
        name="md127",
        level="raid5",
        state="active",
        # A member is being rebuilt and mdstat does not say which: none claimed in sync.
        members=tuple(
            MdMember(n, None, "active") for n in ("sdh1", "sdg1", "sdf1", "sde1", "sdd1", "sdc1")
        ),
        raid_disks=6,
        active_disks=5,
        size_bytes=1464725760 * 1024,
        sync_action="recover",
        sync_progress=12.6,
        sync_eta="finish=127.5min",
        sync_speed="speed=33440K/sec",
        bitmap=None,
        metadata_version="0.90",
    )
    assert md.degraded


def test_partitionable_raid5_with_bitmap() -> None:
    md = parse("pymdstat-02-raid5-bitmap.mdstat")["md_d0"]
    assert (md.level, md.metadata_version, md.bitmap) == ("raid5", "1.2", "internal")
    assert (md.raid_disks, md.active_disks, md.degraded) == (5, 5, False)
    assert md.size_bytes == 1250241792 * 1024
    assert md.members == in_sync("sde1", "sdf1", "sdb1", "sdd1", "sdc1")


def test_failed_member_and_degraded_raid1() -> None:
    md = parse("pymdstat-07-raid1-failed.mdstat")["md1"]
    assert md.members == (
        MdMember("sde1", None, "faulty"),
        *in_sync("sdg1", "sdb1", "sdd1", "sdc1"),
    )
    assert (md.raid_disks, md.active_disks, md.degraded) == (6, 4, True)
    assert md.sync_action is None


def test_raid10_failed_member() -> None:
    md = parse("dz-raid-raid10-failed.mdstat")["md0"]
    assert (md.level, md.raid_disks, md.active_disks) == ("raid10", 4, 3)
    assert md.members == (MdMember("sde", None, "faulty"), *in_sync("sdd", "sdc", "sdb"))


def test_inactive_arrays() -> None:
    arrays = parse("pymdstat-09-inactive-spares.mdstat")
    assert list(arrays) == ["md0", "md1", "md2"]
    md2 = arrays["md2"]
    assert (md2.state, md2.level, md2.size_bytes, md2.metadata_version) == (
        "inactive",
        "",
        None,
        None,
    )
    assert md2.members == tuple(MdMember(n, None, "spare") for n in ("sdb", "sdc", "sdd", "sda"))
    md127 = parse("pymdstat-11-inactive-no-level.mdstat")["md127"]
    assert md127.metadata_version == "1.2"
    assert md127.members == (
        MdMember("sda", None, "active"),
        MdMember("sdb", None, "active"),
        MdMember("sdc", None, "spare"),
    )


def test_check_and_delayed_resync() -> None:
    arrays = parse("centreon-18-check-delayed.mdstat")
    assert list(arrays) == ["md1", "md2", "md0"]
    md2 = arrays["md2"]
    assert (md2.sync_action, md2.sync_progress, md2.sync_eta, md2.sync_speed) == (
        "check",
        42.0,
        "finish=1236.1min",
        "speed=15131K/sec",
    )
    assert md2.metadata_version == "1.0"
    for name in ("md1", "md0"):
        md = arrays[name]
        assert (md.sync_action, md.sync_progress, md.sync_eta) == ("resync", None, "resync=DELAYED")


def test_resync_two_space_indent() -> None:
    md2 = parse("monitoring-plugins-55-resync.mdstat")["md2"]
    assert (md2.sync_action, md2.sync_progress, md2.size_bytes) == (
        "resync",
        51.4,
        1942498240 * 1024,
    )


def test_raid4_reshape() -> None:
    md = parse("pymdstat-13-raid4-reshape.mdstat")["md127"]
    assert (md.level, md.sync_action, md.sync_progress, md.active_disks) == (
        "raid4",
        "reshape",
        2.1,
        3,
    )


def test_raid6_check_with_bitmap() -> None:
    md = parse("librenms-agent-415-raid6-check.mdstat")["md127"]
    assert (md.sync_action, md.sync_progress, md.bitmap, md.raid_disks) == (
        "check",
        40.4,
        "internal",
        10,
    )


def test_raid0_has_no_counts() -> None:
    arrays = parse("pymdstat-10-raid0-chunks.mdstat")
    md126 = arrays["md126"]
    assert (md126.level, md126.raid_disks, md126.active_disks) == ("raid0", None, None)
    assert md126.size_bytes == 999948288 * 1024
    assert md126.members == in_sync("nvme0n1", "nvme1n1")
    assert arrays["md128"].bitmap == "internal"
    assert arrays["md129"].bitmap is None


def test_unindented_and_old_style_texts() -> None:
    arrays = parse("pymdstat-15-unindented-raid6.mdstat")
    assert [(a.name, a.level, a.raid_disks) for a in arrays.values()] == [
        ("md3", "raid6", 8),
        ("md2", "raid6", 8),
        ("md1", "raid1", 8),
        ("md0", "raid1", 8),
    ]
    assert arrays["md3"].size_bytes == 17581481472 * 1024
    old = parse("pr8kerl-blog-recovery.mdstat")
    assert list(old) == ["md1", "md3", "md4"]
    assert (old["md3"].sync_action, old["md3"].sync_progress) == ("recover", 99.1)
    assert old["md4"].metadata_version == "0.90"


def test_write_mostly_member() -> None:
    md1 = parse("filviu-blog-writemostly-resync.mdstat")["md1"]
    assert md1.members == (
        MdMember("sdd", None, "in_sync,write_mostly"),
        MdMember("md0", None, "in_sync"),
    )
    assert (md1.sync_action, md1.sync_progress, md1.bitmap) == ("resync", 51.2, "internal")


@pytest.mark.parametrize(
    "text",
    [
        "hello",
        "md0 : broken raid1 sda[0]",
        "md0 : active raid1 sda[x]",
        "md0 : active raid1 sda1[0] (F)",
        "   12345 blocks [2/2] [UU]",
    ],
)
def test_garbage_raises_parse_error(text: str) -> None:
    with pytest.raises(ParseError):
        parse_mdstat(text)


def test_no_arrays() -> None:
    assert parse_mdstat("Personalities : \nunused devices: <none>\n") == ()
    assert parse_mdstat("") == ()


def test_sysfs_recovery() -> None:
    arrays, notes = read_md(RecordedHost(FIXTURES / "recovery-host"))
    assert notes == ()
    md1, md3, md4 = arrays
    assert (md1.state, md1.sync_action, md1.bitmap) == ("clean", "idle", "none")
    assert md1.members == (MdMember("sdb1", 1, "in_sync"), MdMember("sda1", 0, "in_sync"))
    assert md3 == MdArray(
        name="md3",
        level="raid1",
        state="active",
        members=(MdMember("sdb3", 1, "spare"), MdMember("sda3", 0, "in_sync")),
        raid_disks=2,
        active_disks=1,
        size_bytes=9775488 * 1024,
        sync_action="recover",
        sync_progress=99.1,  # 19379072 / 19550976 sectors
        sync_eta="finish=0.0min",
        sync_speed="speed=72936K/sec",
        bitmap="none",
        metadata_version="0.90",
    )
    assert (md4.level, md4.state, md4.raid_disks, md4.sync_action, md4.bitmap) == (
        "raid0",
        "clean",
        2,
        None,
        None,
    )


def test_sysfs_write_mostly_and_internal_bitmap() -> None:
    (md1, md0), _ = read_md(RecordedHost(FIXTURES / "writemostly-host"))
    assert md1.members == (MdMember("sdd", 1, "in_sync,writemostly"), MdMember("md0", 0, "in_sync"))
    assert (md1.bitmap, md1.metadata_version, md1.sync_progress) == ("internal", "1.2", 51.2)
    assert md0.members == (MdMember("sdc", 1, "in_sync"), MdMember("sdb", 0, "in_sync"))


def test_sysfs_faulty_member_has_no_slot() -> None:
    (md0,), _ = read_md(RecordedHost(FIXTURES / "faulty-host"))
    assert md0.members[0] == MdMember("sde", None, "faulty")
    assert [m.slot for m in md0.members[1:]] == [2, 1, 0]
    assert (md0.state, md0.sync_action, md0.degraded) == ("clean", "idle", True)


def test_sysfs_member_missing_from_mdstat_is_added(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "faulty-host", tmp_path / "h")
    new = tmp_path / "h/root/sys/block/md0/md/dev-sdf"
    new.mkdir()
    (new / "state").write_text("spare\n")
    (new / "slot").write_text("none\n")
    (md0,), _ = read_md(RecordedHost(tmp_path / "h"))
    assert md0.members[-1] == MdMember("sdf", None, "spare")


def test_no_md_driver(tmp_path: Path) -> None:
    (tmp_path / "host.json").write_text("{}")
    assert read_md(RecordedHost(tmp_path)) == ((), ())


def test_unparsable_mdstat_becomes_note(tmp_path: Path) -> None:
    (tmp_path / "root/proc").mkdir(parents=True)
    (tmp_path / "root/proc/mdstat").write_text("hello\n")
    (tmp_path / "host.json").write_text("{}")
    arrays, (note,) = read_md(RecordedHost(tmp_path))
    assert arrays == () and note.source == "md"


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_random_text_parses_or_raises_parse_error(text: str) -> None:
    with contextlib.suppress(ParseError):
        parse_mdstat(text)


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(sorted(TEXTS)),
    edits(max_pos=10**5, max_insert=4, max_edits=6),
)
def test_mutated_fixtures_parse_or_raise_parse_error(name: str, changes: list[Edit]) -> None:
    text = apply_edits(TEXTS[name], changes)
    try:
        for md in parse_mdstat(text):
            assert md.sync_progress is None or 0 <= md.sync_progress <= 100
    except ParseError:
        pass
