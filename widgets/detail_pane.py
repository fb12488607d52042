"""A focusable, scrollable pane that shows one renderable (the selected row's detail)."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static


def plain_row(table: Table, *cells: RenderableType | None) -> None:
    """``table.add_row`` with every string shown as it is: Rich reads a str cell as
    markup, so a path such as ``/mnt/[backup]`` lost its brackets and ``:smile:`` became
    an emoji (and its emoji table, 6 ms of import, loaded on the dashboard's first paint)."""
    table.add_row(*(Text(c) if isinstance(c, str) else c for c in cells))


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
