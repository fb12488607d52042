"""Messages from a running sweep or ladder to its view (``screens/sequence/sweep.py``,
``screens/sequence/ladder.py``).

The runners (``app.sweep_run.run_sweep``, ``app.ladder_run.run_ladder``) call back with
their own events and, in between, every BenchEvent of the run in progress; the view's
worker turns each into a message here (the BenchEvents into ``bench_messages``' own,
coalescing included), so the view draws them on its own turn. Before that, the plan's
worker thread answers with ``SequencePlanned`` or ``SequenceRefused``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

from ...core.ladder.model import LadderResult, Rung, RungKind
from ...core.sweep.model import CellResult, SweepCell, SweepResult
from ..bench import events as ev
from .bench_messages import message_for

if TYPE_CHECKING:  # the refusal kinds load the planners' modules: only when planning
    from ..history.run_sets import RunSet
    from .sequence_refusals import Refusal

EventSink = Callable[[object], None]
# What a view runs: ``run(on_event, cancel)`` -> the result; the caller binds the
# service, the inventory and the plan (tests pass a scripted fake).
SweepRun = Callable[[EventSink, asyncio.Event], Awaitable[SweepResult]]
LadderRun = Callable[[EventSink, asyncio.Event], Awaitable[LadderResult]]


@dataclass(frozen=True)
class SweepStart:
    """What a sweep's planner gives the view: the sweep as created (or resumed: its
    stored cells filled) and the run of its missing cells."""

    result: SweepResult
    run: SweepRun
    resume: SweepPlanner | None = None  # what R checks then runs if it stops early


# Blocking (the view calls them in a thread worker); they raise a refusal.
SweepPlanner = Callable[[], SweepStart]
LadderPlanner = Callable[[], LadderRun]


@dataclass
class CellStarted(Message):
    index: int  # in the whole sweep
    position: int  # k of n among the cells this run does (1-based)
    total: int
    cell: SweepCell
    eta_s: float | None  # the rest of the sweep, this cell included


@dataclass
class CellFinished(Message):
    result: CellResult
    refusal: str | None = None


@dataclass
class RungBegun(Message):
    index: int
    total: int
    kind: RungKind
    path: str
    label: str  # what the table calls the rung: "branch", "cache.files=off"


@dataclass
class RungFinished(Message):
    rung: Rung


@dataclass
class SequenceEnded(Message):
    """The runner returned: every cell or rung it got to (also after a cancel)."""

    result: SweepResult | LadderResult


@dataclass
class SequencePlanned(Message):
    """The plan was checked in its worker thread: what the view starts with (a
    screen's own type: the run, the sweep as created)."""

    planned: object


@dataclass
class SequenceRefused(Message):
    """The plan was refused before anything ran: shown by its kind."""

    refusal: Refusal


@dataclass
class SequenceCrashed(Message):
    """The runner raised (a refusal at start, a bug): shown, not fatal."""

    error: str


@dataclass
class RunSetsListed(Message):
    """The stored sweeps and ladders, newest first (the history's list of them)."""

    sets: list[RunSet]


@dataclass
class RunSetLoaded(Message):
    """A stored sweep or ladder read back from the history, to open."""

    result: SweepResult | LadderResult


@dataclass
class RunSetFailed(Message):
    """The sets or one of them could not be read."""

    error: str


def sweep_message(event: object) -> Message:
    from ..sweep.events import SweepCellDone, SweepCellStarted

    if isinstance(event, SweepCellStarted):
        return CellStarted(event.index, event.position, event.total, event.cell, event.eta_s)
    if isinstance(event, SweepCellDone):
        return CellFinished(event.result, event.refusal)
    return _bench_message(event)


def ladder_message(event: object) -> Message:
    from ..ladder.events import RungDone, RungStarted

    if isinstance(event, RungStarted):
        return RungBegun(
            event.index, event.total, event.kind, event.path, event.label or event.kind.value
        )
    if isinstance(event, RungDone):
        return RungFinished(event.rung)
    return _bench_message(event)


def _bench_message(event: object) -> Message:
    bench_types = (
        ev.RunStarted,
        ev.SampleReady,
        ev.DevicesReady,
        ev.Progress,
        ev.Notice,
        ev.RunEnded,
        ev.RunStored,
        ev.StoreFailed,
        ev.StepStarted,
    )
    if not isinstance(event, bench_types):
        raise TypeError(f"not a sweep, ladder or benchmark event: {event!r}")
    return message_for(event)
