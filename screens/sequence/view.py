"""What the sweep and ladder views share: a sequence of runs in an async worker on the
app's loop (as the run screen's), the live run's messages drawn in a ``LiveRun``, and
cancel / back / quit with a confirmation while it runs.

A view mixes ``SequenceView`` into its Screen, yields a ``LiveRun``, calls
:meth:`begin` with the run and the function that turns its events into messages, and
draws its own head in ``draw_head``; ``finished`` tells it the runner returned.

Planning (``plan_sweep``/``plan_ladder``: fio --parse-only, host probes, the history)
blocks, so :meth:`plan_first` runs it in a thread worker while the view shows that it
is checking; ``planned`` gets what the planner returned, and a refusal stays on the view
(``self.refusal``, its headline chosen by the refusal's kind) with escape to leave.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import work
from textual.binding import Binding
from textual.message import Message
from textual.worker import get_current_worker

from ...app.tui.bench_messages import BenchEnded, BenchProgress, BenchSamples, BenchStarted
from ...app.tui.sequence_messages import (
    EventSink,
    SequenceCrashed,
    SequenceEnded,
    SequencePlanned,
    SequenceRefused,
)
from ...core.errors import one_line
from ...widgets.bench.live_run import LiveRun

Run = Callable[[EventSink, asyncio.Event], Awaitable[Any]]
Planner = Callable[[], object]  # blocking: runs in a thread; raises a refusal

if TYPE_CHECKING:  # typed as the Screen it is mixed into
    from textual.screen import Screen

    from ...app.tui.sequence_refusals import Refusal

    _Base = Screen[None]
else:
    _Base = object


def sequence_bindings(what: str, after: str) -> list[Binding]:
    """c / escape cancel (asking) while it runs, escape back after, q quit."""
    cancel = f"cancel the {what} (asks first; {after})"
    return [
        Binding("c", "cancel_sequence", f"Cancel {what}", tooltip=cancel),
        Binding("escape", "cancel_sequence", f"Cancel {what}", show=False, tooltip=cancel),
        Binding("escape", "back", "Back", tooltip=f"back (after the {what})"),
        Binding("q", "quit", "Quit", tooltip=f"quit tierdeck (stops a running {what}, asking)"),
    ]


class SequenceView(_Base):
    """Mixed into a Screen (first in the bases)."""

    running: bool  # a var of the screen: True while the runner runs
    planning: bool  # a var of the screen: True while the plan is checked
    CANCEL_TITLE = "Cancel"
    CANCEL_QUESTION = ""  # what stops and what stays, after "Cancel the ...?"

    def setup_sequence(self) -> None:
        self._cancel: asyncio.Event | None = None
        self._cancel_asked = False
        self._quit_after = False
        self.outcome: str | None = None  # None while running; "done" or the error
        self.refusal: Refusal | None = None  # the last plan refused

    def plan_first(self, planner: Planner) -> None:
        """Check the plan in a thread; ``planned`` or ``self.refusal`` follows."""
        self.planning = True
        self.refusal = None
        self._plan(planner)
        self.refresh_bindings()

    @work(thread=True, exclusive=True, group="sequence-plan", exit_on_error=False)
    def _plan(self, planner: Planner) -> None:
        from ...app.tui.sequence_refusals import refusal_of

        message: SequencePlanned | SequenceRefused
        try:
            message = SequencePlanned(planner())
        except Exception as exc:  # noqa: BLE001 - a refusal (or a bug) is shown, not fatal
            message = SequenceRefused(refusal_of(exc))
        if not get_current_worker().is_cancelled:  # the view was left while checking
            self.post_message(message)

    def planned(self, planned: object) -> None:
        """The view's start once its plan passed (usually :meth:`begin`)."""

    def begin(self, run: Run, to_message: Callable[[object], Message]) -> None:
        self.running = True
        self.outcome = None
        self._cancel = asyncio.Event()
        self.query_one(LiveRun).display = True
        self._work(run, to_message, self._cancel)
        self.refresh_bindings()

    @work(exclusive=True, group="sequence", exit_on_error=False)
    async def _work(
        self, run: Run, to_message: Callable[[object], Message], cancel: asyncio.Event
    ) -> None:
        def on_event(event: object) -> None:
            self.post_message(to_message(event))

        try:
            result = await run(on_event, cancel)
        except Exception as exc:  # noqa: BLE001 - a refusal or a bug: shown, not fatal
            self.post_message(SequenceCrashed(one_line(exc)))
        else:
            self.post_message(SequenceEnded(result))

    def finished(self, result: object | None, error: str | None) -> None:
        """The view's own end: store the result, redraw. Called once per run."""

    def draw_head(self) -> None:
        """The view's head: called after each live-run message."""

    def plan_line(self, what: str, checks: str) -> Text | None:
        """The head's state while the plan is checked, or why it was refused (wrapped:
        the reason names the cell or option at fault); None otherwise."""
        if self.planning:
            return Text(f"checking the {what} … ({checks})", style="bold cyan", no_wrap=True)
        if self.refusal is None:
            return None
        out = Text(f"✘ {self.refusal.headline}: ", style="bold red")
        out.append(self.refusal.reason, style="red")
        out.append(" · escape: back", style="dim")
        return out

    # -- messages -------------------------------------------------------------------------

    def on_bench_started(self, message: BenchStarted) -> None:
        self.query_one(LiveRun).started(message.request)

    def on_bench_samples(self, message: BenchSamples) -> None:
        self.query_one(LiveRun).samples(message.samples)
        self.draw_head()

    def on_bench_progress(self, message: BenchProgress) -> None:
        self.query_one(LiveRun).set_progress(message.phase, message.fraction, message.eta_s)

    def on_bench_ended(self, message: BenchEnded) -> None:
        self.query_one(LiveRun).ended(message.result)

    def on_sequence_planned(self, message: SequencePlanned) -> None:
        self.planning = False
        self.planned(message.planned)
        self.draw_head()
        self.refresh_bindings()

    def on_sequence_refused(self, message: SequenceRefused) -> None:
        self.planning = False
        self.refusal = message.refusal
        self.notify(message.refusal.reason, title=message.refusal.headline, severity="error")
        self.draw_head()
        self.refresh_bindings()

    def on_sequence_ended(self, message: SequenceEnded) -> None:
        self._end(message.result, None)

    def on_sequence_crashed(self, message: SequenceCrashed) -> None:
        self._end(None, message.error)

    def _end(self, result: object | None, error: str | None) -> None:
        self.running = False
        self.outcome = error or "done"
        self.finished(result, error)
        self.draw_head()
        self.refresh_bindings()
        if self._quit_after:
            self.app.exit()

    # -- actions --------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel_sequence":
            return self.running
        if action == "back":
            return not self.running
        return True

    def action_back(self) -> None:
        if not self.running:
            self.dismiss(None)

    def action_cancel_sequence(self) -> None:
        if self.running and not self._cancel_asked:
            self._ask_cancel(then_quit=False)

    def action_quit(self) -> None:
        if self.running:
            self._ask_cancel(then_quit=True)
        else:
            self.app.exit()

    def _ask_cancel(self, *, then_quit: bool) -> None:
        from ..modals.confirm import ConfirmScreen

        what = self.CANCEL_TITLE.lower()
        first = f"Stop the {what} and quit tierdeck?" if then_quit else f"Cancel the {what}?"

        def answered(yes: bool | None) -> None:
            self._cancel_asked = False
            if yes and self.running and self._cancel is not None:
                self._cancel.set()
                self._quit_after = then_quit

        self._cancel_asked = True
        self.app.push_screen(
            ConfirmScreen(
                first + "\n\n" + self.CANCEL_QUESTION,
                title=f"Cancel {what}",
                yes="Stop",
                no="Keep running",
            ),
            answered,
        )
