"""The benchmark setup's job text: a preset's as it will run (read-only, its name in
the border), or a custom job being written (editable). Switching to the custom job
starts from the text last shown; the custom text is kept while a preset is shown, so
going back to "Custom job" finds it again."""

from __future__ import annotations

from textual.widgets import TextArea

CUSTOM_TITLE = "custom job (editable .fio text)"


class JobEditor(TextArea):
    def __init__(self, custom_text: str, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id, soft_wrap=False, show_line_numbers=False, tab_behavior="focus")
        self.custom_text = custom_text

    def show_custom(self) -> bool:
        """Editable, from the text last shown; False when it was editable already."""
        if not self.read_only:
            return False
        if self.text.strip():
            self.custom_text = self.text
        self.read_only = False
        self.load_text(self.custom_text)
        self.border_title = CUSTOM_TITLE
        return True

    def show_preset(self, name: str) -> None:
        """Read-only, titled with the preset (its text follows: ``show_text``)."""
        self.read_only = True
        self.border_title = f"fio parameters: {name}"

    def show_text(self, text: str) -> None:
        """The preset's text as it will run, loaded only when it changed."""
        if self.text != text:
            self.load_text(text)

    def typed(self) -> str | None:
        """The custom text after an edit (kept), or None for a preset's text."""
        if self.read_only:
            return None
        self.custom_text = self.text
        return self.text
