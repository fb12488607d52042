"""How full each cache branch is now, against the mover's watermarks, and whether its
mount keeps atime: what the compose screen says beside the mover's settings.

A cache fuller than ``fill_high_pct`` makes the mover move the oldest files whatever
their age, down to ``fill_low_pct``; below it only files older than ``min_age_days``
move (core/layout/model.MoverPolicy). On a ``noatime`` mount a file's atime stays at when it
was written, so an atime mover ages files by their writing, not by their last read.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ...core.layout.model import MoverPolicy
from ...core.models import Inventory
from .facts import mount_of


class FillState(StrEnum):
    UNKNOWN = "unknown"  # no mount, or no usage figures for it
    BELOW_HIGH = "below-high"  # only files older than min_age_days move
    ABOVE_HIGH = "above-high"  # the oldest files move, whatever their age, to fill_low


@dataclass(frozen=True)
class CacheFill:
    path: str
    used_pct: float | None  # as df computes it
    noatime: bool  # its mount has noatime: atime never follows reads

    def state(self, mover: MoverPolicy) -> FillState:
        if self.used_pct is None:
            return FillState.UNKNOWN
        if self.used_pct > mover.fill_high_pct:
            return FillState.ABOVE_HIGH
        return FillState.BELOW_HIGH


def cache_fills(inv: Inventory, cache: tuple[str, ...]) -> tuple[CacheFill, ...]:
    """Each cache branch's fill and atime behaviour, from the mount that holds it."""
    out = []
    for path in cache:
        mount = mount_of(inv, path)
        fraction = mount.use_fraction if mount else None
        out.append(
            CacheFill(
                path,
                None if fraction is None else fraction * 100,
                mount is not None and "noatime" in mount.options,
            )
        )
    return tuple(out)
