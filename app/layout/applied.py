"""Which branches of a mounted pool are its cache, read back from what ``layout apply``
wrote: the block between ``# BEGIN tierdeck layout NAME`` and ``# END tierdeck layout
NAME`` in fstab (core/layout/apply_plan, core/layout/outputs.fstab_line).

The tiered pool's line lists the cache branches first, then the slow ones; the slow
pool's line in the same block lists only the slow ones, so the cache is what the first
has and the second has not. A block of one line (one slow branch, no slow pool) ends
with its slow branch. A block that no longer matches the running pool (branches changed
by hand since) is not trusted: the compose screen then starts as from any pool.

The mover's settings come from the layout file its service runs (``ExecStart=... mover
run --layout FILE``, the unit apply wrote in /etc/systemd/system) when that file is
still the layout of this pool; else the mover starts from the defaults. The health
check's timer (or none) comes from the same file.
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
import shlex
from dataclasses import dataclass

from ...backends.host import Host
from ...backends.mergerfs import parse_branches
from ...core.errors import HostError, ParseError
from ...core.layout.apply_plan import FSTAB, UNIT_DIR
from ...core.layout.model import Branch, HealthTimer, Layout, LayoutError, MoverPolicy
from ...core.layout.outputs import escape_path
from ...core.layout.toml_format import layout_from_toml
from ...core.models import MergerfsPool

_BEGIN = "# BEGIN tierdeck layout "
_END = "# END tierdeck layout "
_OCTAL = re.compile(r"\\([0-7]{3})")  # fstab(5)'s escapes: \040 is a space


@dataclass(frozen=True)
class AppliedTiers:
    """A tiered pool as tierdeck applied it."""

    cache: tuple[str, ...]
    slow: tuple[Branch, ...]  # in pool order, with their modes in the tiered pool
    slow_pool: str | None  # its mountpoint; None: the layout had none
    mover: MoverPolicy | None = None  # from the layout file the mover's service runs
    health: HealthTimer | None = None  # from that file too


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


def service_layout_path(unit: str) -> str | None:
    """The FILE of ``ExecStart=... --layout FILE`` in a mover service tierdeck wrote
    (core/layout/outputs: systemd's quoting, ``%%`` for ``%``)."""
    for line in unit.split("\n"):
        if line.startswith("ExecStart="):
            try:
                words = shlex.split(line.removeprefix("ExecStart="))
            except ValueError:  # an unbalanced quote: edited by hand
                return None
            if "--layout" in words[:-1]:
                found = words[words.index("--layout") + 1]
                return found.replace("%%", "%").replace("$$", "$")
    return None


def mover_layout_path(host: Host, pool: MergerfsPool) -> str | None:
    """The layout file the pool's mover service runs, as its unit names it; None
    without such a unit."""
    unit = posixpath.join(UNIT_DIR, f"tierdeck-mover-{escape_path(pool.mountpoint)}.service")
    try:
        return service_layout_path(host.read_text(unit))
    except (OSError, HostError):
        return None


def _service_layout(host: Host, pool: MergerfsPool) -> Layout | None:
    path = mover_layout_path(host, pool)
    try:
        layout = layout_from_toml(host.read_text(path)) if path else None
    except (OSError, HostError, LayoutError):
        return None
    if layout is None or layout.tiered_pool.mountpoint != pool.mountpoint:
        return None  # the file now holds another layout
    return layout


def read_applied_tiers(host: Host, pool: MergerfsPool) -> AppliedTiers | None:
    """applied_tiers from this machine's fstab, with its mover's settings; None when
    fstab cannot be read or has no block for ``pool``."""
    try:
        tiers = applied_tiers(host.read_text(FSTAB), pool)
    except (OSError, HostError):
        return None
    if tiers is None:
        return None
    layout = _service_layout(host, pool)
    if layout is None:
        return tiers
    return dataclasses.replace(tiers, mover=layout.mover, health=layout.health)
