"""`zpool status -j`, `zpool list`, `zfs list`, `zfs version` parsers on real outputs."""

from __future__ import annotations

import json

import pytest
from tierdeck.backends.zfs.inventory import (
    PoolCapacity,
    parse_zfs_list_json,
    parse_zfs_list_text,
    parse_zfs_version,
    parse_zpool_list_json,
    parse_zpool_list_text,
    parse_zpool_status_json,
)
from tierdeck.core.errors import ParseError
from tierdeck.core.models import VdevClass, VdevKind, ZfsDataset

from ....paths import FIXTURES

ZFS = FIXTURES / "zfs"
STATUS_JSON = ZFS / "status-json" / "man-zpool-status8-example2.json"
K, G, T = 1024, 1024**3, 1024**4


def size(text: str) -> int:
    units = {"K": K, "M": 1024**2, "G": G, "T": T}
    return int(round(float(text[:-1]) * units[text[-1]]))


def test_status_json_man_page_example() -> None:
    (pool,) = parse_zpool_status_json(STATUS_JSON.read_text())
    assert (pool.name, pool.state, pool.status, pool.errors) == (
        "tank", "ONLINE", "OK", "No known data errors",
    )  # fmt: skip
    (raidz,) = pool.vdevs
    assert (raidz.name, raidz.kind, raidz.parity, raidz.state) == (
        "raidz1-0", VdevKind.RAIDZ, 1, "HEALTHY",
    )  # fmt: skip
    assert [(c.name, c.kind, c.vdev_class) for c in raidz.children] == [
        ("ca1eb824-c371-491d-ac13-37637e35c683", VdevKind.DISK, VdevClass.DATA),
        ("97cd98fb-8fb8-4ac4-bc84-bd8950a7ace7", VdevKind.DISK, VdevClass.DATA),
        ("e9ddba5f-f948-4734-a472-cb8aa5f0ff65", VdevKind.DISK, VdevClass.DATA),
    ]
    (special,) = pool.special
    assert (special.name, special.kind, special.vdev_class) == (
        "25d418f8-92bd-4327-b59f-7ef5d5f50d81", VdevKind.DISK, VdevClass.SPECIAL,
    )  # fmt: skip
    (dedup,) = pool.dedup
    assert (dedup.name, dedup.kind, dedup.vdev_class) == (
        "mirror-2",
        VdevKind.MIRROR,
        VdevClass.DEDUP,
    )
    assert {leaf.vdev_class for leaf in dedup.leaves()} == {VdevClass.DEDUP}
    assert [leaf.name for leaf in dedup.leaves()] == [
        "db017360-d8e9-4163-961b-144ca75293a3",
        "952c3baf-b08a-4a8c-b7fa-33a07af5fe6f",
    ]
    assert (pool.logs, pool.cache, pool.spares) == ((), (), ())
    assert pool.scan is None  # the example has no scan_stats


def _mutated_status(mutate: object) -> str:
    document = json.loads(STATUS_JSON.read_text())
    assert callable(mutate)
    mutate(document["pools"]["tank"])
    return json.dumps(document)


def test_status_json_without_vdev_type_falls_back_on_the_name() -> None:
    # OpenZFS 2.3.2 leaves out vdev_type and state for dRAID vdevs (openzfs/zfs#18431);
    # the same shape, made from the man page example by deleting the two keys:
    def drop(pool: dict[str, dict[str, dict[str, object]]]) -> None:
        raidz = pool["vdevs"]["tank"]["vdevs"]["raidz1-0"]  # type: ignore[index]
        del raidz["vdev_type"], raidz["state"]

    (pool,) = parse_zpool_status_json(_mutated_status(drop))
    assert (pool.vdevs[0].kind, pool.vdevs[0].parity, pool.vdevs[0].state) == (
        VdevKind.RAIDZ, 1, "UNKNOWN",
    )  # fmt: skip


def test_status_json_counters_as_strings_and_ints() -> None:
    def errors(pool: dict[str, object]) -> None:
        leaf = pool["vdevs"]["tank"]["vdevs"]["raidz1-0"]["vdevs"]  # type: ignore[index]
        first = next(iter(leaf.values()))
        first["checksum_errors"] = "1.88K"  # zfs_nicenum form
        first["read_errors"] = 7  # --json-int form
        first["aux"] = "ERR_EXCEEDED"

    (pool,) = parse_zpool_status_json(_mutated_status(errors))
    leaf = pool.vdevs[0].children[0]
    assert (leaf.read_errors, leaf.checksum_errors, leaf.note) == (7, 1925, "too many errors")


@pytest.mark.parametrize(
    "text",
    ["", "not json", "[]", '{"pools": []}', '{"pools": {"a": 1}}', '{"pools": {"a": {}}}',
     '{"pools": {"a": {"state": "ONLINE", "vdevs": {"a": {"read_errors": "x"}}}}}',
     "[" * 100000],
)  # fmt: skip
def test_status_json_garbage(text: str) -> None:
    with pytest.raises(ParseError):
        parse_zpool_status_json(text)


