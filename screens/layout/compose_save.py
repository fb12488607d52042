"""The compose screen's files: ask for a path, ask again before replacing a file, write
(the layout's TOML with ctrl+s; any of its outputs with o, from app/layout/output_files),
say what happened; refuse a layout that breaks a rule; ask before leaving one unsaved."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from textual.screen import Screen

from ...app.layout.files import save_layout
from ...app.layout.output_files import output_files, write_output
from ...core.errors import TierdeckError, one_line
from ...core.layout.model import Layout
from ...core.layout.rules import RuleResult, RuleSeverity
from ...core.units import counted
from ..modals.choice import ChoiceScreen
from ..modals.confirm import ConfirmScreen, PromptScreen

if TYPE_CHECKING:
    from ...backends.host import Host


def refusal(results: tuple[RuleResult, ...]) -> str | None:
    """Why a layout is not written (None: it may be): the first rule it breaks, in the
    words of the checks, as ``layout plan --save`` refuses it."""
    errors = [r for r in results if r.severity is RuleSeverity.ERROR]
    if not errors:
        return None
    more = f" (and {counted(len(errors) - 1, 'more error')})" if len(errors) > 1 else ""
    return f"Not written: the layout breaks a rule: {errors[0].message}{more}. See the checks."


def ask_and_write(
    screen: Screen[None],
    what: str,
    file_name: str,
    write: Callable[[Path], None],
    done: Callable[[], None] | None = None,
    *,
    on_host: Host | None = None,
) -> None:
    """Ask where to write ``what`` (offering ``file_name``), then ``write`` it there;
    ``done`` once it is written. ``on_host``: the path is a file of that host (whether
    it exists is asked there, and its ~ is not this machine's)."""
    app = screen.app

    def save(path: Path) -> None:
        try:
            write(path)
        except (OSError, TierdeckError) as exc:
            screen.notify(f"Could not write {what}: {one_line(exc)}", severity="error")
            return
        screen.notify(f"Wrote {what} to {path}")
        if done is not None:
            done()

    def answered(answer: str | None) -> None:
        if not answer:
            return
        path = Path(answer) if on_host is not None else Path(answer).expanduser()
        exists = path.exists() if on_host is None else on_host.exists(str(path))
        if not exists:
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


def ask_and_save(screen: Screen[None], layout: Layout, done: Callable[[], None]) -> None:
    ask_and_write(
        screen, "the layout (TOML)", "tierdeck-layout.toml", lambda p: save_layout(p, layout), done
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


def leave(screen: Screen[None], *, unsaved: bool, quitting: bool = False) -> None:
    """Escape (back to the dashboard) or q (quit tierdeck); with a layout not saved, only
    once the user says to lose it."""

    def go(yes: bool | None = True) -> None:
        if yes and quitting:
            screen.app.exit()
        elif yes:
            screen.dismiss(None)

    if not unsaved:
        go()
        return
    verb = "Quit tierdeck" if quitting else "Leave"
    screen.app.push_screen(
        ConfirmScreen(f"The layout composed here is not saved. {verb} and lose it?",
                      title=verb if quitting else "Leave compose", yes=verb.split()[0],
                      no="Stay", danger=True),
        go,
    )  # fmt: skip
