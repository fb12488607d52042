"""Ask for a password or a key's passphrase: a masked input, enter answers, escape
declines (that way of logging in is then skipped). The answer goes to the caller only;
nothing is written anywhere."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static


class SecretScreen(ModalScreen[str | None]):
    CSS_PATH = "../common.tcss"

    BINDINGS = [Binding("escape", "cancel", "Cancel", show=False)]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-box") as box:
            box.border_title = "Log in over SSH"
            box.border_subtitle = "enter answers · escape skips"
            yield Static(self.question, classes="modal-question")
            yield Input(password=True, id="secret")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _answered(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
