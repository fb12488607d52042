"""What the ZFS parsers share: value readers, vdev naming, and the "ParseError only" guard.

``zpool``/``zfs`` print the same things in two forms (text and, from OpenZFS 2.3, JSON),
and both forms spell sizes, ratios and error counters the same loose way ("1.88K", "-",
"42%", "1.00x"). The readers here accept every spelling either form uses, so the text and
JSON parsers (:mod:`zfs_status_text`, :mod:`zfs_json`, :mod:`zfs_lists`) build identical
models from the same pool. Vdev kinds come from the names zpool prints, because text has
nothing else and 2.3.2's JSON leaves ``vdev_type`` out for dRAID.

These names are internal to the ``zfs_*`` modules; other code imports from
:mod:`tierdeck.backends.zfs.inventory`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from ...core.errors import ParseError
from ...core.models import Vdev, VdevClass, VdevKind
from ...core.units import parse_count, parse_size


@dataclass(frozen=True)
class PoolCapacity:
    """One row of ``zpool list``: what ``zpool status`` does not say."""

    name: str
    size_bytes: int | None
    alloc_bytes: int | None
    free_bytes: int | None
    fragmentation_pct: int | None
    capacity_pct: int | None
    dedup_ratio: float | None
    health: str | None


# The dataset types of `zfs list -t`; any other "type" means the row is not what we asked.
DATASET_KINDS = ("filesystem", "volume", "snapshot", "bookmark")

_T = TypeVar("_T")


def guarded(source: str, build: Callable[[], _T]) -> _T:
    """Run a parser body; anything but ParseError escaping it is a shape we did not
    foresee in garbage input, and the contract is ParseError for all of those."""
    try:
        return build()
    except ParseError:
        raise
    except (
        ArithmeticError,
        ValueError,
        LookupError,
        TypeError,
        AttributeError,
        RecursionError,
    ) as exc:
        raise ParseError(source, f"unexpected shape: {exc!r}") from exc


# An error counter as zpool prints it (zfs_nicenum): exact below 1024, then "1.88K".
COUNT_RE = re.compile(r"^[0-9]+(?:\.[0-9]+)?[KMGTPEZ]?$")
# A vdev state or pool health word: ONLINE, DEGRADED, UNAVAIL ...
STATE_RE = re.compile(r"^[A-Z][A-Z_]*$")

_MIRROR_RE = re.compile(r"^mirror(?:-\d+)?$")
_RAIDZ_RE = re.compile(r"^raidz([123])?(?:-\d+)?$")
_DRAID_RE = re.compile(r"^(draid([123])?(?::[0-9a-z]+)*)-\d+$")
_DSPARE_RE = re.compile(r"^draid\d+-\d+-\d+$")  # a distributed spare: a leaf
_GUID_RE = re.compile(r"^\d{6,20}$")


def kind_from_name(name: str, has_children: bool) -> tuple[VdevKind, int | None, str | None]:
    """Vdev kind, parity and dRAID spec from the name zpool prints (VDEV_NAME_TYPE_ID)."""
    if _MIRROR_RE.match(name):
        return VdevKind.MIRROR, None, None
    match = _RAIDZ_RE.match(name)
    if match:
        return VdevKind.RAIDZ, int(match.group(1) or 1), None
    if not _DSPARE_RE.match(name):
        match = _DRAID_RE.match(name)
        if match and (":" in match.group(1) or has_children):
            return VdevKind.DRAID, int(match.group(2) or 1), match.group(1)
    if re.match(r"^replacing(?:-\d+)?$", name):
        return VdevKind.REPLACING, None, None
    if re.match(r"^spare(?:-\d+)?$", name) and has_children:
        return VdevKind.SPARE, None, None
    if re.match(r"^indirect-\d+$", name):
        return VdevKind.INDIRECT, None, None
    if _GUID_RE.match(name) and not has_children:
        return VdevKind.MISSING, None, None
    if name.startswith("/") and not name.startswith("/dev/"):
        return VdevKind.FILE, None, None
    return VdevKind.DISK, None, None


def with_class(vdev: Vdev, vdev_class: VdevClass) -> Vdev:
    children = tuple(with_class(c, vdev_class) for c in vdev.children)
    return replace(vdev, vdev_class=vdev_class, children=children)


def optional_int(value: Any, source: str) -> int | None:
    """A size or percentage as zpool/zfs print it: 123, "123", "1.2G", "42%", "-"."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        if not 0 <= value < 2**64:  # uint64 in the tool; also rejects inf and NaN
            raise ParseError(source, f"not a size: {value!r}")
        return int(value)
    if not isinstance(value, str):
        raise ParseError(source, f"not a number: {value!r}")
    text = value.strip().rstrip("%")
    if text in ("", "-", "none"):
        return None
    return parse_size(text, source)


def optional_ratio(value: Any, source: str) -> float | None:
    """A ratio as zpool/zfs print it: 1.5, "1.50", "1.50x", "-"."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        # --json-int prints integers only where the literal value is all digits
        if not 0 <= value < 2**64:
            raise ParseError(source, f"not a ratio: {value!r}")
        return float(value)
    if not isinstance(value, str):
        raise ParseError(source, f"not a ratio: {value!r}")
    text = value.strip().rstrip("x")
    if text in ("", "-"):
        return None
    try:
        return float(text)
    except ValueError as exc:
        raise ParseError(source, f"not a ratio: {value!r}") from exc


def counter(value: Any, source: str) -> int:
    """A read/write/checksum error counter; absent means none were counted."""
    if value is None:
        return 0
    if isinstance(value, bool):
        raise ParseError(source, f"not a counter: {value!r}")
    if isinstance(value, int) and value >= 0:
        return value
    if isinstance(value, str) and COUNT_RE.match(value.strip()):
        return parse_count(value.strip(), source)
    raise ParseError(source, f"not a counter: {value!r}")
