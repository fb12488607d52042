"""Which fleet hosts run the set-up's job at once, and where (a ``--clients`` run).

A modal over the benchmark setup: the fleet's hosts (hosts.toml) to tick with space,
one folder for all of them or ``HOST:PATH`` for each (as ``--target`` takes them), and
enter to go. Keyboard only; fits 80x24 with a dozen hosts (the list scrolls).
"""

from __future__ import annotations

from collections.abc import Sequence

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, SelectionList, Static

from ...app.clients.plan import ClientSpot, client_spots
from ...app.fleet.config import FleetHost


class ClientsPickScreen(ModalScreen[list[ClientSpot] | None]):
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
            yield Label("Run this job from several hosts at once (fio client/server)")
            if self.fleet:
                yield SelectionList[str](
                    *((f"{h.name}  ({h.ssh})", h.name) for h in self.fleet), id="clients-hosts"
                )
            else:
                yield Static("No hosts in hosts.toml: add them with `tierdeck fleet add`.")
            yield Label("Folder on every host, or HOST:PATH HOST:PATH ...")
            yield Input(self.path, placeholder="/mnt/nas/bench", id="clients-path")
            yield Static("", id="clients-error")
            yield Static("space: tick a host · tab: next field · enter: start · escape: back")

    @on(Input.Submitted)
    def action_go(self) -> None:
        names = self.query_one(SelectionList).selected if self.fleet else []
        try:
            spots = picked_spots(names, self.query_one(Input).value)
        except ValueError as exc:
            self.query_one("#clients-error", Static).update(str(exc))
            return
        self.dismiss(spots)

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
