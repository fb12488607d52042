"""The export key's question: which format, and whether to redact.

A small modal, keyboard first: up/down (or m, c, j, h) pick the format, r turns
redaction on and off, enter writes, escape cancels. It answers with an
:class:`ExportChoice` (or None); the screen that asked writes the file.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ...app.export.formats import ExportFormat

FORMATS = (
    (ExportFormat.MARKDOWN, "m", "Markdown: a table to paste on a forum"),
    (ExportFormat.CSV, "c", "CSV: one row per run, job and direction"),
    (ExportFormat.JSON, "j", "JSON: tierdeck's documented shape"),
    (ExportFormat.HTML, "h", "HTML: one file with tables and charts"),
)


@dataclass(frozen=True)
class ExportChoice:
    fmt: ExportFormat
    redact: bool


class ExportChoiceScreen(ModalScreen[ExportChoice | None]):
    CSS_PATH = "../common.tcss"  # not DEFAULT_CSS: the app's "Screen" rule would win over it

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", show=False),
        Binding("r", "toggle_redact", "Redact", show=False),
        *(Binding(key, f"pick('{fmt.value}')", show=False) for fmt, key, _ in FORMATS),
    ]

    def __init__(self, what: str) -> None:
        super().__init__()
        self.what = what
        self.redact = False

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-box") as box:
            box.border_title = f"Export {self.what}"
            box.border_subtitle = "enter writes · r redact · escape cancels"
            yield OptionList(
                *(Option(f"{key}  {text}", id=fmt.value) for fmt, key, text in FORMATS),
                id="export-formats",
            )
            yield Static(id="export-redact", classes="modal-question")

    def on_mount(self) -> None:
        self._draw_redact()
        self.query_one(OptionList).focus()

    def _draw_redact(self) -> None:
        box = "[x]" if self.redact else "[ ]"
        line = Text(f"{box} r: redact serials, WWNs, UUIDs, host and user names")
        self.query_one("#export-redact", Static).update(line)

    def action_toggle_redact(self) -> None:
        self.redact = not self.redact
        self._draw_redact()

    def action_pick(self, fmt: str) -> None:
        self.dismiss(ExportChoice(ExportFormat(fmt), self.redact))

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(OptionList.OptionSelected, "#export-formats")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            self.action_pick(event.option.id)
