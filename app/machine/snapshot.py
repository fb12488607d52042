"""The last inventory seen of each host, kept between starts so the dashboard paints at once.

One JSON file per host under the cache folder (``backends/localfiles.cache_folder``),
in ``inventory/``, named after a digest of
the host's identity. A file that cannot be read, that does not decode into today's
model, or that belongs to another host is no snapshot: the dashboard then starts from a
skeleton. The dashboard shows a snapshot only marked with its age, until the fresh
collection replaces it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import msgspec

from ...backends.localfiles import cache_folder, write_atomically
from ...core.models import Inventory, Problem

SCHEMA = "tierdeck.inventory-snapshot/1"
# A 240-disk NAS is ~0.3 MB: anything far larger is not a file tierdeck wrote.
MAX_BYTES = 64 * 2**20


@dataclass(frozen=True)
class InventorySnapshot:
    """An inventory as the dashboard last showed it, with the problems found in it."""

    schema: str
    identity: str  # the host's (Host.identity): a copied cache never shows another NAS
    taken_at: float  # wall clock (time.time()) when its collection finished
    inventory: Inventory
    problems: tuple[Problem, ...]

    def age_seconds(self, now: float | None = None) -> float:
        # A clock set back makes the age negative: "0 s ago" beats a nonsense figure.
        return max(0.0, (time.time() if now is None else now) - self.taken_at)


def age_text(seconds: float) -> str:
    """ "12 s", "4 min", "3 h", "2 days": the age a stale mark shows."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    if seconds < 36 * 3600:
        return f"{seconds / 3600:.0f} h"
    return f"{seconds / 86400:.0f} days"


class SnapshotStore:
    """Reads and writes the snapshots of one cache folder (its ``inventory/``)."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = (folder or cache_folder()) / "inventory"

    def path_for(self, identity: str) -> Path:
        """The identity spelled as a file name ("recorded%3A%2Fnas.json"): readable in
        the folder, and no hash library to load before the first paint; a digest only
        for an identity too long for a file name."""
        name = quote(identity, safe="")
        if len(name) > 200:
            import hashlib

            name = hashlib.sha256(identity.encode("utf-8", "surrogateescape")).hexdigest()
        return self.folder / f"{name}.json"

    def load(self, identity: str) -> InventorySnapshot | None:
        """The host's snapshot, or None (none kept, unreadable, or not this model's)."""
        try:
            with open(self.path_for(identity), "rb") as fh:
                data = fh.read(MAX_BYTES + 1)
        except OSError:
            return None
        if len(data) > MAX_BYTES:
            return None
        try:
            snapshot = msgspec.json.decode(data, type=InventorySnapshot)
        except msgspec.MsgspecError:  # garbage, or a model this tierdeck no longer has
            return None
        if snapshot.schema != SCHEMA or snapshot.identity != identity:
            return None
        return snapshot

    def save(
        self,
        identity: str,
        inventory: Inventory,
        problems: tuple[Problem, ...],
        taken_at: float | None = None,
    ) -> InventorySnapshot:
        """Keep the host's inventory (atomically: a reader sees the old file or the new).
        Raises OSError when the cache folder cannot be written."""
        snapshot = InventorySnapshot(
            SCHEMA, identity, time.time() if taken_at is None else taken_at, inventory, problems
        )
        # Private: disk serial numbers and mount paths are the admin's business.
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        write_atomically(self.path_for(identity), msgspec.json.encode(snapshot).decode())
        return snapshot
