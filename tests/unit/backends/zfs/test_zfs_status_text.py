"""`zpool status` text -> ZPool trees, on real outputs (tests/fixtures/zfs/SOURCES.md)."""

from __future__ import annotations

from typing import Any

import pytest
from tierdeck.backends.zfs.inventory import parse_zpool_status_text
from tierdeck.core.errors import ParseError
from tierdeck.core.models import ScanStatus, Vdev, VdevClass, VdevKind, ZPool

from ....paths import FIXTURES as ALL_FIXTURES

FIXTURES = ALL_FIXTURES / "zfs" / "status-text"

D, F, M = VdevKind.DISK, VdevKind.FILE, VdevKind.MISSING


def load(name: str) -> tuple[ZPool, ...]:
    return parse_zpool_status_text((FIXTURES / name).read_text())


def one(name: str) -> ZPool:
    pools = load(name)
    assert len(pools) == 1
    return pools[0]


def shape(v: Vdev) -> tuple[Any, ...]:
    """(name, kind, state, (read, write, cksum), note, [children])"""
    counters = (v.read_errors, v.write_errors, v.checksum_errors)
    return (v.name, v.kind, v.state, counters, v.note, [shape(c) for c in v.children])


def leaf(name: str, state: str = "ONLINE", note: str | None = None, kind: VdevKind = D,
         counters: tuple[int, int, int] = (0, 0, 0)) -> tuple[Any, ...]:  # fmt: skip
    return (name, kind, state, counters, note, [])


def test_every_fixture_parses() -> None:
    for path in sorted(FIXTURES.iterdir()):
        assert parse_zpool_status_text(path.read_text()), path.name


def test_seed000_nas_cache_mirror() -> None:
    pool = one("seed000-cache-mirror.txt")
    assert (pool.name, pool.state, pool.errors) == ("cache", "ONLINE", "No known data errors")
    assert [shape(v) for v in pool.vdevs] == [
        ("mirror-0", VdevKind.MIRROR, "ONLINE", (0, 0, 0), None,
         [leaf("sdb"), leaf("nvme0n1")]),
    ]  # fmt: skip
    assert pool.scan == ScanStatus(
        function="resilver",
        state="finished",
        text="resilvered 12.0M in 0 days 00:00:00 with 0 errors on Thu Nov  3 23:34:42 2022",
    )
    assert (pool.logs, pool.cache, pool.spares, pool.special, pool.dedup) == ((),) * 5
    assert pool.status is None and pool.action is None


def test_seed001_file_vdevs_are_files() -> None:
    pool = one("seed001-test-file-mirror.txt")
    assert pool.name == "test"
    mirror = pool.vdevs[0]
    assert [shape(c) for c in mirror.children] == [
        leaf("/tmp/disks/rust.bin", kind=F),
        leaf("/tmp/disks/ssd.bin", kind=F),
    ]
    assert pool.scan is not None and pool.scan.text.endswith("Sat Jul 14 14:34:07 2018")


def test_logs_section_of_the_man_page() -> None:
    pool = one("man-zpool8-logs-mirror.txt")
    assert [v.name for v in pool.vdevs] == ["mirror-0", "mirror-1"]
    assert [shape(v) for v in pool.logs] == [
        ("mirror-2", VdevKind.MIRROR, "ONLINE", (0, 0, 0), None, [leaf("sde"), leaf("sdf")]),
    ]
    assert {v.vdev_class for v in pool.logs[0].leaves()} == {VdevClass.LOG}
    assert {v.vdev_class for v in pool.vdevs[0].leaves()} == {VdevClass.DATA}
    # the Solaris-era "scrub:" key is read like "scan:"
    assert pool.scan == ScanStatus(function="none", state="none", text="none requested")


