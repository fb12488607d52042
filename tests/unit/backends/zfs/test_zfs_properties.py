"""Every ZFS parser, fed anything, returns a valid result or raises ParseError: never
IndexError, ValueError, KeyError, RecursionError, OverflowError ..."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tierdeck.backends.zfs.inventory import (
    PoolCapacity,
    parse_zfs_list_json,
    parse_zfs_list_text,
    parse_zfs_version,
    parse_zpool_list_json,
    parse_zpool_list_text,
    parse_zpool_status_json,
    parse_zpool_status_text,
)
from tierdeck.core.errors import ParseError
from tierdeck.core.models import Vdev, ZfsDataset, ZPool

from tests.mutations import json_values

from ....paths import FIXTURES

ZFS = FIXTURES / "zfs"
STATUS_TEXTS = [p.read_text() for p in sorted((ZFS / "status-text").iterdir())]
LIST = ZFS / "list"
JSONS: dict[Callable[[str], Any], list[str]] = {
    parse_zpool_status_json: [
        (ZFS / "status-json" / "man-zpool-status8-example2.json").read_text()
    ],
    parse_zpool_list_json: [(LIST / "man-zpool-list8-example3.json").read_text()],
    parse_zfs_list_json: [(LIST / "man-zfs-list8-example2.json").read_text()],
}
TEXTS: dict[Callable[[str], Any], list[str]] = {
    parse_zpool_status_text: STATUS_TEXTS,
    parse_zpool_list_text: [
        (LIST / f).read_text() for f in sorted(p.name for p in LIST.glob("zpool-list-*"))
    ],
    parse_zfs_list_text: [
        (LIST / f).read_text() for f in sorted(p.name for p in LIST.glob("zfs-list-*"))
    ],
}
PARSERS = [*JSONS, *TEXTS]
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# text built from the pieces zpool status is made of, so mutations hit the real paths
TOKENS = st.sampled_from(
    ["  pool: ", " state: ", "  scan: ", "config:", "errors: ", "NAME STATE READ WRITE CKSUM",
     "\t", "  ", "    ", "\n", "ONLINE", "DEGRADED", "AVAIL", "INUSE", "mirror-0", "raidz2-1",
     "draid2:4d:11c:1s-0", "draid1-0-0", "spare-1", "replacing-0", "logs", "cache", "spares",
     "special", "dedup", "0", "1.88K", "99999999999999999999999", "  (resilvering)",
     "% done", " to go", "was /dev/sdb1", "/tmp/f", "1234567890123", "-", ":", "{", "}"]
)  # fmt: skip


def check_valid(result: Any) -> None:
    """A result is the declared type, all the way down."""
    if isinstance(result, tuple):
        for item in result:
            assert isinstance(item, ZPool | ZfsDataset)
            if isinstance(item, ZPool):
                assert isinstance(item.name, str) and item.name
                for vdev in item.all_vdevs():
                    check_vdev(vdev)
            else:
                sizes = (item.used_bytes, item.avail_bytes, item.refer_bytes)
                assert all(v is None or v >= 0 for v in sizes)
    else:
        assert isinstance(result, dict)
        for cap in result.values():
            assert isinstance(cap, PoolCapacity)
            sizes = (cap.size_bytes, cap.alloc_bytes, cap.free_bytes, cap.capacity_pct)
            assert all(v is None or v >= 0 for v in sizes)


def check_vdev(vdev: Vdev) -> None:
    assert isinstance(vdev.name, str) and isinstance(vdev.state, str)
    assert min(vdev.read_errors, vdev.write_errors, vdev.checksum_errors) >= 0
    for child in vdev.children:
        check_vdev(child)


def parse_or_error(parser: Callable[[str], Any], text: str) -> None:
    try:
        result = parser(text)
    except ParseError:
        return
    check_valid(result)


@FAST
@given(st.sampled_from(PARSERS), st.text(max_size=300))
def test_arbitrary_text(parser: Callable[[str], Any], text: str) -> None:
    parse_or_error(parser, text)


@FAST
@given(st.lists(TOKENS, max_size=60).map("".join))
def test_status_text_made_of_status_words(text: str) -> None:
    parse_or_error(parse_zpool_status_text, text)


@st.composite
def mutated(draw: st.DrawFn, sources: list[str]) -> str:
    lines = draw(st.sampled_from(sources)).splitlines()
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(["delete", "insert", "duplicate", "char", "indent"]))
        at = draw(st.integers(0, max(len(lines) - 1, 0)))
        if op == "delete" and lines:
            del lines[at]
        elif op == "insert":
            lines.insert(at, draw(st.one_of(TOKENS, st.text(max_size=40))))
        elif op == "duplicate" and lines:
            lines.insert(at, lines[at])
        elif op == "char" and lines and lines[at]:
            pos = draw(st.integers(0, len(lines[at]) - 1))
            char = draw(st.characters(codec="utf-8"))
            lines[at] = lines[at][:pos] + char + lines[at][pos + 1 :]
        elif op == "indent" and lines:
            lines[at] = draw(st.sampled_from(["", " ", "\t", "      "])) + lines[at].lstrip()
    return "\n".join(lines) + "\n"


@FAST
@given(mutated(STATUS_TEXTS))
def test_mutated_real_status_text(text: str) -> None:
    parse_or_error(parse_zpool_status_text, text)


@FAST
@given(st.sampled_from(list(TEXTS)), st.data())
def test_mutated_real_list_texts(parser: Callable[[str], Any], data: st.DataObject) -> None:
    parse_or_error(parser, data.draw(mutated(TEXTS[parser])))


JSON_VALUES = json_values(floats=True, max_size=3, max_leaves=10)


@st.composite
def mutated_json(draw: st.DrawFn, source: str) -> str:
    """Replace one value anywhere in a real document by an arbitrary JSON value."""
    document = json.loads(source)
    paths: list[list[Any]] = []

    def walk(node: Any, path: list[Any]) -> None:
        paths.append(path)
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, [*path, key])

    walk(document, [])
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(paths))
        value = draw(JSON_VALUES)
        if not path:
            return json.dumps(value)
        target = document
        try:
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = value
        except (KeyError, TypeError, IndexError):
            continue  # an earlier replacement removed this path
    return json.dumps(document)


@FAST
@given(st.sampled_from(list(JSONS)), st.data())
def test_mutated_real_json(parser: Callable[[str], Any], data: st.DataObject) -> None:
    parse_or_error(parser, data.draw(mutated_json(JSONS[parser][0])))


@FAST
@given(st.text(max_size=100))
def test_version_never_raises(text: str) -> None:
    result = parse_zfs_version(text)
    assert result is None or (result and "\n" not in result)
