"""Pick one of a few named things: a small modal list, up/down and enter, escape
cancels. It answers with the picked key (or None). A note above the list may say what
the choice is about; ``highlight`` puts the cursor on a key (a menu opened again)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import RenderableType
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option


class ChoiceScreen(ModalScreen[str | None]):
    CSS_PATH = "../common.tcss"  # not DEFAULT_CSS: the app's "Screen" rule would win over it

    BINDINGS = [Binding("escape", "cancel", "Cancel", show=False)]

    def __init__(
        self,
        title: str,
        choices: Sequence[tuple[str, str]],
        *,
        note: RenderableType | None = None,
        highlight: str | None = None,
    ) -> None:
        """``choices``: (key, label) pairs, shown in order."""
        super().__init__()
        self.box_title = title
        self.choices = tuple(choices)
        self.note = note
        self.highlight = highlight

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-box") as box:
            box.border_title = self.box_title
            box.border_subtitle = "enter picks · escape cancels"
            if self.note is not None:
                yield Static(self.note, classes="modal-question")
            yield OptionList(*(Option(label, id=key) for key, label in self.choices))

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.focus()
        keys = [key for key, _ in self.choices]
        if self.highlight in keys:
            options.highlighted = keys.index(self.highlight)

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
