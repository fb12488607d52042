"""The history's ways to the stored sweeps, ladders and several-hosts runs (run sets,
``app.run_sets``): ``w`` on a run tagged ``sweep:N``, ``ladder:N`` or ``clients:N``
opens its set; ``W`` lists every stored set (``screens/modals/choice``) and opens the
one picked: a sweep's view as stored (not running; ``R`` resumes it on a live machine),
a ladder's result (``app.ladder_store``), or a clients set's hosts and total, each
with its figures or why it failed, to open one or to compare them all. The store is
read in thread workers, as the list's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.binding import Binding
from textual.message import Message

from ...app.tui.context import context
from ...app.tui.sequence_messages import RunSetFailed, RunSetLoaded, RunSetsListed
from ...core.errors import one_line
from .run_editing import when


@dataclass
class ClientsSetLoaded(Message):
    """A stored clients set read back, to list its hosts and total."""

    found: ClientsSet


if TYPE_CHECKING:
    from textual.screen import Screen

    from ...app.clients.store import ClientsSet
    from ...app.history.run_sets import RunSet
    from ...core.bench_models import RunResult

    _Base = Screen[None]
else:
    _Base = object

SET_TAG = re.compile(r"^(sweep|ladder|clients):(\d+)$")
COMPARE = "compare"  # the clients set's first row: its ok runs side by side
LISTED = 200  # the newest sets the list shows

SET_BINDINGS = [
    Binding(
        "w",
        "run_set",
        "Sweep",
        show=False,
        tooltip="a run of a sweep, ladder or clients set: the set",
    ),
    Binding("W", "run_sets", "Sets", show=False, tooltip="stored sweeps, ladders, clients sets"),
]


def set_of(tags: tuple[str, ...]) -> tuple[str, int] | None:
    """The set a run belongs to, from its ``sweep:N``/``ladder:N``/``clients:N`` tag."""
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
            self.notify("w: highlight a run of a sweep, ladder or clients set (tagged kind:N).")
        else:
            self._load_set(*found)

    def action_run_sets(self) -> None:
        self._list_sets()

    @work(thread=True, exclusive=True, group="run-sets", exit_on_error=False)
    def _list_sets(self) -> None:
        from ...app.history.run_sets import RunSetStore

        try:
            found = RunSetStore().list_sets()
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
            if kind == "clients":
                from ...app.clients.store import load_clients

                self.post_message(ClientsSetLoaded(load_clients(store, set_id)))
                return
            loaded = load_result(store, set_id) if kind == "sweep" else load_ladder(store, set_id)
        except Exception as exc:  # noqa: BLE001 - a set gone or unreadable: shown
            self.post_message(RunSetFailed(one_line(exc)))
            return
        self.post_message(RunSetLoaded(loaded))

    def on_run_sets_listed(self, message: RunSetsListed) -> None:
        from ..modals.choice import ChoiceScreen

        if not message.sets:
            self.notify(
                "No run sets stored yet: sweeps and ladders (w, p on the dashboard), "
                "runs from several hosts (ctrl+l on the benchmark setup)."
            )
            return

        def picked(key: str | None) -> None:
            found = set_of((key,)) if key else None
            if found is not None:
                self._load_set(*found)

        rows = [(s.tag, set_label(s)) for s in message.sets]
        note = Text(f"{len(rows)} stored, newest first", style="dim")
        self.app.push_screen(ChoiceScreen("Stored run sets", rows, note=note), picked)

    def on_run_set_loaded(self, message: RunSetLoaded) -> None:
        context(self).open_run_set(message.result)

    def on_clients_set_loaded(self, message: ClientsSetLoaded) -> None:
        from ...app.clients.render import row_line
        from ..modals.choice import ChoiceScreen

        found = message.found
        width = max(len(r.label) for r in found.rows)
        rows = [(COMPARE, f"compare the {len(found.comparable)} ok runs side by side")]
        rows += [
            (str(r.run_id or f"none{i}"), f"{r.label:<{width}}  {row_line(r)}")
            for i, r in enumerate(found.rows)
        ]

        def picked(key: str | None) -> None:
            if key == COMPARE:
                if len(found.comparable) < 2:
                    self.notify("Fewer than two ok runs in this set: nothing to compare.")
                else:
                    context(self).open_compare(found.comparable)
            elif key and key.isdigit():
                context(self).open_run(int(key))

        title = f"clients:{found.set_id} · {found.name}"
        note = Text("enter: compare, or open one host's run", style="dim")
        self.app.push_screen(ChoiceScreen(title, rows, note=note), picked)

    def on_run_set_failed(self, message: RunSetFailed) -> None:
        self.notify(message.error, severity="error")
