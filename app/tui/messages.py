"""Messages between tierdeck's background workers/threads and the UI.

Workers never touch widgets: they post one of these and the app reacts on its own
thread. They are small dataclasses (the Toolong/Posting habit) so tests can build them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

from ...core.models import Inventory, Problem

if TYPE_CHECKING:  # the fleet's modules load with the fleet screen, not the dashboard
    from ...core.disk_health import HealthReport
    from ..fleet.status import HostStatus


@dataclass
class InventoryLoaded(Message):
    """A fresh inventory, with the problems found in it (computed off the UI thread)."""

    inventory: Inventory
    problems: tuple[Problem, ...]
    seconds: float  # how long collect_inventory took: shown nowhere yet, kept for the log


@dataclass
class HealthLoaded(Message):
    """Every disk's SMART health and every pool's, read off the UI thread."""

    report: HealthReport


class DashboardPainted(Message):
    """The dashboard has painted for the first time (the kept inventory, or the skeleton
    of a first start): time for the fresh collection, whose threads would have slowed
    that paint."""


@dataclass
class InventoryFailed(Message):
    """collect_inventory raised: the app keeps the previous inventory and says why."""

    error: str  # one line, ready for a notification


@dataclass
class HotplugEvent(Message):
    """udev saw a block device come or go. Bursts are debounced by the app."""

    action: str  # "add" or "remove"
    device: str  # kernel name: "sdf", "sdf1"

    def can_replace(self, message: Message) -> bool:
        # A burst of add events (a disk and its partitions) needs one refresh, not ten.
        return isinstance(message, HotplugEvent)


@dataclass
class FleetHostAnswered(Message):
    """One host of the fleet answered, or was written down as silent at the deadline.
    ``round`` is the collection it belongs to: a row never shows an older round's."""

    status: HostStatus
    round: int
    signed_in: bool = False  # the answer of a sign-in (enter on a row wanting a secret)


@dataclass
class FleetCollected(Message):
    """Every host of a collection has its row."""

    round: int
