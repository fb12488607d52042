"""Small reusable modals: a yes/no question and a one-line prompt.

Both are keyboard-first (y / n / escape, enter submits) and sized for 80x24; their
look is in common.tcss. They return their answer through ``dismiss``: push them with a callback, or
``await app.push_screen_wait(...)`` from a worker.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import RenderableType
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question. ``y`` answers yes, ``n`` or escape answers no."""

    CSS_PATH = "../common.tcss"  # not DEFAULT_CSS: the app's "Screen" rule would win over it

    BINDINGS = [
        Binding("y", "answer(True)", "Yes", show=False),
        Binding("n", "answer(False)", "No", show=False),
        Binding("escape", "answer(False)", "No", show=False),
    ]

    def __init__(
        self,
        question: RenderableType,
        *,
        title: str = "Confirm",
        yes: str = "Yes",
        no: str = "No",
        danger: bool = False,
        default_yes: bool = False,
    ) -> None:
        super().__init__()
        self.question = question
        self.box_title = title
        self.yes_label = yes
        self.no_label = no
        self.danger = danger
        self.default_yes = default_yes

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-box" + (" -danger" if self.danger else "")) as box:
            box.border_title = self.box_title
            box.border_subtitle = "y yes · n / escape no"
            yield Static(self.question, classes="modal-question")
            with Horizontal(classes="modal-buttons"):
                yield Button(
                    f"{self.yes_label} (y)",
                    id="yes",
                    variant="error" if self.danger else "primary",
                    compact=True,
                )
                yield Button(f"{self.no_label} (n)", id="no", compact=True)

    def on_mount(self) -> None:
        self.query_one("#yes" if self.default_yes else "#no", Button).focus()

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")


Validator = Callable[[str], str | None]  # the text -> an error to show, or None if fine


class PromptScreen(ModalScreen[str | None]):
    """One line of text: enter submits (after ``validate``), escape gives None."""

    CSS_PATH = "../common.tcss"  # not DEFAULT_CSS: the app's "Screen" rule would win over it

    BINDINGS = [Binding("escape", "cancel", "Cancel", show=False)]

    def __init__(
        self,
        question: RenderableType,
        *,
        title: str = "Enter a value",
        value: str = "",
        placeholder: str = "",
        validate: Validator | None = None,
    ) -> None:
        super().__init__()
        self.question = question
        self.box_title = title
        self.value = value
        self.placeholder = placeholder
        self.validate = validate

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-box") as box:
            box.border_title = self.box_title
            box.border_subtitle = "enter accepts · escape cancels"
            yield Static(self.question, classes="modal-question")
            yield Input(self.value, placeholder=self.placeholder, id="prompt-input")
            yield Static("", classes="modal-error", id="prompt-error")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        error = self.validate(event.value) if self.validate is not None else None
        if error:
            self.query_one("#prompt-error", Static).update(error)
            return
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
