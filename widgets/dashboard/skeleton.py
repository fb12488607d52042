"""What the dashboard shows before it knows, and how it marks what changed.

A first start on a machine draws the tables' shape with dim placeholders (a skeleton),
not a blank screen; a refresh marks the rows that differ from the inventory shown
before it with ``CHANGED_MARK``.
"""

from __future__ import annotations

from rich.text import Text

from ...core.inventory_changes import InventoryChanges

SKELETON_NOTE = "reading this machine's storage for the first time…"
LOADING_REFUSAL = "The inventory is still loading: try again in a moment."
KEPT_REFUSAL = (
    "The inventory on screen was kept from an earlier start: wait for the fresh one "
    "(r retries a failed refresh)."
)
CHANGED_MARK = "*"
CHANGED_STYLE = "bold magenta"
PLACEHOLDER_STYLE = "dim"


def placeholder(width: int) -> Text:
    """A grey bar where a value will be."""
    return Text("░" * max(1, width), style=PLACEHOLDER_STYLE)


def mark_changed(label: Text) -> Text:
    """``label`` followed by the changed mark (in place, and returned)."""
    label.append(CHANGED_MARK, style=CHANGED_STYLE)
    return label


def changes_note(changes: InventoryChanges) -> str:
    """ "refreshed: 2 changed (marked *), 1 gone: disk sdf" for the line under the title."""
    marked = len(changes.disks) + len(changes.zpools) + len(changes.mergerfs)
    parts = []
    if marked:
        parts.append(f"{marked} changed (marked {CHANGED_MARK})")
    if changes.gone:
        parts.append(f"{len(changes.gone)} gone: {', '.join(changes.gone)}")
    return "refreshed: " + "; ".join(parts)
