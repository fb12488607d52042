"""``?`` (or F1): the keys of the screen it was pressed on, on one page.

The keys come from that screen's BINDINGS and the app's (those the screen does not
take over), each described by its binding's tooltip, so the page cannot drift from
what the keys do. Each screen adds a few navigation notes (``HELP_NOTES``: arrows,
tab) and may add a legend (``HELP_LEGEND``). Tests check that every binding is listed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

_KEY_NAMES = {"question_mark": "?", "escape": "escape", "enter": "enter"}

HelpRow = tuple[str, str]


def key_label(binding: Binding) -> str:
    """How the key is written on the page: ``?``, ``ctrl+r``, ``escape``."""
    key = binding.key_display or binding.key
    return _KEY_NAMES.get(key, key)


def _bindings(items: Iterable[BindingType]) -> list[Binding]:
    return [item if isinstance(item, Binding) else Binding(*item) for item in items]


def binding_rows(
    screen_bindings: Iterable[BindingType], app_bindings: Iterable[BindingType] = ()
) -> list[HelpRow]:
    """One row per thing a key does: keys with the same meaning share a row ("c /
    escape"), a key with two meanings (escape: cancel, then back) gets two. App keys
    that the screen binds itself are left out: the screen's meaning wins."""
    own = _bindings(screen_bindings)
    taken = {b.key for b in own}
    listed = own + [b for b in _bindings(app_bindings) if b.key not in taken]
    rows: dict[str, list[str]] = {}
    for binding in listed:
        what = binding.tooltip or binding.description
        keys = rows.setdefault(what, [])
        if key_label(binding) not in keys:
            keys.append(key_label(binding))
    return [(" / ".join(keys), what) for what, keys in rows.items()]


def help_rows(screen: Screen[object], app_bindings: Sequence[BindingType]) -> list[HelpRow]:
    """The page for ``screen``: its keys, the app's keys, then its navigation notes."""
    notes: Sequence[HelpRow] = getattr(screen, "HELP_NOTES", ())
    return binding_rows(type(screen).BINDINGS, app_bindings) + list(notes)


class HelpScreen(ModalScreen[None]):
    CSS_PATH = "help.tcss"

    BINDINGS = [
        Binding("escape", "dismiss", "Close", show=True),
        Binding("question_mark", "dismiss", "Close", show=False),
        Binding("f1", "dismiss", "Close", show=False),
        # A modal hides the keys below it: q must still do what the page says it does
        # there (on the run screen: ask before stopping fio).
        Binding("q", "quit_below", "Quit", show=False),
    ]

    def __init__(self, title: str, rows: Sequence[HelpRow], legend: str | None = None) -> None:
        super().__init__()
        self.page_title = title
        self.rows = list(rows)
        self.legend = legend

    @classmethod
    def for_screen(cls, screen: Screen[object], app_bindings: Sequence[BindingType]) -> HelpScreen:
        title = getattr(screen, "HELP_TITLE", None) or "tierdeck keys"
        return cls(title, help_rows(screen, app_bindings), getattr(screen, "HELP_LEGEND", None))

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold cyan", no_wrap=True)
        table.add_column()
        for key, what in self.rows:
            table.add_row(key, what)
        with VerticalScroll(id="help-box") as box:
            box.border_title = self.page_title
            box.border_subtitle = "escape closes"
            yield Static(table, id="help-keys")
            if self.legend:
                yield Static(Text(self.legend, style="dim"), id="help-legend")

    def action_quit_below(self) -> None:
        below = self.app.screen_stack[-2] if len(self.app.screen_stack) > 1 else None
        self.dismiss(None)
        quit_below = getattr(below, "action_quit", None)
        if callable(quit_below):
            quit_below()
        else:
            self.app.exit()
