"""The compose screen's save: ask for a file, ask again before replacing one, write the
layout's TOML (app/layout_files), say what happened."""

from __future__ import annotations

from pathlib import Path

from textual.screen import Screen

from ..app.layout_files import save_layout
from ..core.errors import one_line
from ..core.layout import Layout
from .confirm import ConfirmScreen, PromptScreen


def ask_and_save(screen: Screen[None], layout: Layout) -> None:
    app = screen.app

    def save(path: Path) -> None:
        try:
            save_layout(path, layout)
        except OSError as exc:
            screen.notify(f"Could not save: {one_line(exc)}", severity="error")
            return
        screen.notify(f"Saved the layout to {path}")

    def write(answer: str | None) -> None:
        if not answer:
            return
        path = Path(answer).expanduser()
        if not path.exists():
            save(path)
            return
        # A file the user names may hold something else: replacing it is asked.
        question = f"{path} exists. Replace it with this layout?"
        app.push_screen(
            ConfirmScreen(question, title="Replace file", yes="Replace", no="Keep", danger=True),
            lambda yes: save(path) if yes else screen.notify("Not saved."),
        )

    app.push_screen(
        PromptScreen(
            "Save the layout (TOML) to:",
            title="Save layout",
            value="tierdeck-layout.toml",
            validate=lambda text: None if text.strip() else "a file name, please",
        ),
        write,
    )
