"""Which branches of a mounted pool are its cache, read back from what ``layout apply``
wrote: the block between ``# BEGIN tierdeck layout NAME`` and ``# END tierdeck layout
NAME`` in fstab (core/layout_apply, core/layout_outputs.fstab_line).

The tiered pool's line lists the cache branches first, then the slow ones; the slow
pool's line in the same block lists only the slow ones, so the cache is what the first
has and the second has not. A block of one line (one slow branch, no slow pool) ends
with its slow branch. A block that no longer matches the running pool (branches changed
by hand since) is not trusted: the compose screen then starts as from any pool.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..backends.host import Host
from ..backends.mergerfs import parse_branches
from ..core.errors import HostError, ParseError
from ..core.layout import Branch
from ..core.layout_apply import FSTAB
from ..core.models import MergerfsPool

_BEGIN = "# BEGIN tierdeck layout "
_END = "# END tierdeck layout "
_OCTAL = re.compile(r"\\([0-7]{3})")  # fstab(5)'s escapes: \040 is a space


@dataclass(frozen=True)
class AppliedTiers:
    """A tiered pool as tierdeck applied it."""

    cache: tuple[str, ...]
    slow: tuple[Branch, ...]  # in pool order, with their modes in the tiered pool
    slow_pool: str | None  # its mountpoint; None: the layout had none


def _field(text: str) -> str:
    return _OCTAL.sub(lambda m: chr(int(m.group(1), 8)), text)


def _blocks(fstab: str) -> list[list[tuple[str, tuple[Branch, ...]]]]:
    """Each tierdeck block's mergerfs lines as (mountpoint, branches)."""
    blocks: list[list[tuple[str, tuple[Branch, ...]]]] = []
    current: list[tuple[str, tuple[Branch, ...]]] | None = None
    for line in fstab.split("\n"):
        line = line.strip()
        if line.startswith(_BEGIN):
            current = []
        elif line.startswith(_END):
            if current is not None:
                blocks.append(current)
            current = None
        elif current is not None and line and not line.startswith("#"):
            fields = line.split()
            if len(fields) < 3 or fields[2] != "fuse.mergerfs":
                continue
            try:
                branches = parse_branches(_field(fields[0]))
            except ParseError:
                continue  # edited by hand into something mergerfs would not take
            current.append((_field(fields[1]), tuple(Branch(b.path, b.mode) for b in branches)))
    return blocks


def applied_tiers(fstab: str, pool: MergerfsPool) -> AppliedTiers | None:
    """The tiers of ``pool`` if a tierdeck block in ``fstab`` mounts it, and the pool
    still has the branches the block gives it."""
    live = [b.path for b in pool.branches]
    for block in _blocks(fstab):
        tiered = next((branches for mp, branches in block if mp == pool.mountpoint), None)
        if tiered is None or [b.path for b in tiered] != live:
            continue
        others = [(mp, branches) for mp, branches in block if mp != pool.mountpoint]
        if others:
            slow_pool, slow_paths = others[0][0], {b.path for b in others[0][1]}
        else:
            slow_pool, slow_paths = None, {tiered[-1].path}
        cache = tuple(b.path for b in tiered if b.path not in slow_paths)
        slow = tuple(b for b in tiered if b.path in slow_paths)
        if cache and slow:
            return AppliedTiers(cache, slow, slow_pool)
    return None


def read_applied_tiers(host: Host, pool: MergerfsPool) -> AppliedTiers | None:
    """applied_tiers from this machine's fstab; None when it cannot be read."""
    try:
        return applied_tiers(host.read_text(FSTAB), pool)
    except (OSError, HostError):
        return None