def test_status_json_no_pools() -> None:
    empty = '{"output_version": {"command": "zpool status"}, "pools": {}}'
    assert parse_zpool_status_json(empty) == ()


def test_zpool_list_json_man_page() -> None:
    assert parse_zpool_list_json((ZFS / "list" / "man-zpool-list8-example3.json").read_text()) == {
        "tank": PoolCapacity(
            name="tank",
            size_bytes=size("111G"),
            alloc_bytes=size("30.8G"),
            free_bytes=size("80.2G"),
            fragmentation_pct=0,
            capacity_pct=27,
            dedup_ratio=1.0,
            health="ONLINE",
        )
    }


def test_zpool_list_text_exact_numbers() -> None:
    text = (ZFS / "list" / "zpool-list-Hp-derived-netdata18359.txt").read_text()
    assert parse_zpool_list_text(text) == {
        "store": PoolCapacity(
            name="store",
            size_bytes=9981503995904,
            alloc_bytes=3046188658688,
            free_bytes=6935315337216,
            fragmentation_pct=9,
            capacity_pct=30,
            dedup_ratio=1.0,
            health="DEGRADED",
        )
    }


def test_zpool_list_text_human_values_and_a_faulted_pool() -> None:
    pools = parse_zpool_list_text(
        (ZFS / "list" / "zpool-list-H-derived-man-zpool8.txt").read_text()
    )
    assert list(pools) == ["rpool", "tank", "zion"]
    assert pools["rpool"].size_bytes == size("19.9G")
    assert (pools["tank"].fragmentation_pct, pools["tank"].capacity_pct) == (48, 32)
    assert pools["zion"] == PoolCapacity("zion", None, None, None, None, None, None, "FAULTED")


@pytest.mark.parametrize(
    "text", ["tank\t1\t2\n", "tank 1 2 3 4 5 6 7 8 9\n", "t\tx\t1\t1\t1\t1\t1.0\tONLINE\n",
             "t\t1\t1\t1\t1\t1\tabc\tONLINE\n", "t\t" + "9" * 400 + "\t1\t1\t1\t1\t1\tONLINE\n"],
)  # fmt: skip
def test_zpool_list_text_garbage(text: str) -> None:
    with pytest.raises(ParseError):
        parse_zpool_list_text(text)


def test_zfs_list_json_man_page_with_snapshot() -> None:
    datasets = parse_zfs_list_json((ZFS / "list" / "man-zfs-list8-example2.json").read_text())
    assert datasets == (
        ZfsDataset("pool", "filesystem", size("290K"), size("30.5G"), size("24K"), "/pool"),
        ZfsDataset("pool/home", "filesystem", size("48K"), size("30.5G"), size("24K"), "/mnt/home"),
        ZfsDataset(
            "pool/home/bob", "filesystem", size("24K"), size("30.5G"), size("24K"), "/mnt/home/bob"
        ),
        ZfsDataset("pool/home/bob@v1", "snapshot", 0, None, size("24K"), None),
    )
    assert datasets[3].pool == "pool"


def test_zfs_list_text_exact_and_human() -> None:
    assert parse_zfs_list_text(
        (ZFS / "list" / "zfs-list-Hp-derived-issue17938.txt").read_text()
    ) == (
        ZfsDataset("z/data/VMs", "filesystem", 3166535424, 8218833823936, 2785411008, "/data/VMs"),
    )
    human = parse_zfs_list_text((ZFS / "list" / "zfs-list-H-derived-man-zfs8.txt").read_text())
    assert [(d.name, d.used_bytes, d.mountpoint) for d in human] == [
        ("pool", 450 * K, "/pool"),
        ("pool/home", 315 * K, "/export/home"),
        ("pool/home/anne", 18 * K, "/export/home/anne"),
        ("pool/home/bob", 276 * K, "/export/home/bob"),
    ]
    assert {d.avail_bytes for d in human} == {457 * G}


@pytest.mark.parametrize(
    "text", ["a\tb\n", "x\tpony\t1\t1\t1\t/\n", '{"datasets": {}}'],
)  # fmt: skip
def test_zfs_list_text_garbage(text: str) -> None:
    with pytest.raises(ParseError):
        parse_zfs_list_text(text)


@pytest.mark.parametrize(
    "text", ["nope", '{"datasets": {"a": {"type": "PONY"}}}', '{"datasets": 3}'],
)  # fmt: skip
def test_zfs_list_json_garbage(text: str) -> None:
    with pytest.raises(ParseError):
        parse_zfs_list_json(text)


def test_version_first_line() -> None:
    assert parse_zfs_version((ZFS / "version" / "ubuntu-2.1.4.txt").read_text()) == (
        "zfs-2.1.4-0ubuntu0.1"
    )
    assert parse_zfs_version((ZFS / "version" / "debian-bpo-2.3.2.txt").read_text()) == (
        "zfs-2.3.2-2~bpo12+1"
    )
    captured = ZFS / "captured" / "debian-2.1.11" / "zfs_version.stdout"
    assert parse_zfs_version(captured.read_text()) == "zfs-2.1.11-1+deb12u1"
    assert parse_zfs_version("") is None