def test_logs_and_cache_while_resilvering_old_progress_format() -> None:
    pool = one("issue3267-logs-cache-resilver.txt")
    assert [v.name for v in pool.logs] == ["mirror-1"]
    assert [v.name for v in pool.logs[0].children] == ["sda3", "sdb3"]
    assert [shape(v) for v in pool.cache] == [leaf("sda4"), leaf("sdb4")]
    assert all(v.vdev_class is VdevClass.CACHE for v in pool.cache)
    assert pool.scan is not None
    assert (pool.scan.function, pool.scan.state) == ("resilver", "in_progress")
    assert pool.scan.percent_done == 0.39
    assert pool.scan.eta == "0h46m"
    assert pool.scan.text == (
        "resilver in progress since Wed Apr  8 23:23:38 2015 "
        "1.35G scanned out of 347G at 126M/s, 0h46m to go 0 resilvered, 0.39% done"
    )
    assert pool.status == (
        "One or more devices is currently being resilvered.  The pool will "
        "continue to function, possibly in a degraded state."
    )
    assert pool.action == "Wait for the resilver to complete."


def test_mirror_and_cache_with_four_space_indent() -> None:
    pool = one("issue1391-mirror-cache.txt")
    assert [v.name for v in pool.vdevs[0].children] == [
        "ata-WDC_WD10EAVS-00D7B1_WD-WCAU48198447-part1",
        "ata-ST1000DM003-9YN162_Z1D1PT33",
    ]
    assert [shape(v) for v in pool.cache] == [leaf("VolGroup00-l2arc")]


def test_draid_with_available_distributed_spare() -> None:
    pool = one("docs-draid-create.txt")
    (draid,) = pool.vdevs
    assert (draid.name, draid.kind, draid.parity, draid.draid_config) == (
        "draid1:4d:11c:1s-0", VdevKind.DRAID, 1, "draid1:4d:11c:1s",
    )  # fmt: skip
    assert [c.name for c in draid.children] == [f"sd{c}" for c in "abcdefghijk"]
    assert [shape(v) for v in pool.spares] == [leaf("draid1-0-0", "AVAIL")]
    assert pool.spares[0].vdev_class is VdevClass.SPARE
    assert pool.scan is None


def test_draid_rebuilding_to_its_spare() -> None:
    pool = one("docs-draid-rebuild-spare.txt")
    (draid,) = pool.vdevs
    assert draid.state == "DEGRADED"
    assert shape(draid.children[6]) == (
        "spare-6", VdevKind.SPARE, "DEGRADED", (0, 0, 0), None,
        [leaf("sdg", "UNAVAIL"), leaf("draid1-0-0", note="(resilvering)")],
    )  # fmt: skip
    notes = {c.name: c.note for c in draid.children}
    assert notes["sda"] == notes["sdk"] == "(resilvering)"
    assert [shape(v) for v in pool.spares] == [leaf("draid1-0-0", "INUSE", "currently in use")]
    assert pool.scan == ScanStatus(
        function="resilver",
        state="in_progress",
        text="resilver (draid1:4d:11c:1s-0) in progress since Tue Nov 24 14:34:25 2020 "
        "3.51T scanned at 13.4G/s, 1.59T issued 6.07G/s, 6.13T total "
        "326G resilvered, 57.17% done, 00:03:21 to go",
        percent_done=57.17,
        eta="00:03:21",
    )


def test_replacing_inside_spare_and_a_misindented_spare_row() -> None:
    pool = one("docs-draid-rebalance.txt")
    spare6 = pool.vdevs[0].children[6]
    assert shape(spare6) == (
        "spare-6", VdevKind.SPARE, "DEGRADED", (0, 0, 0), None,
        [("replacing-0", VdevKind.REPLACING, "DEGRADED", (0, 0, 0), None,
          [leaf("sdg", "UNAVAIL"), leaf("sdl", note="(resilvering)")]),
         leaf("draid1-0-0", note="(resilvering)")],
    )  # fmt: skip
    # the published page indents this row less than "spares": it still is a spare
    assert [shape(v) for v in pool.spares] == [leaf("draid1-0-0", "INUSE", "currently in use")]
    assert pool.scan is not None and pool.scan.percent_done == 99.44
    assert pool.scan.eta == "00:00:04"


