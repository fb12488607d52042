"""The history's ways to the stored sweeps and ladders (run sets, ``app.run_sets``):
``w`` on a run tagged ``sweep:N`` or ``ladder:N`` opens its set; ``W`` lists every
stored set (``screens/modals/choice``) and opens the one picked: a sweep's view as stored
(not running; ``R`` resumes it on a live machine) or a ladder's result
(``app.ladder_store``). The store is read in thread workers, as the list's.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.binding import Binding

from ...app.tui.context import context
from ...app.tui.sequence_messages import RunSetFailed, RunSetLoaded, RunSetsListed
from ...core.errors import one_line
from .run_editing import when

if TYPE_CHECKING:
    from textual.screen import Screen

    from ...app.history.run_sets import RunSet
    from ...core.bench_models import RunResult

    _Base = Screen[None]
else:
    _Base = object

SET_TAG = re.compile(r"^(sweep|ladder):(\d+)$")
LISTED = 200  # the newest sets the list shows

SET_BINDINGS = [
    Binding(
        "w", "run_set", "Sweep", show=False, tooltip="a run tagged sweep:N or ladder:N: its set"
    ),
    Binding("W", "run_sets", "Sets", show=False, tooltip="stored sweeps and ladders: open one"),
]


def set_of(tags: tuple[str, ...]) -> tuple[str, int] | None:
    """The sweep or ladder a run belongs to, from its ``sweep:N``/``ladder:N`` tag."""
    for tag in tags:
        found = SET_TAG.match(tag)
        if found:
            return found.group(1), int(found.group(2))
    return None


def set_label(run_set: RunSet) -> str:
    return f"{run_set.kind.value} #{run_set.id} · {when(run_set.created_at)} · {run_set.name}"


class RunSetOpening(_Base):
    """Mixed into the history screen (before Screen in its bases)."""

    if TYPE_CHECKING:

        @property
        def selected_run(self) -> RunResult | None: ...

    def action_run_set(self) -> None:
        run = self.selected_run
        found = set_of(run.tags) if run is not None else None
        if found is None:
            self.notify("w: highlight a run of a sweep or ladder (tagged sweep:N, ladder:N).")
        else:
            self._load_set(*found)

    def action_run_sets(self) -> None:
        self._list_sets()

    @work(thread=True, exclusive=True, group="run-sets", exit_on_error=False)
    def _list_sets(self) -> None:
        from ...app.history.run_sets import RunSetStore

        try:
            # a --clients set has no view of its own here yet: its runs are in the list
            found = [s for s in RunSetStore().list_sets() if s.kind.value in ("sweep", "ladder")]
            self.post_message(RunSetsListed(found[:LISTED]))
        except Exception as exc:  # noqa: BLE001 - an unreadable store is shown, not fatal
            self.post_message(RunSetFailed(one_line(exc)))

    @work(thread=True, exclusive=True, group="run-sets", exit_on_error=False)
    def _load_set(self, kind: str, set_id: int) -> None:
        from ...app.history.run_sets import RunSetStore
        from ...app.ladder.store import load_ladder
        from ...app.sweep.store import load_result

        try:
            store = RunSetStore()
            loaded = load_result(store, set_id) if kind == "sweep" else load_ladder(store, set_id)
        except Exception as exc:  # noqa: BLE001 - a set gone or unreadable: shown
            self.post_message(RunSetFailed(one_line(exc)))
            return
        self.post_message(RunSetLoaded(loaded))

    def on_run_sets_listed(self, message: RunSetsListed) -> None:
        from ..modals.choice import ChoiceScreen

        if not message.sets:
            self.notify("No sweeps or ladders stored yet (w and p on the dashboard run them).")
            return

        def picked(key: str | None) -> None:
            found = set_of((key,)) if key else None
            if found is not None:
                self._load_set(*found)

        rows = [(s.tag, set_label(s)) for s in message.sets]
        note = Text(f"{len(rows)} stored, newest first", style="dim")
        self.app.push_screen(ChoiceScreen("Sweeps and ladders", rows, note=note), picked)

    def on_run_set_loaded(self, message: RunSetLoaded) -> None:
        context(self).open_run_set(message.result)

    def on_run_set_failed(self, message: RunSetFailed) -> None:
        self.notify(message.error, severity="error")
