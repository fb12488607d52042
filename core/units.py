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


def format_bytes_exact(n: int) -> str:
    """A size where the exact figure matters (a refusal): "1.0G (1073741824 bytes)"."""
    return f"{format_bytes(n)} ({n} bytes)"


# --- fio's units: binary multiples with their names, as fio's own report prints them.
# One module for every figure tierdeck shows (the TUI, the CLI and the warnings).

MIB = 1 << 20


def fmt_bytes(n: float) -> str:
    """``116 MiB``, ``97.4 MiB``, ``0 B``: at most 8 cells wide."""
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(value) < 1024 or unit == "PiB":
            if unit == "B" or abs(value) >= 100:
                return f"{value:.0f} {unit}"
            return f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")  # pragma: no cover


def fmt_rate_short(bytes_per_s: float) -> str:
    """``151 MiB/s``: at most 10 cells wide (tables and panels)."""
    return fmt_bytes(bytes_per_s) + "/s"


def fmt_rate(bytes_per_s: float) -> str:
    """``151.0 MiB/s``: one decimal from KiB/s up (charts and summaries)."""
    value = bytes_per_s
    for unit in ("B/s", "KiB/s", "MiB/s", "GiB/s"):
        if abs(value) < 1024:
            return f"{value:.0f} {unit}" if unit == "B/s" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} TiB/s"


def fmt_mib(bytes_per_s: float | None) -> str:
    """A bare MiB/s figure for a column headed "MiB/s": ``1,240.3``; ``-`` unknown."""
    return "-" if bytes_per_s is None else f"{bytes_per_s / MIB:,.1f}"


def fmt_count(value: float) -> str:
    """IOPS: 950, 12.3k, 1.2M."""
    for unit, size in (("", 1.0), ("k", 1e3), ("M", 1e6)):
        if abs(value) < size * 1000:
            return f"{value:.0f}" if not unit else f"{value / size:.1f}{unit}"
    return f"{value / 1e9:.1f}G"


def counted(n: int, word: str) -> str:
    """``n`` and ``word`` in agreement: "1 error", "0 errors", "3 warnings"."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def fmt_ns(ns: float) -> str:
    """Latency from nanoseconds: 850 ns, 12.3 µs, 4.5 ms, 1.2 s."""
    if abs(ns) < 1000:
        return f"{ns:.0f} ns"
    for unit, size in (("µs", 1e3), ("ms", 1e6)):
        if abs(ns) < size * 1000:
            return f"{ns / size:.1f} {unit}"
    return f"{ns / 1e9:.2f} s"


def fmt_clock(seconds: float | None) -> str:
    """An ETA or a duration as m:ss; ``--:--`` while unknown."""
    if seconds is None:
        return "--:--"
    whole = max(int(seconds + 0.5), 0)
    return f"{whole // 60}:{whole % 60:02d}"