def test_degraded_mirror_too_many_errors() -> None:
    pool = one("osm482-degraded-mirror.txt")
    assert (pool.name, pool.state) == ("local-zfs", "DEGRADED")
    assert [shape(v) for v in pool.vdevs] == [
        ("mirror-0", VdevKind.MIRROR, "DEGRADED", (0, 0, 0), None, [
            leaf("wwn-0x5000cca25edc1030"),
            leaf("wwn-0x5000cca245c1984b", "FAULTED", "too many errors", counters=(1, 29, 4)),
        ]),
    ]  # fmt: skip
    assert not pool.vdevs[0].children[1].healthy
    assert pool.status == (
        "One or more devices are faulted in response to persistent errors. Sufficient "
        "replicas exist for the pool to continue functioning in a degraded state."
    )
    assert pool.scan is not None and pool.scan.state == "finished"


def test_openzfs_2_2_faulted_leaf() -> None:
    pool = one("issue16245-faulted-too-many-errors.txt")
    bad = pool.vdevs[0].children[1]
    assert shape(bad) == leaf(
        "ata-TOSHIBA_MG08ACA16TE_64M0A0xxxxxx", "FAULTED", "too many errors", counters=(12, 753, 83)
    )
    assert pool.scan is not None and pool.scan.function == "resilver"


def test_raidz2_many_errors_without_scan_or_errors_line() -> None:
    pool = one("lwa506-raidz2-many-errors.txt")
    (raidz,) = pool.vdevs
    assert (raidz.kind, raidz.parity, raidz.read_errors) == (VdevKind.RAIDZ, 2, 53)
    assert len(raidz.children) == 12
    assert raidz.children[7] == Vdev(
        name="wwn-0x5000cca2b4ce3e34", kind=D, state="FAULTED", read_errors=25,
        note="too many errors",
    )  # fmt: skip
    assert raidz.children[6].checksum_errors == 1
    assert (pool.scan, pool.errors) == (None, None)


def test_counters_like_1_88K_and_file_vdevs_in_a_config_fragment() -> None:
    pool = one("issue12090-draid-1.88K-fragment.txt")
    assert (pool.name, pool.state) == ("pool-oss0", "DEGRADED")  # from the root row
    draid = pool.vdevs[0]
    assert (draid.kind, draid.parity, draid.draid_config) == (
        VdevKind.DRAID, 2, "draid2:11d:15c:2s",
    )  # fmt: skip
    assert shape(draid.children[0]) == leaf(
        "/root/test/files/file1", "DEGRADED", "too many errors", kind=F, counters=(0, 0, 1925)
    )
    assert all(c.kind is F for c in draid.children)
    assert [shape(v) for v in pool.spares] == [
        leaf("draid2-0-0", "AVAIL"),
        leaf("draid2-0-1", "AVAIL"),
    ]
    assert pool.errors == "No known data errors"


def test_guid_leaf_is_missing_with_was_note() -> None:
    pool = one("issue3998-guid-was.txt")
    raidz = pool.vdevs[0]
    assert (raidz.name, raidz.kind, raidz.parity) == ("raidz1-0", VdevKind.RAIDZ, 1)
    assert shape(raidz.children[1]) == leaf(
        "17682433485448789979", "UNAVAIL",
        "was /dev/disk/by-id/ata-TOSHIBA_DT01ACA200_74FWMHDKS", kind=M,
    )  # fmt: skip
    assert raidz.children[1].is_leaf
    assert pool.errors is None


def test_was_dev_sdd1_fragment() -> None:
    pool = one("issue9229-was-fragment.txt")
    children = pool.vdevs[0].children
    assert shape(children[2]) == leaf("649844116982152511", "FAULTED", "was /dev/sdd1", kind=M)
    assert children[3].checksum_errors == 6


