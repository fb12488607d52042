"""Sizes and counts as the storage tools print them, and back.

ZFS prints error counters as ``1.88K`` and sizes as ``231G`` (powers of 1024); mergerfs
takes ``minfreespace=300G`` (powers of 1024, per its docs); df -h prints ``17T``.
"""

from __future__ import annotations

import re

from .errors import ParseError

_SUFFIX_POWER = {"": 0, "B": 0, "K": 1, "M": 2, "G": 3, "T": 4, "P": 5, "E": 6, "Z": 7}
_SIZE_RE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGTPEZ]?)(?:i?B)?\s*$", re.IGNORECASE)


def parse_size(text: str, source: str = "size") -> int:
    """``"300G"`` -> 322122547200. Binary multiples, as ZFS, mergerfs and df -h use."""
    match = _SIZE_RE.match(text)
    if match is None:
        raise ParseError(source, f"not a size: {text!r}")
    number, suffix = match.groups()
    try:
        return int(round(float(number) * 1024 ** _SUFFIX_POWER[suffix.upper()]))
    except (OverflowError, ValueError) as exc:  # "9" * 400 is a float inf
        raise ParseError(source, f"size out of range: {text[:40]!r}") from exc


def parse_count(text: str, source: str = "counter") -> int:
    """ZFS error counters: ``"0"``, ``"12"``, ``"1.88K"``. zfs_nicenum divides by 1024
    for counters too, so ``1.88K`` is about 1925; the tool already rounded, so do we."""
    return parse_size(text, source)


def format_bytes(n: int | None, *, precision: int = 1) -> str:
    """Human size with binary units, like ``df -h``: 1.0K, 231G, 17T."""
    if n is None:
        return "?"
    value = float(n)
    for unit in ("B", "K", "M", "G", "T", "P", "E"):
        if abs(value) < 1024 or unit == "E":
            if unit == "B":
                return f"{int(value)}B"
            return f"{value:.{precision}f}{unit}" if value < 10 else f"{value:.0f}{unit}"
        value /= 1024
    return f"{value:.0f}E"  # pragma: no cover - loop always returns


def format_iec(n: float) -> str:
    """Bytes in fio's binary units with their names: 116 MiB, 5.7 GiB."""
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(value) < 1024 or unit == "PiB":
            return f"{value:.0f} {unit}" if unit == "B" or value >= 100 else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")  # pragma: no cover
