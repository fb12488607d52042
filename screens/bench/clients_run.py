"""The live screen of a ``--clients`` run: every host checked, its fio server started,
one line per host and one for all of them on the charts, then each host's result.

The lines are each host's disk activity under its folder, or its share's traffic (its
NFS mount's counters, or the interface that carries it: app/clients/live): fio's
client says nothing per host before the end. fio's figures per host, and the total
(its p99 from the hosts' merged histograms), come in the table at the end, and the
run set is stored (``clients:ID``).

The run goes in an async worker (app/clients/session.run_session: the SSH calls in
threads); it only posts messages, which the screen draws. Keys as on the run screen:
``c`` or escape cancels (after a confirmation: every server stopped, files removed),
escape goes back after, ``h`` opens the history, ``q`` quits.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from ...app.clients.live import LiveTick
from ...app.clients.plan import ClientSpot
from ...app.clients.render import clients_lines
from ...app.clients.session import Outcome, connect, run_session
from ...app.tui.context import context
from ...core.bench_models import BenchRefused
from ...core.errors import TierdeckError, one_line
from ...core.jobspec import JobSpec, expected_seconds
from ...widgets.charts.clients_charts import clients_charts, feed_clients
from ...widgets.charts.run_charts import plot_rows
from .run_keys import RunKeys

Runner = Callable[
    [Callable[[str], None], Callable[[LiveTick], None], asyncio.Event], Awaitable[Outcome]
]


@dataclass
class ClientsSaid(Message):
    text: str


@dataclass
class ClientsTicked(Message):
    tick: LiveTick


@dataclass
class ClientsEnded(Message):
    outcome: Outcome | None
    error: str | None = None


class ClientsRunScreen(RunKeys, Screen[None]):
    CSS_PATH = "../common.tcss"
    BINDINGS = [
        Binding("c", "cancel_run", "Cancel run", tooltip="stop every host (asks first)"),
        Binding("escape", "cancel_run", "Cancel run", show=False),
        Binding("escape", "back", "Back", tooltip="after the run: back to the setup"),
        Binding("h", "history", "History", tooltip="after the run: the history"),
        Binding("q", "quit", "Quit", tooltip="quit tierdeck (stops the run first, asking)"),
    ]
    HELP_TITLE = "tierdeck keys: several hosts at once"
    HELP_NOTES = (
        ("up / down", "scroll: the charts, what the run said"),
        ("escape", "close this help"),
    )
    HELP_LEGEND = (
        "A line per host and one for all of them: each host's disks under its folder "
        "(/proc/diskstats), or its share: an NFS mount's counters (/proc/self/mountstats) "
        "or the network interface that carries it (bandwidth only), read + write. fio's "
        "own figures per host come at the end."
    )
    SAID_ROWS = 4  # the last lines said (servers started, folders, a lost host)
    CANCEL_ASK = "Stop every host's fio?"
    QUIT_ASK = "Stop every host's fio and quit tierdeck?"
    CANCEL_DOES = (
        "Each server is stopped, its test files removed, and the run set kept in the "
        "history as cancelled."
    )

    running: var[bool] = var(True)
    ticks: var[int] = var(0)
    """Live seconds drawn (tests wait on it)."""
    outcome: var[Outcome | None] = var(None)

    def __init__(
        self,
        spots: list[ClientSpot],
        jobs: tuple[JobSpec, ...],
        preset: str | None,
        *,
        runner: Runner | None = None,
    ) -> None:
        """``runner``: the run (tests give a recorded one); by default connects to
        each host over SSH and stores the result."""
        super().__init__(id="clients-run")
        self.spots = spots
        self.jobs = jobs
        self.preset = preset
        self.runner = runner or self._real_run
        self.said: list[str] = []
        self.last_t = 0.0
        self.error: str | None = None
        self._cancel = asyncio.Event()
        self._cancel_asked = False
        self._quit_after = False
        names = [s.name for s in spots]
        self.charts = clients_charts(names, span=expected_seconds(jobs))

    def _real_run(
        self, say: Callable[[str], None], on_tick: Callable[[LiveTick], None], cancel: asyncio.Event
    ) -> Awaitable[Outcome]:
        from ...app.fleet.config import load_fleet

        return run_session(
            self.spots, self.jobs, self.preset, connect, say, on_tick, cancel, load_fleet
        )

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="run-head")
        with VerticalScroll(id="run-body"):
            yield Static(id="run-summary")
            yield from self.charts
            yield Static(id="clients-said")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = f"{self.preset or 'job'} from " + ", ".join(s.name for s in self.spots)
        self.query_one("#run-summary").display = False
        self.on_resize()
        self._draw_head()
        self._start()

    def on_resize(self) -> None:
        rows = plot_rows(self.size.height, len(self.charts), 4 + self.SAID_ROWS)
        for chart in self.charts:
            chart.rows = rows

    @work(exclusive=True, group="clients", exit_on_error=False)
    async def _start(self) -> None:
        try:
            outcome = await self.runner(self._say, self._tick, self._cancel)
        except BenchRefused as exc:
            self.post_message(ClientsEnded(None, f"refused: {exc.reason}"))
        except (TierdeckError, OSError) as exc:
            self.post_message(ClientsEnded(None, one_line(exc)))
        else:
            self.post_message(ClientsEnded(outcome))

    def _say(self, text: str) -> None:
        self.post_message(ClientsSaid(text))  # from the run's threads too: post, never draw

    def _tick(self, tick: LiveTick) -> None:
        self.post_message(ClientsTicked(tick))

    # -- messages -------------------------------------------------------------------------

    def on_clients_said(self, message: ClientsSaid) -> None:
        self.said.append(message.text)
        shown = self.said[-self.SAID_ROWS :]
        self.query_one("#clients-said", Static).update(Text("\n".join(shown), style="dim"))

    def on_clients_ticked(self, message: ClientsTicked) -> None:
        feed_clients(self.charts, message.tick)
        self.last_t = message.tick.t
        self.ticks += 1
        self._draw_head()

    def on_clients_ended(self, message: ClientsEnded) -> None:
        self.running = False
        self.outcome, self.error = message.outcome, message.error
        self._draw_head()
        self._draw_result()
        self.refresh_bindings()
        self._quit_if_asked()

    # -- drawing --------------------------------------------------------------------------

    def _draw_head(self) -> None:
        hosts = ", ".join(s.name for s in self.spots)
        if self.running:
            state = "stopping every host…" if self._cancel.is_set() else f"{self.last_t:.0f} s"
        elif self.outcome is not None:
            state = "partial" if self.outcome.result.partial else "done"
        else:
            state = "not started"
        head = Text.assemble((f"{len(self.spots)} hosts at once: ", "bold"), hosts, "  ")
        head.append(state, style="bold")
        head.append("\nlines: each host's disks or share; fio's figures at the end")
        self.query_one("#run-head", Static).update(head, layout=False)

    def _draw_result(self) -> None:
        summary = self.query_one("#run-summary", Static)
        outcome = self.outcome
        if outcome is None:
            summary.update(Text.assemble(("✘ ", "bold red"), self.error or "no result"))
            summary.set_class(True, "-problem")
        else:
            lines = clients_lines(outcome.result, outcome.stored)
            if outcome.store_error is not None:
                lines.append(f"NOT saved: {outcome.store_error}")
            summary.update(Text("\n".join(lines)))
            summary.set_class(outcome.result.partial, "-problem")
        summary.display = True
        self.query_one("#run-body", VerticalScroll).scroll_home(animate=False)

    # -- actions --------------------------------------------------------------------------

    def _history_ready(self) -> bool:
        return self.outcome is not None and self.outcome.stored is not None

    def action_history(self) -> None:
        if self.outcome is not None and self.outcome.stored is not None:
            context(self).open_history(select=self.outcome.stored.aggregate_id)

    def _stop(self, then_quit: bool) -> None:
        self._cancel.set()
        self._quit_after = then_quit
        self._draw_head()
