"""ZFS inventory: pools with their vdev trees, capacity, and datasets.

OpenZFS >= 2.3 answers ``-j`` with JSON; older releases (most NAS today run 2.1/2.2)
reject it with ``invalid option 'j'`` and a usage text (exit 2), so :func:`read_zfs`
tries JSON once and falls back to the text forms for every later command.

This module runs the commands and merges their answers; the parsers live beside it:
:mod:`zfs_status_text` (``zpool status`` text), :mod:`zfs_json` (every ``-j`` form),
:mod:`zfs_lists` (``zpool list``/``zfs list`` text) and :mod:`zfs_common` (what they
share). The public parsers are re-exported here, so callers import them from this module.

Every parser raises :class:`ParseError` on anything it cannot read, never another
exception; :func:`read_zfs` turns failures into a one-line ``ZfsInfo.message`` and keeps
whatever it did parse.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TypeVar

from ...core.errors import HostError, ParseError, TierdeckError, ToolFailed, ToolMissing
from ...core.models import ZfsInfo, ZPool
from ..host import CommandResult, Host
from .common import PoolCapacity
from .json_forms import parse_zfs_list_json, parse_zpool_list_json, parse_zpool_status_json
from .lists import parse_zfs_list_text, parse_zpool_list_text
from .status_text import parse_zpool_status_text

__all__ = [
    "NOT_INSTALLED",
    "SYSFS_VERSION",
    "ZFS_LIST_JSON_ARGV",
    "ZFS_LIST_TEXT_ARGV",
    "ZFS_VERSION_ARGV",
    "ZPOOL_LIST_JSON_ARGV",
    "ZPOOL_LIST_TEXT_ARGV",
    "ZPOOL_STATUS_JSON_ARGV",
    "ZPOOL_STATUS_TEXT_ARGV",
    "PoolCapacity",
    "parse_zfs_list_json",
    "parse_zfs_list_text",
    "parse_zfs_version",
    "parse_zpool_list_json",
    "parse_zpool_list_text",
    "parse_zpool_status_json",
    "parse_zpool_status_text",
    "read_zfs",
]

# Other people record demo hosts with exactly these argv lists: keep them stable.
ZFS_VERSION_ARGV = ["zfs", "version"]
ZPOOL_STATUS_JSON_ARGV = ["zpool", "status", "-j", "--json-int"]
ZPOOL_STATUS_TEXT_ARGV = ["zpool", "status"]
ZPOOL_LIST_JSON_ARGV = ["zpool", "list", "-j", "--json-int"]
ZPOOL_LIST_TEXT_ARGV = [
    "zpool", "list", "-H", "-p", "-o", "name,size,alloc,free,frag,cap,dedup,health",
]  # fmt: skip
# Accepted by the real 2.3.2 option parser (checked with Debian's zfsutils-linux build).
ZFS_LIST_JSON_ARGV = [
    "zfs", "list", "-j", "--json-int", "-t", "filesystem,volume",
    "-o", "name,type,used,avail,refer,mountpoint",
]  # fmt: skip
ZFS_LIST_TEXT_ARGV = [
    "zfs", "list", "-H", "-p", "-t", "filesystem,volume",
    "-o", "name,type,used,avail,refer,mountpoint",
]  # fmt: skip

SYSFS_VERSION = "/sys/module/zfs/version"
NOT_INSTALLED = "ZFS is not installed (no zpool command)"


_T = TypeVar("_T")


# ------------------------------------------------------------------ version


def parse_zfs_version(text: str) -> str | None:
    """First line of ``zfs version`` ("zfs-2.1.4-0ubuntu0.1"), or None."""
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return None


def _read_version(host: Host) -> str | None:
    try:
        result = host.run(ZFS_VERSION_ARGV)
        if result.ok:
            version = parse_zfs_version(result.stdout)
            if version:
                return version
    except TierdeckError:
        pass  # old releases lack "zfs version"; the module's sysfs file still knows
    try:
        text = host.read_text(SYSFS_VERSION).strip()
    except (OSError, TierdeckError):
        return None
    return f"zfs-kmod-{text}" if text else None


# ------------------------------------------------------------------ read_zfs


def _rejects_json(result: CommandResult) -> bool:
    """Releases before 2.3 print "invalid option 'j'" and their usage, and exit 2."""
    if result.ok:
        return False
    err = result.stderr
    return "invalid option 'j'" in err or ("unrecognized option" in err and "json" in err)


def _one_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


@dataclass
class _Reader:
    host: Host
    json_ok: bool | None = None  # None: not tried yet
    notes: list[str] = field(default_factory=list)

    seen: set[str] = field(default_factory=set)

    def note(self, text: str, key: str | None = None) -> None:
        """Keep one line per distinct trouble: a missing kernel module fails every
        command with the same words, and saying it once is enough."""
        key = key or text
        if key not in self.seen:
            self.seen.add(key)
            self.notes.append(text)

    def failed(self, exc: HostError) -> None:
        if isinstance(exc, ToolFailed):
            self.note(_one_line(exc), key=exc.stderr.strip() or None)
        else:
            self.note(_one_line(exc))

    def run(
        self,
        json_argv: list[str],
        text_argv: list[str],
        json_parser: Callable[[str], _T],
        text_parser: Callable[[str], _T],
    ) -> _T | None:
        """Run the JSON form unless JSON was rejected, else the text form; parse it.

        Raises ToolMissing (the caller decides what a missing tool means)."""
        if self.json_ok is not False:
            result = self.host.run(json_argv)
            if _rejects_json(result):
                self.json_ok = False
            else:
                try:
                    result.check()
                except HostError as exc:
                    self.failed(exc)
                    return None
                self.json_ok = True
                return self._parse(json_parser, result.stdout)
        result = self.host.run(text_argv)
        try:
            result.check()
        except HostError as exc:
            self.failed(exc)
            return None
        return self._parse(text_parser, result.stdout)

    def noting(self, attempt: Callable[[], _T | None]) -> _T | None:
        """``attempt()``, keeping any host trouble (a missing tool too) as a note: for
        the commands after ``zpool status``, whose answer already said ZFS is there."""
        try:
            return attempt()
        except HostError as exc:
            self.note(_one_line(exc))
            return None

    def _parse(self, parser: Callable[[str], _T], text: str) -> _T | None:
        try:
            return parser(text)
        except ParseError as exc:
            self.note(_one_line(exc))
            return None


def _with_capacity(pool: ZPool, cap: PoolCapacity) -> ZPool:
    return replace(
        pool,
        size_bytes=cap.size_bytes,
        alloc_bytes=cap.alloc_bytes,
        free_bytes=cap.free_bytes,
        fragmentation_pct=cap.fragmentation_pct,
        capacity_pct=cap.capacity_pct,
        dedup_ratio=cap.dedup_ratio,
        health=cap.health,
    )


def _merge(pools: tuple[ZPool, ...], capacity: dict[str, PoolCapacity]) -> tuple[ZPool, ...]:
    merged = [
        pool if pool.name not in capacity else _with_capacity(pool, capacity[pool.name])
        for pool in pools
    ]
    seen = {pool.name for pool in pools}
    # a pool zpool list knows but status did not describe (status failed or was cut)
    for name, cap in capacity.items():
        if name not in seen:
            bare = ZPool(name=name, state=cap.health or "UNKNOWN", vdevs=())
            merged.append(_with_capacity(bare, cap))
    return tuple(merged)


def read_zfs(host: Host) -> ZfsInfo:
    """Pools (status + capacity), datasets and version; never raises for host trouble."""
    reader = _Reader(host)
    try:
        pools = reader.run(
            ZPOOL_STATUS_JSON_ARGV,
            ZPOOL_STATUS_TEXT_ARGV,
            parse_zpool_status_json,
            parse_zpool_status_text,
        )
    except ToolMissing:
        return ZfsInfo(available=False, message=NOT_INSTALLED)
    except HostError as exc:  # timeout, permission, exec failure
        reader.note(_one_line(exc))
        pools = None
    version = _read_version(host)
    capacity = reader.noting(
        lambda: reader.run(
            ZPOOL_LIST_JSON_ARGV,
            ZPOOL_LIST_TEXT_ARGV,
            parse_zpool_list_json,
            parse_zpool_list_text,
        )
    )
    datasets = reader.noting(
        lambda: reader.run(
            ZFS_LIST_JSON_ARGV, ZFS_LIST_TEXT_ARGV, parse_zfs_list_json, parse_zfs_list_text
        )
    )
    return ZfsInfo(
        available=True,
        version=version,
        json_output=reader.json_ok is True,
        pools=_merge(pools or (), capacity or {}),
        datasets=datasets or (),
        message="; ".join(reader.notes) or None,
    )
