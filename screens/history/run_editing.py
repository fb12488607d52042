"""Rename, tag and delete a stored run: the same keys in the history list and in a
run's detail view. Each asks first (a prompt, or a confirmation for delete), then runs
the store call in a thread and answers with HistoryChanged or HistoryFailed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import work
from textual.screen import Screen

from ...app.history.store import RunStore
from ...app.tui.bench_messages import HistoryChanged, HistoryFailed
from ...core.bench_models import RunResult
from ...core.errors import one_line
from ..modals.confirm import ConfirmScreen, PromptScreen

StoreFactory = Callable[[], RunStore]  # app.history.HistoryStore; tests pass stand-ins


def default_store() -> RunStore:
    from ...app.history.store import HistoryStore

    return HistoryStore()


def when(epoch: float, *, short: bool = False) -> str:
    """Local time; ``short`` drops the year (the list at 80 columns)."""
    return time.strftime("%m-%d %H:%M" if short else "%Y-%m-%d %H:%M", time.localtime(epoch))


def split_tags(text: str) -> list[str]:
    return [t for t in text.replace(",", " ").split() if t]


class RunEditing:
    """Mixed into the history list and the detail view."""

    store_factory: StoreFactory

    def _edit_run(self, run: RunResult, what: str) -> None:
        screen: Screen[Any] = self  # type: ignore[assignment]
        assert run.id is not None
        run_id = run.id
        if what == "rename":

            def renamed(name: str | None) -> None:
                if name is not None:
                    self._store_op(run_id, "renamed", lambda s: s.rename(run_id, name))

            screen.app.push_screen(
                PromptScreen(
                    f"New name for run #{run_id}:",
                    title="Rename run",
                    value=run.name,
                    validate=lambda v: None if v.strip() else "a name cannot be empty",
                ),
                renamed,
            )
        elif what == "tag":

            def tagged(text: str | None) -> None:
                if text is not None:
                    tags = split_tags(text)
                    self._store_op(run_id, "tagged", lambda s: s.set_tags(run_id, tags))

            screen.app.push_screen(
                PromptScreen(
                    f"Tags for run #{run_id}, separated by spaces or commas "
                    "(an empty line removes them):",
                    title="Tag run",
                    value=" ".join(run.tags),
                    placeholder="baseline nvme-cache",
                ),
                tagged,
            )
        elif what == "delete":

            def deleted(yes: bool | None) -> None:
                if yes:
                    self._store_op(run_id, "deleted", lambda s: s.delete(run_id), deleted=True)

            screen.app.push_screen(
                ConfirmScreen(
                    Text.assemble(
                        "Delete run ",
                        (f"#{run_id} {run.name}", "bold"),
                        f" ({when(run.started_at)})?\n\nIts series, device samples and fio "
                        "JSON are deleted with it. This cannot be undone.",
                    ),
                    title="Delete run",
                    yes="Delete",
                    no="Keep",
                    danger=True,
                ),
                deleted,
            )

    @work(thread=True, group="history-edit", exit_on_error=False)
    def _store_op(
        self, run_id: int, what: str, op: Callable[[RunStore], None], *, deleted: bool = False
    ) -> None:
        screen: Screen[Any] = self  # type: ignore[assignment]
        try:
            op(self.store_factory())
        except Exception as exc:  # noqa: BLE001 - shown, the list stays
            screen.post_message(HistoryFailed(one_line(exc)))
            return
        screen.post_message(HistoryChanged(run_id, what, deleted))
