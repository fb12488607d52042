"""The fleet: one row per host of hosts.toml (name, state, problems, pools, cache fill,
last bench), each row filled in as its host answers; a host that is down shows its
error. ``r`` asks every host again, ``enter`` opens the highlighted host's dashboard
on the connection the row was read through. A host that wants a password or a key's
passphrase says so, and ``enter`` signs in: the masked modal asks (the answer is kept
in that link's memory only), then its dashboard opens.

The hosts are asked by a ``FleetSource`` (``app/fleet/collect.Fleet``: a thread per
host, a deadline for all), in a thread worker that posts each answer as it lands, so
a host that is down never holds the rows of the others. The cells are the ones
``tierdeck fleet`` prints (``app/fleet/render.py``).
"""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import DataTable, Header, Static

from ...app.fleet.collect import FleetSource
from ...app.fleet.render import COLUMNS, problems_cell, row_cells
from ...app.fleet.status import HostStatus
from ...app.tui.context import context
from ...app.tui.messages import FleetCollected, FleetHostAnswered
from ...widgets.calm_footer import CalmFooter

__all__ = ["FleetScreen"]

ASKING = "asking…"
# Column widths at 80 columns: the problems column takes what the others leave, and a
# down host's error goes there (the line under the table shows it whole).
_WIDTHS = (10, 5, 21, 12, 9, 10)


class FleetScreen(Screen[None]):
    CSS_PATH = ["../common.tcss", "fleet.tcss"]
    BINDINGS = [
        Binding(
            "enter",
            "open",
            "Open",
            tooltip="open the highlighted host's dashboard (signing in first when it "
            "wants a password or passphrase)",
        ),  # fmt: skip
        Binding("r", "refresh", "Refresh", tooltip="ask every host again"),
    ]
    HELP_TITLE = "tierdeck keys: the fleet"
    HELP_NOTES = (
        ("up / down", "move in the list; the line under it shows the host in full"),
        ("escape", "close this help"),
    )
    HELP_LEGEND = (
        "state: up, down, or asking… until the host answers. problems: by severity, or "
        "the error of a host that is down. pools: ZFS, btrfs, md and mergerfs pools by "
        "health. cache: the fullest cache branch against the mover's high watermark "
        "(>80: above it) when tierdeck applied the pool's layout, else the fullest "
        "mergerfs pool ('pool'). last bench: the newest ok run of that machine in this "
        "machine's history."
    )

    collected: var[int] = var(0)
    """How many collections have ended (tests wait on it)."""

    def __init__(self, source: FleetSource) -> None:
        super().__init__(id="fleet")
        self.source = source
        self.statuses: dict[str, HostStatus] = {}
        self._round = 0

    def compose(self) -> ComposeResult:
        yield Header()
        table: DataTable[str] = DataTable(id="fleet-table", cursor_type="row", zebra_stripes=True)
        yield table
        yield Static(id="fleet-current")
        yield CalmFooter()

    def on_mount(self) -> None:
        self.sub_title = f"fleet of {len(self.source.entries)} hosts"
        table = self.query_one("#fleet-table", DataTable)
        for title, width in zip(COLUMNS, _WIDTHS, strict=True):
            table.add_column(title, width=width, key=title)
        for entry in self.source.entries:
            table.add_row(entry.name, ASKING, "", "", "", "", key=entry.name)
        table.focus()
        self._ask()

    # -- collecting ---------------------------------------------------------------------

    def _ask(self) -> None:
        self._round += 1
        self.statuses.clear()
        table = self.query_one("#fleet-table", DataTable)
        for entry in self.source.entries:
            for column, cell in zip(COLUMNS, (entry.name, ASKING, "", "", "", ""), strict=True):
                table.update_cell(entry.name, column, cell)
        self._show_current()
        self._collect(self._round)

    @work(thread=True, exclusive=True, group="fleet", exit_on_error=False)
    def _collect(self, round_: int) -> None:
        def answered(status: HostStatus) -> None:
            self.post_message(FleetHostAnswered(status, round_))

        self.source.collect(answered)
        self.post_message(FleetCollected(round_))

    def on_fleet_host_answered(self, message: FleetHostAnswered) -> None:
        if message.round != self._round:
            return
        status = message.status
        self.statuses[status.name] = status
        table = self.query_one("#fleet-table", DataTable)
        for column, cell in zip(COLUMNS, row_cells(status, screen=True), strict=True):
            table.update_cell(status.name, column, cell)
        self._show_current()
        if message.signed_in:
            if status.reachable:
                self.action_open()  # the row just signed in is the highlighted one
            else:
                self.notify(f"{status.name}: {problems_cell(status)}", severity="warning",
                            timeout=8)  # fmt: skip

    @work(thread=True, exclusive=True, group="fleet-sign-in", exit_on_error=False)
    def _sign_in(self, name: str, round_: int) -> None:
        """Log in to a host that wants a secret: the masked modal asks for it (the
        link's own thread waits for the answer), then its row, then its dashboard."""
        status = self.source.sign_in(name, context(self).ask_secret)
        self.post_message(FleetHostAnswered(status, round_, signed_in=True))

    def on_fleet_collected(self, message: FleetCollected) -> None:
        if message.round == self._round:
            self.collected += 1

    # -- the highlighted host -----------------------------------------------------------

    def _highlighted(self) -> str | None:
        table = self.query_one("#fleet-table", DataTable)
        if not table.row_count:
            return None
        return str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)

    def _show_current(self) -> None:
        name = self._highlighted()
        line = ""
        if name is not None:
            entry = next(e for e in self.source.entries if e.name == name)
            status = self.statuses.get(name)
            tags = f" [{', '.join(entry.tags)}]" if entry.tags else ""
            if status is None:
                line = f"{name} ({entry.ssh}){tags}: {ASKING}"
            elif status.needs_secret:
                line = f"{name} ({entry.ssh}){tags}: {problems_cell(status, screen=True)}"
            elif not status.reachable:
                line = f"{name} ({entry.ssh}){tags}: {status.error}"
            else:
                worst = status.problems[0] if status.problems else None
                said = f"{worst.subject}: {worst.message}" if worst else "no problems"
                seen = status.hostname or entry.ssh
                where = "" if seen == name else f" ({seen})"
                line = f"{name}{where}{tags}: {said}"
        self.query_one("#fleet-current", Static).update(line)

    @on(DataTable.RowHighlighted)
    def _on_highlight(self) -> None:
        self._show_current()

    @on(DataTable.RowSelected)
    def _on_selected(self) -> None:
        self.action_open()

    # -- actions ------------------------------------------------------------------------

    def action_refresh(self) -> None:
        self._ask()

    def action_open(self) -> None:
        name = self._highlighted()
        if name is None:
            return
        status = self.statuses.get(name)
        if status is not None and status.needs_secret:
            self._sign_in(name, self._round)
            return
        host = self.source.host(name) if status is not None and status.reachable else None
        if host is None:
            why = ASKING if status is None else status.error or "not reachable"
            self.notify(f"{name}: {why}", severity="warning", timeout=6)
            return
        context(self).open_host(host)
