"""``i`` in the history list: files of fio output into the history, as ``tierdeck
history import`` does (app/history/fio_import.py: JSON or json+ from fio 2.x on, fio's text
report, a pasted "Run status group" line). A prompt asks for the paths; each file is
stored as a run (one per fio run in it) or refused with the reason, and the list shows
the last one stored.
"""

from __future__ import annotations

import shlex
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import work
from textual.screen import Screen

from ...app.tui.bench_messages import HistoryFailed, HistoryImported
from ...core.errors import one_line
from ..modals.confirm import PromptScreen
from .run_editing import StoreFactory


def import_paths(text: str) -> list[Path]:
    """The prompt's paths: separated by spaces, quoted as in a shell, ~ expanded."""
    return [Path(word).expanduser() for word in shlex.split(text)]


def check_paths(text: str) -> str | None:
    """Why the prompt's text cannot be imported yet, or None."""
    try:
        paths = import_paths(text)
    except ValueError as exc:  # an unclosed quote
        return f"cannot read the paths: {exc}"
    if not paths:
        return "name at least one file"
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        return f"not a file: {', '.join(missing)}"
    return None


class HistoryImport:
    """Mixed into the history list, which provides ``reload`` and ``select_id``."""

    store_factory: StoreFactory
    select_id: int | None

    def action_import(self) -> None:
        screen: Screen[Any] = self  # type: ignore[assignment]

        def chosen(text: str | None) -> None:
            if text is not None:
                self._import(import_paths(text))

        screen.app.push_screen(
            PromptScreen(
                "Files of fio output to import (JSON, json+ or fio's text report), "
                "separated by spaces:",
                title="Import fio results",
                placeholder="~/fio/raw-pool.json ~/notes/mergerfs.txt",
                validate=check_paths,
            ),
            chosen,
        )

    @work(thread=True, group="history-import", exit_on_error=False)
    def _import(self, paths: list[Path]) -> None:
        from ...app.history.fio_import import import_files

        screen: Screen[Any] = self  # type: ignore[assignment]
        try:
            outcomes = import_files(self.store_factory(), paths, now=time.time())
        except Exception as exc:  # noqa: BLE001 - an unusable history is shown, not fatal
            screen.post_message(HistoryFailed(one_line(exc)))
            return
        screen.post_message(HistoryImported(outcomes))

    def on_history_imported(self, message: HistoryImported) -> None:
        from ...app.history.fio_import import failure_text

        screen: Screen[Any] = self  # type: ignore[assignment]
        for outcome in message.outcomes:
            if outcome.runs:
                ids = ", ".join(f"#{run.id}" for run in outcome.runs)
                runs = "runs" if len(outcome.runs) > 1 else "run"
                failed = "; ".join(outcome.failed)
                why = f" ({failed}; f lists the failed runs)" if failed else ""
                said = f"{outcome.path.name}: imported as {runs} {ids}{why}."
                if outcome.left_out:
                    said += " " + "; ".join(outcome.left_out) + "."
                warn = bool(failed or outcome.left_out)
                screen.notify(said, severity="warning" if warn else "information")
                # the last run the list shows (a failed run is listed only by f)
                listed = [run.id for run in outcome.runs if failure_text(run) is None]
                self.select_id = listed[-1] if listed else outcome.runs[-1].id
            elif outcome.refusal is not None:
                screen.notify(
                    f"{outcome.path.name}: not imported: {outcome.refusal}",
                    severity="warning",
                    timeout=10,
                )
        self.reload()

    if TYPE_CHECKING:

        def reload(self, *, first_page: bool = False) -> None: ...