def test_insufficient_replicas_and_corrupted_data() -> None:
    pool = one("issue2933-insufficient-replicas.txt")
    assert pool.state == "UNAVAIL"
    assert [shape(v) for v in pool.vdevs] == [
        ("mirror-0", VdevKind.MIRROR, "UNAVAIL", (0, 0, 0), "insufficient replicas", [
            leaf("sdc", "FAULTED", "corrupted data"),
            leaf("sdd", "FAULTED", "corrupted data"),
        ]),
    ]  # fmt: skip
    assert pool.status == (
        "One or more devices could not be used because the label is missing or invalid.  "
        "There are insufficient replicas for the pool to continue functioning."
    )


def test_solaris_era_mirror_without_id_and_cannot_open() -> None:
    pool = one("docs-msg-2Q-cannot-open.txt")
    assert [shape(v) for v in pool.vdevs] == [
        ("mirror", VdevKind.MIRROR, "DEGRADED", (0, 0, 0), None,
         [leaf("sda"), leaf("sdb", "FAULTED", "cannot open")]),
    ]  # fmt: skip


def test_solaris_era_replacing_and_one_line_scan() -> None:
    pool = one("docs-msg-9P-replacing.txt")
    replacing = pool.vdevs[0].children[0]
    assert shape(replacing) == (
        "replacing", VdevKind.REPLACING, "ONLINE", (0, 0, 0), None,
        [leaf("c0t0d0", counters=(0, 0, 3)), leaf("c0t0d2", note="58.5K resilvered")],
    )  # fmt: skip
    assert pool.scan == ScanStatus(
        function="resilver",
        state="in_progress",
        text="resilver in progress, 0.14% done, 0h0m to go",
        percent_done=0.14,
        eta="0h0m",
    )


def test_scrub_repairing_fragment_without_pool_line() -> None:
    pool = one("issue7779-repairing-fragment.txt")
    assert pool.name == "mypool"
    assert shape(pool.vdevs[0].children[0]) == leaf(
        "/tmp/file1", note="(repairing)", kind=F, counters=(13, 0, 0)
    )
    assert pool.scan is not None
    assert (pool.scan.function, pool.scan.state) == ("scrub", "in_progress")
    assert (pool.scan.percent_done, pool.scan.eta) == (3.15, "0 days 00:00:30")


def test_scrub_without_estimate() -> None:
    scan = one("issue8891-scrub-no-eta.txt").scan
    assert scan is not None
    assert (scan.function, scan.state, scan.percent_done, scan.eta) == (
        "scrub", "in_progress", 118068.85, None,
    )  # fmt: skip


def test_two_pools_in_one_output() -> None:
    pools = load("fusioninventory619-two-pools.txt")
    assert [(p.name, p.state) for p in pools] == [("zdisk2", "ONLINE"), ("zroot", "ONLINE")]
    assert [shape(v) for v in pools[0].vdevs] == [leaf("mfid1p1")]
    assert [shape(v) for v in pools[1].vdevs] == [leaf("mfid0p3", counters=(0, 0, 2))]
    assert pools[1].scan is not None
    assert pools[1].scan.text == (
        "scrub repaired 40K in 6h27m with 0 errors on Fri Sep 14 18:32:13 2018"
    )
    assert pools[1].status is not None and pools[1].status.startswith("One or more devices")


@pytest.mark.parametrize("text", ["", "\n", "no pools available\n", "all pools are healthy\n"])
def test_no_pools(text: str) -> None:
    assert parse_zpool_status_text(text) == ()


@pytest.mark.parametrize(
    "text",
    [
        "hello world\n",
        "  pool: tank\n",  # a name but no state at all
        "  pool: tank\n state: ONLINE\nconfig:\n\n\tNAME STATE\n\ttank ONLINE 0 0 0\n\tx\n",
        "  pool: tank\n state: ONLINE\nconfig:\n\n\ttank ONLINE 0 0 0\n\tother ONLINE 0 0 0\n",
        '{"pools": {}}',
    ],
)
def test_garbage_is_a_parse_error(text: str) -> None:
    with pytest.raises(ParseError):
        parse_zpool_status_text(text)
