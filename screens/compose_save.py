"""The compose screen's files: ask for a path, ask again before replacing a file, write
(the layout's TOML with ctrl+s; any of its outputs with o, from app/layout_output_files),
say what happened."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual.screen import Screen

from ..app.layout_files import save_layout
from ..app.layout_output_files import output_files, write_output
from ..core.errors import TierdeckError, one_line
from ..core.layout import Layout
from .choice import ChoiceScreen
from .confirm import ConfirmScreen, PromptScreen


def ask_and_write(
    screen: Screen[None], what: str, file_name: str, write: Callable[[Path], None]
) -> None:
    """Ask where to write ``what`` (offering ``file_name``), then ``write`` it there."""
    app = screen.app

    def save(path: Path) -> None:
        try:
            write(path)
        except OSError as exc:
            screen.notify(f"Could not write {what}: {one_line(exc)}", severity="error")
            return
        screen.notify(f"Wrote {what} to {path}")

    def answered(answer: str | None) -> None:
        if not answer:
            return
        path = Path(answer).expanduser()
        if not path.exists():
            save(path)
            return
        # A file the user names may hold something else: replacing it is asked.
        question = f"{path} exists. Replace it with {what}?"
        app.push_screen(
            ConfirmScreen(question, title="Replace file", yes="Replace", no="Keep", danger=True),
            lambda yes: save(path) if yes else screen.notify("Not written."),
        )

    app.push_screen(
        PromptScreen(
            f"Write {what} to:",
            title=f"Write {what}",
            value=file_name,
            validate=lambda text: None if text.strip() else "a file name, please",
        ),
        answered,
    )


def ask_and_save(screen: Screen[None], layout: Layout) -> None:
    ask_and_write(
        screen, "the layout (TOML)", "tierdeck-layout.toml", lambda p: save_layout(p, layout)
    )


def ask_and_write_output(screen: Screen[None], layout: Layout) -> None:
    """Which output (TOML, fstab lines, a unit), then where."""
    try:
        files = {f.key: f for f in output_files(layout)}
    except TierdeckError as exc:
        screen.notify(f"Cannot write the outputs: {one_line(exc)}", severity="error")
        return

    def picked(key: str | None) -> None:
        if key is None:
            return
        chosen = files[key]
        ask_and_write(screen, chosen.label, chosen.file_name, lambda p: write_output(p, chosen))

    screen.app.push_screen(
        ChoiceScreen("Write an output", [(f.key, f.label) for f in files.values()]), picked
    )
