"""``?``: every key of the dashboard on one page (a test checks it lists every binding)."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

KEYS: tuple[tuple[str, str], ...] = (
    ("1 2 3 4", "Disks, Pools, mergerfs, Problems"),
    ("b", "benchmark the selected mount, pool, branch or disk (fio)"),
    ("h", "benchmark history: open, compare, rename, tag, delete runs"),
    ("r", "refresh the inventory now"),
    ("?", "this help"),
    ("q / ctrl+q", "quit"),
    ("tab / shift+tab", "next / previous pane (tab bar, list, detail)"),
    ("up / down", "move in a list or tree; scroll the detail pane"),
    ("pgup / pgdn", "page up / down"),
    ("home / end", "first / last row"),
    ("left / right", "switch tab on the tab bar; scroll wide tables"),
    ("enter / space", "expand or collapse a tree node (Pools)"),
    ("shift+up / down", "previous / next sibling in the tree"),
    ("shift+left", "go to the parent node in the tree"),
    ("escape", "close this help"),
)


class HelpScreen(ModalScreen[None]):
    CSS_PATH = "help.tcss"

    BINDINGS = [
        Binding("escape", "dismiss", "Close", show=True),
        Binding("question_mark", "dismiss", "Close", show=False),
        # A modal screen hides the app's bindings: q must still quit, as the list says.
        Binding("q", "app.quit", "Quit", show=False),
    ]

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold cyan", no_wrap=True)
        table.add_column()
        for key, what in KEYS:
            table.add_row(key, what)
        with VerticalScroll(id="help-box") as box:
            box.border_title = "tierdeck keys"
            box.border_subtitle = "escape closes"
            yield Static(table, id="help-keys")
            yield Static(
                Text(
                    "Red: degraded/faulted vdevs and arrays, branches below minfreespace, "
                    "filesystems over 90% full. ! after a disk: something was unreadable.",
                    style="dim",
                ),
                id="help-legend",
            )
