"""Where a layout's mover writes: the slow branches and the create policy among them.

A layout's own fact (its mover destination and its slow pool), read by the fstab and
unit outputs and by the mover; kept here so the layout package never imports the mover.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from .model import GIB, BranchMode, CreatePolicy, Layout

# mergerfs's minfreespace when a layout has no slow pool to say otherwise.
DEFAULT_MINFREESPACE = 4 * GIB


@dataclass(frozen=True)
class Destination:
    """Where the mover writes: the slow branches (each with the destination's
    sub-folder appended), the create policy choosing among them and its minfreespace."""

    branches: tuple[str, ...]
    policy: CreatePolicy
    minfreespace_bytes: int


def destination_of(layout: Layout) -> Destination:
    """The slow pool's branches and create policy when the mover moves into the slow
    pool (or a folder of it); the one branch, taking any file that fits, when it moves
    into a slow branch. The layout rules refuse every other destination. Either way
    the slow pool's minfreespace (mergerfs's 4G without a slow pool) is kept free."""
    dest = posixpath.normpath(layout.mover.destination)
    pool = layout.slow_pool
    minfree = pool.options.minfreespace_bytes if pool is not None else DEFAULT_MINFREESPACE
    if pool is not None:
        top = posixpath.normpath(pool.mountpoint)
        if dest == top or dest.startswith(top.rstrip("/") + "/"):
            sub = posixpath.relpath(dest, top)
            writable = [b.path for b in layout.slow_branches() if b.mode is BranchMode.RW]
            paths = tuple(posixpath.normpath(posixpath.join(p, sub)) for p in writable)
            return Destination(paths, pool.options.create, pool.options.minfreespace_bytes)
    return Destination((dest,), CreatePolicy.FF, minfree)
