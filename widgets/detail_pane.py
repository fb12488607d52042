"""A focusable, scrollable pane that shows one renderable (the selected row's detail)."""

from __future__ import annotations

from rich.console import Group, RenderableType
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static


class DetailPane(VerticalScroll):
    """Focusable so keyboard users can scroll long option lists with the arrows."""

    DEFAULT_CSS = """
    DetailPane {
        height: 1fr;
        border-top: solid $primary-darken-2;
        padding: 0 1;
        &:focus { border-top: solid $accent; }
        & > Static { width: 1fr; }
    }
    """

    def compose(self) -> ComposeResult:
        yield Static("", classes="detail-body")

    def show(self, *parts: RenderableType) -> None:
        self.query_one(".detail-body", Static).update(Group(*parts))
        self.scroll_home(animate=False)
