"""Which fleet hosts run the set-up's job, where, and how.

A modal over the benchmark setup: the fleet's hosts (hosts.toml) to tick with space,
one folder for all of them or ``HOST:PATH`` for each (as ``--target`` takes them), how
(``HOW``): from every host at once on fio's client/server (a ``--clients`` run), or on
each host's own storage to compare them (``--hosts``), one at a time or all at once;
then enter to go. Keyboard only; fits 80x24 with a dozen hosts (the list scrolls).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Select, SelectionList, Static

from ...app.clients.plan import ClientSpot, client_spots
from ...app.fleet.config import FleetHost

AT_ONCE = "clients"  # one job from every host at once, fio's client/server
IN_TURN = "in-turn"  # each host's own benchmark, one after the other, then compared
PARALLEL = "parallel"  # each host's own benchmark, all at once, then compared
HOW = (
    ("from every host at once, on one share (fio client/server)", AT_ONCE),
    ("compare the hosts: on each one's storage, one at a time", IN_TURN),
    ("compare the hosts: on each one's storage, all at once", PARALLEL),
)


@dataclass(frozen=True)
class HostsPicked:
    spots: list[ClientSpot]
    how: str  # AT_ONCE, IN_TURN or PARALLEL


class ClientsPickScreen(ModalScreen[HostsPicked | None]):
    DEFAULT_CSS = """
    ClientsPickScreen { align: center middle; }
    ClientsPickScreen > Vertical {
        width: 76; height: auto; max-height: 22; border: round $accent; padding: 0 1;
    }
    ClientsPickScreen SelectionList { height: auto; max-height: 10; }
    ClientsPickScreen #clients-error { color: $error; height: auto; }
    """
    BINDINGS = [
        Binding("escape", "dismiss_none", "Back"),
        Binding("ctrl+r", "go", "Start"),
    ]

    def __init__(self, fleet: Sequence[FleetHost], path: str = "") -> None:
        super().__init__()
        self.fleet = tuple(fleet)
        self.path = path

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Run this job on hosts of the fleet")
            if self.fleet:
                yield SelectionList[str](
                    *((f"{h.name}  ({h.ssh})", h.name) for h in self.fleet), id="clients-hosts"
                )
            else:
                yield Static("No hosts in hosts.toml: add them with `tierdeck fleet add`.")
            yield Label("Folder on every host, or HOST:PATH HOST:PATH ...")
            yield Input(self.path, placeholder="/mnt/nas/bench", id="clients-path")
            yield Label("How")
            yield Select(HOW, value=AT_ONCE, allow_blank=False, compact=True, id="clients-how")
            yield Static("", id="clients-error")
            yield Static("space: tick · tab: next · enter in the folder or ctrl+r: go · esc: back")

    @on(Input.Submitted)
    def action_go(self) -> None:
        names = self.query_one(SelectionList).selected if self.fleet else []
        try:
            spots = picked_spots(names, self.query_one(Input).value)
        except ValueError as exc:
            self.query_one("#clients-error", Static).update(str(exc))
            return
        how = self.query_one("#clients-how", Select).value
        self.dismiss(HostsPicked(spots, how if isinstance(how, str) else AT_ONCE))

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


def picked_spots(names: Sequence[str], typed: str) -> list[ClientSpot]:
    """The ticked hosts and the folder field, as ``--clients`` and ``--target``."""
    if not names:
        raise ValueError("tick at least one host (space)")
    targets = typed.split()
    if not targets:
        raise ValueError("give the folder on the hosts (a full path)")
    return client_spots(",".join(names), targets)
