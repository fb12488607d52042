"""The result box over a run's charts, as the live run screen fills it once fio is done:
the result with where it is stored (or why it is not), the cache warnings in their own
box, or why the run did not start. The history's run detail shows a stored run with
the same pieces (``run_view``)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import Static

from ...core.bench_models import RunResult, RunStatus, RunWarning
from ..shown_text import show_or_hide
from .run_view import cache_warning_text, result_renderable


def saved_line(saved_id: int | None, save_error: str | None) -> str:
    if saved_id is not None:
        return f"saved as run #{saved_id} (h: history)"
    if save_error is not None:
        return "NOT saved: " + save_error
    return "saving…"


def show_result(
    summary: Static,
    result: RunResult,
    saved_id: int | None,
    save_error: str | None,
    *,
    error_rows: int,
) -> None:
    """The finished run in ``summary``, marked as a problem unless it went ok."""
    hint = "h: the run in the history has them all" if saved_id else "kept in the history"
    summary.update(
        result_renderable(
            result,
            saved_line(saved_id, save_error),
            cache_shown=True,
            error_rows=error_rows,
            more_hint=hint,
        )
    )
    summary.display = True
    summary.set_class(result.status is not RunStatus.OK, "-problem")


def show_crash(summary: Static, error: str) -> None:
    """Why the run did not start, in ``summary``."""
    summary.update(Text.assemble(("✘ the run did not start: ", "bold red"), error))
    summary.display = True


def show_cache_warnings(box: Static, warnings: Sequence[RunWarning | str]) -> None:
    """The warnings that the figures may be memory's, in their box (hidden without)."""
    show_or_hide(box, cache_warning_text(warnings) if warnings else None)


def command_text(command: Sequence[str]) -> Text:
    """The measuring fio command, as run, under the charts (all of it bold dim: the
    label's style is the text's base)."""
    text = Text("fio command: ", style="bold dim")
    text.append(" ".join(command), style="dim")
    return text


def notices_text(notices: Sequence[str], rows: int = 3) -> Text | str:
    """The last ``rows`` notices (the cache warnings have their box)."""
    shown = notices[-rows:]
    return Text("\n".join(shown), style="dim") if shown else ""
