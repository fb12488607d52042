"""The mover's forecast from the machine: scan the cache branches, measure how full
they are and how much room the slow branches have, select and place the files
(core/mover.py), and say how long it should take from the benchmark history.

Everything is read through the Host; nothing is changed.
"""

from __future__ import annotations

import posixpath
import random
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ...backends.host import FsUsage, Host
from ...backends.mover.scan import BranchScan, is_noatime
from ...core.errors import HostError, TierdeckError
from ...core.layout.branch_facts import BranchFacts
from ...core.layout.destination import destination_of
from ...core.layout.model import AgeBasis, Layout
from ...core.models import Inventory, Mount
from ...core.mover import (
    CacheUsage,
    MissingDirs,
    Plan,
    SlowSpace,
    forecast_seconds,
    place,
    select_files,
)
from ...core.units import format_bytes
from .why import unplaced_reason

if TYPE_CHECKING:
    from ..history.best_writes import MeasuredWrite


class WriteHistory(Protocol):
    """What the forecast asks of the benchmark history (app/history/best_writes.py's
    HistoryWrites on a run; a HistoryStore answers it too)."""

    def best_writes(self) -> list[MeasuredWrite]:
        """Raises TierdeckError (HistoryError) when the history cannot be read."""
        ...


class HistoryWrites:
    """The benchmark history at ``path`` as the forecast reads it: with sqlite3 alone
    (app/history/best_writes.py), or through the run store when the file needs it (another
    schema version: the store migrates or refuses it)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def best_writes(self) -> list[MeasuredWrite]:
        from ..history.best_writes import read_best_writes

        found = read_best_writes(self.path)
        if found is not None:
            return found
        from ..history.store import HistoryStore

        return HistoryStore(self.path).best_writes()


@dataclass(frozen=True)
class Forecast:
    plan: Plan
    scans: tuple[BranchScan, ...]
    seconds: float | None
    note: str  # where the bandwidth came from, or why there is none
    noatime_branches: tuple[str, ...]
    unplaced_reason: str = ""  # why selected files fit on no slow branch (app/mover/why)


def _mount(inv: Inventory, facts: Mapping[str, BranchFacts], path: str) -> Mount | None:
    fact = facts.get(path)
    top = fact.mount_point if fact else None
    return next((m for m in reversed(inv.mounts) if m.mountpoint == top), None)


def _missing_dirs(host: Host, layout: Layout) -> MissingDirs:
    @cache
    def exists(path: str) -> bool:
        try:
            return host.is_dir(path)
        except HostError:
            return False

    def missing(dest: str, parent: str) -> int:
        count, d = 0, parent
        while d and not exists(posixpath.join(dest, d)):
            count, d = count + 1, posixpath.dirname(d)
        if not d:
            # Up to the destination folder (a folder of the slow pool): mergerfs sees
            # its levels missing on a branch too, up to the branch itself.
            root, d = _branch_of(layout, dest), dest
            while d != root and d != "/" and not exists(d):
                count, d = count + 1, posixpath.dirname(d)
        return count

    return missing


def _space(host: Host, path: str) -> FsUsage:
    try:
        return host.statvfs(path)
    except OSError as exc:  # host errors are TierdeckErrors already: the run stops on either
        raise HostError(f"cannot read the free space of {path}: {exc}") from exc


def forecast(
    host: Host,
    layout: Layout,
    inv: Inventory,
    facts: Mapping[str, BranchFacts],
    now: float,
    *,
    min_age_days: int | None,
    history: WriteHistory | None,
) -> Forecast:
    """What a run would move now, where, and how long it should take. HostError when a
    cache branch cannot be walked or a branch's space cannot be read."""
    scans = tuple(host.scan_branch(b) for b in layout.mover.source)
    usage = {}
    for b in layout.mover.source:
        fs = _space(host, b)
        usage[b] = CacheUsage(b, fs.used_bytes, fs.avail_bytes)
    files = [f for s in scans for f in s.files]
    selected = select_files(files, layout.mover, usage, now, min_age_days=min_age_days)
    dest = destination_of(layout)
    space = {}
    for p in dest.branches:
        # The branch itself: the destination may be a folder not made on it yet.
        branch = _branch_of(layout, p)
        fs = _space(host, branch)
        mount = _mount(inv, facts, branch)
        ro = mount is not None and "ro" in mount.options
        space[p] = SlowSpace(
            p, fs.avail_bytes, fs.used_bytes, readonly_fs=ro, block_size=fs.block_size
        )
    plan = place(
        selected,
        dest,
        space,
        missing_dirs=_missing_dirs(host, layout),
        rng=random.Random(int(now)),
    )
    seconds, note = _duration(plan, layout, facts, history)
    noatime: tuple[str, ...] = ()
    if layout.mover.age_basis is AgeBasis.ATIME:
        noatime = tuple(
            b for b in layout.mover.source if (m := _mount(inv, facts, b)) and is_noatime(m)
        )
    why = unplaced_reason(plan.unplaced, dest, tuple(space.values()))
    return Forecast(plan, scans, seconds, note, noatime, why)


def _branch_of(layout: Layout, path: str) -> str:
    """The slow branch a destination path (a branch, or a folder of one) is on."""
    for b in layout.slow:
        if path == b.path or path.startswith(b.path.rstrip("/") + "/"):
            return b.path
    return path


def best_write_bandwidth(writes: list[MeasuredWrite], fact: BranchFacts | None) -> int | None:
    """The best write bandwidth measured on this branch's filesystem."""
    if fact is None or fact.mount_point is None:
        return None
    top = fact.mount_point
    best: int | None = None
    for measured in writes:
        where = measured.where
        if where != top and not where.startswith(top.rstrip("/") + "/"):
            continue
        if measured.bw_bytes > 0 and (best is None or measured.bw_bytes > best):
            best = measured.bw_bytes
    return best


def _duration(
    plan: Plan, layout: Layout, facts: Mapping[str, BranchFacts], history: WriteHistory | None
) -> tuple[float | None, str]:
    """Moves run one after another: the sum over the slow branches of their bytes at
    their best measured write bandwidth; None unless every branch used was measured."""
    per_branch: dict[str, int] = {}
    for m in plan.moves:
        branch = _branch_of(layout, m.destination)
        per_branch[branch] = per_branch.get(branch, 0) + m.file.size
    if not per_branch:
        return 0.0, "nothing to move"
    if history is None:
        return None, "no benchmark history"
    try:
        writes = history.best_writes()
    except TierdeckError as exc:  # HistoryError: the file cannot be used
        return None, f"the benchmark history cannot be read: {exc}"
    seconds = 0.0
    used: list[str] = []
    for branch, size in sorted(per_branch.items()):
        bps = best_write_bandwidth(writes, facts.get(branch))
        if bps is None:
            return None, f"no benchmark of {branch}'s filesystem in the history"
        seconds += forecast_seconds(size, bps) or 0.0
        used.append(f"{branch} {format_bytes(bps)}/s")
    return seconds, "best write bandwidth measured: " + ", ".join(used)
