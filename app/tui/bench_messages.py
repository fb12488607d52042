"""Messages between the benchmark workers and the benchmark screens.

The runner (app.bench_runner) calls back with plain events (app.bench_events); the run
screen's worker wraps each one in a message below, and the screen reacts on its own
turn. Keeping them here, small and dataclass-shaped, lets tests build them directly.

Coalescing: fio and the diskstats ticker each speak about once a second, but if the UI
falls behind (a slow SSH link, a modal open) messages queue up. Textual asks the older
of two queued messages ``can_replace(newer)``; answering True drops the older one. For
progress that is fine (only the latest matters). For samples it would lose chart
points, so :class:`BenchSamples` and :class:`BenchDevices` first hand their payload to
the newer message: coalescing batches them, it never drops data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

from ...core.bench_models import (
    BenchRefused,
    DeviceSample,
    RunHost,
    RunRequest,
    RunResult,
    WarningKind,
)
from ...core.compare.comparison import Comparison
from ...core.fio_models import Sample
from ..bench import events as ev

if TYPE_CHECKING:  # the parsers load only when a file is imported
    from ..history.fio_import import ImportOutcome

# -- the run ------------------------------------------------------------------------------


@dataclass
class BenchStarted(Message):
    """fio is about to start: the request as planned and the exact measuring command."""

    request: RunRequest
    command: tuple[str, ...]


@dataclass
class BenchSamples(Message):
    """One or more per-interval fio samples, oldest first."""

    samples: tuple[Sample, ...]

    def can_replace(self, message: Message) -> bool:
        if not isinstance(message, BenchSamples):
            return False
        message.samples = self.samples + message.samples  # hand our points on
        return True


@dataclass
class BenchDevices(Message):
    """Per-disk rates from /proc/diskstats: one tuple per interval, oldest first."""

    intervals: tuple[tuple[DeviceSample, ...], ...]

    def can_replace(self, message: Message) -> bool:
        if not isinstance(message, BenchDevices):
            return False
        message.intervals = self.intervals + message.intervals
        return True


@dataclass
class BenchProgress(Message):
    """How far the run is; only the newest one matters."""

    fraction: float
    eta_s: float | None
    phase: ev.RunPhase

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, BenchProgress)


@dataclass
class BenchNotice(Message):
    """A line for the user: a phase starting, a warning (never coalesced)."""

    text: str
    kind: WarningKind | None = None  # a warning's kind; None for a plain notice


@dataclass
class BenchEnded(Message):
    """The run is over (ok, failed or cancelled); the result is not stored yet."""

    result: RunResult


@dataclass
class BenchStep(Message):
    """A run of a sequence begins (``index`` of ``total``, from 0)."""

    index: int
    total: int
    name: str


@dataclass
class BenchCrashed(Message):
    """The runner raised instead of returning a result (a busy target, a bug)."""

    error: str


def message_for(event: ev.BenchEvent) -> Message:
    """The message a screen gets for one of the runner's events."""
    if isinstance(event, ev.SampleReady):
        return BenchSamples((event.sample,))
    if isinstance(event, ev.DevicesReady):
        return BenchDevices((event.samples,))
    if isinstance(event, ev.Progress):
        return BenchProgress(event.fraction, event.eta_s, event.phase)
    if isinstance(event, ev.Notice):
        return BenchNotice(event.text, event.kind)
    if isinstance(event, ev.RunStarted):
        return BenchStarted(event.request, event.command)
    if isinstance(event, ev.RunStored):
        return RunSaved(event.run_id)
    if isinstance(event, ev.StoreFailed):
        return RunNotSaved(event.error)
    if isinstance(event, ev.StepStarted):
        return BenchStep(event.index, event.total, event.name)
    return BenchEnded(event.result)


# -- planning (setup screen) ----------------------------------------------------------------


@dataclass
class PlanReady(Message):
    """plan_run accepted the choice: push the run screen with this request."""

    request: RunRequest


@dataclass
class PlanRefused(Message):
    """plan_run said no; ``refusal.offer_buffered`` means direct=0 may be offered."""

    refusal: BenchRefused
    direct_was: bool | None  # the direct override that was refused


@dataclass
class JobfileSaved(Message):
    """A job was written as a .fio file (``error`` None), or could not be."""

    path: str
    error: str | None


# -- history ------------------------------------------------------------------------------


@dataclass
class RunSaved(Message):
    """A finished run went into the history store under ``run_id``."""

    run_id: int


@dataclass
class RunNotSaved(Message):
    error: str


@dataclass
class HistoryLoaded(Message):
    """A fresh listing for the history screen (already filtered by the store)."""

    runs: list[RunResult]
    targets: list[tuple[str, str]]  # (path, label) of every stored target, for the filter
    presets: list[str]
    # Which reload it answers: a thread worker replaced by a newer load still runs to the
    # end and posts, and its older listing must not overwrite the newer one.
    generation: int = 0
    hosts: tuple[RunHost, ...] = ()  # every host the history's runs ran on


@dataclass
class HistoryFailed(Message):
    error: str


@dataclass
class HistoryChanged(Message):
    """A rename, a new set of tags or a delete went through."""

    run_id: int
    what: str  # "renamed", "tagged", "deleted": for the notification
    deleted: bool = False


@dataclass
class RunLoaded(Message):
    """One stored run, complete (series, devices, fio JSON), for the detail view."""

    result: RunResult


@dataclass
class CompareLoaded(Message):
    """The marked runs, loaded complete and compared, for the compare view."""

    comparison: Comparison


@dataclass
class RunsExported(Message):
    """The export key (compare view, run view) wrote ``path``; ``text`` says where
    for the user (app.export.ExportWritten.message), or ``error`` why not."""

    path: str | None
    text: str
    error: str | None = None


@dataclass
class HistoryImported(Message):
    """Files of fio output went through ``app.fio_import``: one outcome per file
    (stored as a run, or refused with the reason)."""

    outcomes: list[ImportOutcome]
