"""A Static that takes room only while it has something to say (a note, an error, a
warning box): shown with its content, hidden when there is none. Screens update
several such boxes; this is the one way they do it."""

from __future__ import annotations

from rich.console import RenderableType
from textual.widgets import Static


def show_or_hide(box: Static, content: RenderableType | None) -> None:
    """``content`` in ``box`` and the box shown, or the box emptied and hidden."""
    box.update(content if content is not None else "")
    box.display = content is not None
