"""``zpool list -H -p`` and ``zfs list -H -p``: the text forms of the capacity tables.

``zpool status`` gives no sizes, so pool capacity comes from ``zpool list``, and datasets
from ``zfs list``. Both are asked for with ``-H`` (no header, one tab between columns)
and ``-p`` (exact numbers) and a fixed ``-o`` column list (the argv in
:mod:`tierdeck.backends.zfs.inventory`), which makes the rows a fixed number of columns. Copies
pasted from a terminal lost their tabs, so rows without a tab are split on runs of
spaces, keeping the last column (a mountpoint may hold spaces) whole.
"""

from __future__ import annotations

from ...core.errors import ParseError
from ...core.models import ZfsDataset
from .common import DATASET_KINDS, STATE_RE, PoolCapacity, guarded, optional_int, optional_ratio

_LIST_COLUMNS = 8  # name,size,alloc,free,frag,cap,dedup,health (ZPOOL_LIST_TEXT_ARGV)


def _split_columns(line: str, count: int, source: str) -> list[str]:
    # -H separates with one tab; pasted copies often turned tabs into spaces
    parts = line.split("\t") if "\t" in line else line.split(None, count - 1)
    if len(parts) != count:
        raise ParseError(source, f"expected {count} columns, got {len(parts)}", line)
    return parts


def parse_zpool_list_text(text: str) -> dict[str, PoolCapacity]:
    """``zpool list -H -p -o name,size,alloc,free,frag,cap,dedup,health`` -> by pool name."""
    source = "zpool list"
    if not isinstance(text, str):
        raise ParseError(source, "not text")
    return guarded(source, lambda: _zpool_list_rows(text, source))


def _zpool_list_rows(text: str, source: str) -> dict[str, PoolCapacity]:
    result: dict[str, PoolCapacity] = {}
    for line in text.splitlines():
        if not line.strip() or line.strip() == "no pools available":
            continue
        name, size, alloc, free, frag, cap, dedup, health = _split_columns(
            line, _LIST_COLUMNS, source
        )
        if not name or name.strip() != name or " " in name:
            raise ParseError(source, "bad pool name", line)
        health = health.strip()
        if not STATE_RE.match(health):
            raise ParseError(source, f"not a pool health: {health!r}", line)
        result[name] = PoolCapacity(
            name=name,
            size_bytes=optional_int(size, source),
            alloc_bytes=optional_int(alloc, source),
            free_bytes=optional_int(free, source),
            fragmentation_pct=optional_int(frag, source),
            capacity_pct=optional_int(cap, source),
            dedup_ratio=optional_ratio(dedup, source),
            health=health,
        )
    return result


def parse_zfs_list_text(text: str) -> tuple[ZfsDataset, ...]:
    """``zfs list -H -p -t filesystem,volume -o name,type,used,avail,refer,mountpoint``."""
    source = "zfs list"
    if not isinstance(text, str):
        raise ParseError(source, "not text")
    return guarded(source, lambda: _zfs_list_rows(text, source))


def _zfs_list_rows(text: str, source: str) -> tuple[ZfsDataset, ...]:
    datasets = []
    for line in text.splitlines():
        if not line.strip() or line.strip() == "no datasets available":
            continue
        name, kind, used, avail, refer, mountpoint = _split_columns(line, 6, source)
        if not name or " " in name:
            raise ParseError(source, "bad dataset name", line)
        if kind not in DATASET_KINDS:
            raise ParseError(source, f"unknown dataset type {kind!r}", line)
        datasets.append(
            ZfsDataset(
                name=name,
                kind=kind,
                used_bytes=optional_int(used, source),
                avail_bytes=optional_int(avail, source),
                refer_bytes=optional_int(refer, source),
                mountpoint=None if mountpoint in ("-", "") else mountpoint,
            )
        )
    return tuple(datasets)
