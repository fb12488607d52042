"""The live screen of a fleet comparison (``bench run --hosts``): the same benchmark on
each host's own storage, one host at a time or all at once, a line per host while it
goes, then the comparison of the hosts that ran (the history's compare screen).

Each host's run is what ``tierdeck --host NAME bench run`` makes (app/fleet/bench.py):
connected over SSH with its keys (the TUI asks no password), its inventory, its checks,
fio there. A host that cannot be reached, refuses the run or fails says why on its line
and the others go on. The run goes in an async worker; events only post messages.
Keys as on the run screen: ``c`` or escape cancels (asking first: every run in progress
stopped, its files removed, the hosts not started skipped), escape goes back after,
``h`` opens the history, ``q`` quits.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from ...app.bench.service import BenchAsk
from ...app.clients.plan import ClientSpot
from ...app.fleet.bench import HostBench, HostEvents
from ...app.tui.context import context
from ...core.compare.comparison import MAX_RUNS
from ...core.errors import one_line
from ...widgets.bench.host_lines import HostLine, host_line
from .run_keys import RunKeys

# spots, each host's ask, parallel, the events, the cancel -> each host's outcome
FleetRunner = Callable[
    [list[ClientSpot], dict[str, BenchAsk], bool, HostEvents, asyncio.Event],
    Awaitable[list[HostBench]],
]


@dataclass
class FleetEvent(Message):
    spot: ClientSpot
    event: Any


@dataclass
class FleetEnded(Message):
    outcomes: list[HostBench] | None
    error: str | None = None


async def real_run(
    spots: list[ClientSpot],
    asks: dict[str, BenchAsk],
    parallel: bool,
    on_event: HostEvents,
    cancel: asyncio.Event,
) -> list[HostBench]:
    """Each host over SSH (hosts.toml's names), each run stored in the history."""
    from ...app.clients.plan import ssh_target
    from ...app.clients.session import connect
    from ...app.fleet.bench import bench_hosts
    from ...app.fleet.config import load_fleet
    from ...app.history.store import HistoryStore

    fleet = await asyncio.to_thread(load_fleet)
    return await bench_hosts(
        spots,
        lambda spot: connect(ssh_target(spot.name, fleet)),
        lambda spot: asks[spot.name],
        parallel=parallel,
        store=HistoryStore,
        on_event=on_event,
        cancel=cancel,
    )


class FleetRunScreen(RunKeys, Screen[None]):
    CSS_PATH = "../common.tcss"
    BINDINGS = [
        Binding("c", "cancel_run", "Cancel run", tooltip="stop every host (asks first)"),
        Binding("escape", "cancel_run", "Cancel run", show=False),
        Binding("escape", "back", "Back", tooltip="after the run: back to the setup"),
        Binding("enter", "compare", "Compare", tooltip="after the run: the hosts side by side"),
        Binding("h", "history", "History", tooltip="after the run: the history"),
        Binding("q", "quit", "Quit", tooltip="quit tierdeck (stops the runs first, asking)"),
    ]
    HELP_TITLE = "tierdeck keys: the same benchmark on several hosts"
    HELP_NOTES = (("escape", "close this help"),)
    HELP_LEGEND = (
        "A line per host: where its run is, its bandwidth as fio reports it each second, "
        "then its stored run or why it has none. The hosts that ran are compared at the end."
    )

    CANCEL_ASK = "Stop every host's benchmark?"
    QUIT_ASK = "Stop every host's benchmark and quit tierdeck?"
    CANCEL_DOES = (
        "The runs in progress stop (fio TERM, then KILL), their test files are removed and "
        "they are kept in the history as cancelled; the hosts not started are skipped."
    )

    running: var[bool] = var(True)
    outcomes: var[list[HostBench] | None] = var(None)

    def __init__(
        self,
        spots: list[ClientSpot],
        asks: dict[str, BenchAsk],
        *,
        parallel: bool,
        runner: FleetRunner | None = None,
    ) -> None:
        """``runner``: the run (tests give their own); by default over SSH, stored."""
        super().__init__(id="fleet-run")
        self.spots = spots
        self.asks = asks
        self.parallel = parallel
        self.runner = runner or real_run
        self.lines = {s.name: HostLine(s) for s in spots}
        self.error: str | None = None
        self._cancel = asyncio.Event()
        self._cancel_asked = False
        self._quit_after = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="run-head")
        with VerticalScroll(id="run-body"):
            yield Static(id="fleet-hosts")
            yield Static(id="run-summary")
        yield Footer()

    def on_mount(self) -> None:
        preset = next(iter(self.asks.values())).preset if self.asks else None
        self.sub_title = f"{preset or 'job'} on " + ", ".join(s.name for s in self.spots)
        self.query_one("#run-summary").display = False
        self._draw()
        self._start()

    @work(exclusive=True, group="fleet", exit_on_error=False)
    async def _start(self) -> None:
        def on_event(spot: ClientSpot, event: object) -> None:
            self.post_message(FleetEvent(spot, event))  # from threads too: post, never draw

        try:
            outcomes = await self.runner(
                self.spots, self.asks, self.parallel, on_event, self._cancel
            )
        except Exception as exc:  # noqa: BLE001 - hosts.toml unreadable, a bug: shown
            self.post_message(FleetEnded(None, one_line(exc)))
        else:
            self.post_message(FleetEnded(outcomes))

    def on_fleet_event(self, message: FleetEvent) -> None:
        line = self.lines.get(message.spot.name)
        if line is not None:
            line.heard(message.event)
            self._draw()

    def on_fleet_ended(self, message: FleetEnded) -> None:
        self.running = False
        self.outcomes, self.error = message.outcomes, message.error
        for outcome in message.outcomes or ():
            self.lines[outcome.spot.name].ended(outcome)
        self._draw()
        self.refresh_bindings()
        self._quit_if_asked()
        if len(self.compared()) >= 2 and not self._cancel.is_set():
            self.action_compare()  # what the admin came for

    # -- drawing --------------------------------------------------------------------------

    def _draw(self) -> None:
        order = "all at once" if self.parallel else "one at a time"
        if self.running:
            state = "stopping every host…" if self._cancel.is_set() else "running"
        else:
            state = "done"
        head = Text.assemble((f"{len(self.spots)} hosts, {order}: ", "bold"), (state, "bold"))
        head.append("\neach host benchmarks its own storage; the hosts are compared at the end")
        self.query_one("#run-head", Static).update(head, layout=False)
        rows = Text("\n").join(host_line(line) for line in self.lines.values())
        self.query_one("#fleet-hosts", Static).update(rows)
        if not self.running:
            self._draw_summary()

    def _draw_summary(self) -> None:
        summary = self.query_one("#run-summary", Static)
        compared = self.compared()
        if self.error is not None:
            text = Text.assemble(("✘ ", "bold red"), self.error)
        elif len(compared) >= 2:
            more = len([o for o in self.outcomes or () if o.ok]) > MAX_RUNS
            text = Text(
                f"enter: the {len(compared)} hosts that ran, side by side"
                + (f" (compare takes at most {MAX_RUNS})" if more else "")
            )
        else:
            text = Text("fewer than two hosts ran ok: nothing to compare", style="bold yellow")
        summary.update(text)
        summary.set_class(self.error is not None or len(compared) < len(self.spots), "-problem")
        summary.display = True

    # -- actions --------------------------------------------------------------------------

    def compared(self) -> list[int]:
        """The stored ok runs, in the hosts' order, as many as compare takes."""
        ids = [o.result.id for o in self.outcomes or () if o.ok and o.result is not None]
        return [i for i in ids if i is not None][:MAX_RUNS]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "compare":
            return not self.running and len(self.compared()) >= 2
        return super().check_action(action, parameters)

    def action_compare(self) -> None:
        if not self.running and len(self.compared()) >= 2:
            context(self).open_compare(self.compared())

    def _history_ready(self) -> bool:
        return not self.running and bool(self.compared())

    def action_history(self) -> None:
        ids = self.compared()
        if ids:
            context(self).open_history(select=ids[0])

    def _stop(self, then_quit: bool) -> None:
        self._cancel.set()
        self._quit_after = then_quit
        self._draw()
