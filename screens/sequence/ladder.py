"""The layer-penalty ladder view: the same job on a mergerfs pool's branch, the pool,
a throwaway pool over tmpfs and one with nullrw, as one table with each layer's cost
(``widgets/sequence/ladder_table``), the diagnosis line, and the rung running now below.

Opened by ``p`` on a mergerfs pool of the dashboard (``screens/sequence/ladder_open.py``: a menu
first, saying the ladder writes test files on the branches and mounts throwaway pools;
then the view checks the plan in a thread), or on a stored ladder from the history. The
run is ``app.ladder_run.run_ladder`` bound to its plan, run by ``SequenceView``; a
cancel stops the rung in progress and skips the rest, and the throwaway mounts are
gone when the runner returns, whatever happened.
"""

from __future__ import annotations

from typing import cast

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from ...app.tui.context import context
from ...app.tui.sequence_messages import (
    LadderPlanner,
    LadderRun,
    RungBegun,
    RungFinished,
    ladder_message,
)
from ...core.ladder.model import LadderResult, Rung, diagnose, with_penalties
from ...widgets.bench.live_run import LiveRun
from ...widgets.sequence.ladder_table import LadderTable
from .view import SequenceView, sequence_bindings


class LadderScreen(SequenceView, Screen[None]):
    CSS_PATH = "../common.tcss"

    BINDINGS = [
        Binding("enter", "open_rung", "Open run", tooltip="a measured rung's run, in full"),
        *sequence_bindings("ladder", "the rungs done so far are kept, the mounts go"),
    ]
    HELP_TITLE = "tierdeck keys: layer-penalty ladder"
    HELP_NOTES = (
        ("up / down", "scroll: the table, the rung running now"),
        ("escape", "close this help"),
    )
    HELP_LEGEND = (
        "Each rung runs the same fio job one layer lower (on a tiered pool also the slow "
        "branch new files go to once the cache is full). penalty: what the layer costs "
        "against the rung below it (the pool against the branch its create policy writes "
        "to, tmpfs against nullrw); negative means faster, dim inside the two rungs' own "
        "second-by-second spread (noise). Rates in MiB/s, latency as the mean in ms."
    )
    CANCEL_TITLE = "Ladder"
    CANCEL_QUESTION = (
        "The rung in progress stops (fio TERM, then KILL; its files are removed), the "
        "rungs after it are skipped, and the throwaway pools are unmounted. The rungs "
        "done so far stay in the history, tagged with the ladder's id."
    )

    running: var[bool] = var(False)
    planning: var[bool] = var(False)
    rungs_done: var[int] = var(0)
    """Rungs finished (measured or skipped) while this view ran (tests wait on it)."""

    def __init__(
        self,
        pool: str,
        run: LadderRun | None = None,
        *,
        result: LadderResult | None = None,
        planner: LadderPlanner | None = None,
    ) -> None:
        """``pool``: the pool's mountpoint; ``run``: run the ladder at once; ``planner``:
        check it first (in a thread), then run what it gives; ``result``: a ladder
        already done (shown as it is)."""
        super().__init__(id="ladder")
        self.setup_sequence()
        self.pool = pool
        self._run = run
        self._planner = planner
        self.rungs: list[Rung] = list(result.rungs) if result is not None else []
        self.ladder_id = result.id if result is not None else None
        self.job_line = result.job if result is not None else None  # what every rung ran
        self.current: tuple[str, str] | None = None  # label, path of the rung running
        self.position: tuple[int, int] | None = None  # index (0-based), total

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="ladder-head")
        with VerticalScroll(id="ladder-body"):
            yield LadderTable(id="ladder-table")
            yield LiveRun(id="live-run")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = self.pool
        self.query_one(LiveRun).display = False
        if self._run is not None:
            self.begin(self._run, ladder_message)
        elif self._planner is not None:
            self.plan_first(self._planner)
        self.draw_head()
        self._draw_table()

    def planned(self, planned: object) -> None:
        self.begin(cast(LadderRun, planned), ladder_message)

    # -- messages -------------------------------------------------------------------------

    def on_rung_begun(self, message: RungBegun) -> None:
        self.current = (message.label, message.path)
        self.position = (message.index, message.total)
        self.draw_head()
        self._draw_table()

    def on_rung_finished(self, message: RungFinished) -> None:
        self.rungs.append(message.rung)
        self.current = None
        self.rungs_done += 1
        self._draw_table()

    def finished(self, result: object | None, error: str | None) -> None:
        self.current = None
        if isinstance(result, LadderResult):
            self.rungs = list(result.rungs)
            self.ladder_id = result.id
            self.job_line = result.job
        self._draw_table()

    def action_open_rung(self) -> None:
        """enter: pick a measured rung, then its run in the run detail view (as the
        history opens it): its per-second chart, its jobs, its fio output."""
        from ..modals.choice import ChoiceScreen

        stored = [r for r in self.rungs if r.run_id is not None]
        if not stored:
            self.notify("No rung has a stored run yet.")
            return

        def picked(key: str | None) -> None:
            if key is not None:
                context(self).open_run(int(key))

        choices = [(str(r.run_id), f"{r.label:<8} run #{r.run_id}  {r.path}") for r in stored]
        self.app.push_screen(ChoiceScreen("Open a rung's run", choices), picked)

    # -- drawing ------------------------------------------------------------------------

    def _draw_table(self) -> None:
        rungs = with_penalties(self.rungs)
        left = 0
        if self.running and self.position is not None:
            index, total = self.position
            left = max(0, total - index - 1)
        self.query_one(LadderTable).show(
            rungs,
            running=self.current,
            still_to_run=left,
            diagnosis=diagnose(rungs) if not self.running and rungs else None,
            job=None if self.running else self.job_line,
        )

    def draw_head(self) -> None:
        line1 = Text("Layer-penalty ladder", style="bold", no_wrap=True, overflow="ellipsis")
        if self.ladder_id is not None:
            line1.append(f" #{self.ladder_id}", style="bold")
        line1.append(f" · mergerfs pool {self.pool}", style="dim")
        line2 = Text(no_wrap=True, overflow="ellipsis")
        planning = self.plan_line("ladder", "the pool, its branches, the job, RAM for tmpfs")
        if planning is not None:
            line2 = planning
        elif self.running and self.position is not None:
            index, total = self.position
            line2.append(f"rung {index + 1} of {total}", style="bold cyan")
            if self.current is not None:
                line2.append(f"  {self.current[0]} on {self.current[1]}", style="cyan")
        elif self.running:
            line2.append("starting…", style="bold cyan")
        elif self.outcome not in (None, "done"):
            line2.append(f"✘ {self.outcome}", style="bold red")
        else:
            skipped = sum(r.skipped is not None for r in self.rungs)
            line2.append(f"✔ {len(self.rungs)} rungs", style="bold green")
            if skipped:
                line2.append(f", {skipped} skipped", style="bold yellow")
            line2.append(" · escape: back", style="dim")
        self.query_one("#ladder-head", Static).update(Group(line1, line2))
