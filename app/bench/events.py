"""What a running benchmark tells its caller, as small frozen dataclasses.

``app.bench_service.BenchService`` calls ``on_event`` with these, always from the event
loop's thread, in order: ``StepStarted`` (one per run of a sequence), ``RunStarted``
once (skipped only when the request's jobs do not even validate), then ``Notice`` /
``Progress`` / ``SampleReady`` / ``DevicesReady`` as the run goes (about one of each per
second while fio measures), ``RunEnded`` whatever the outcome (unless the task itself is
cancelled), then ``RunStored`` or ``StoreFailed`` when the service keeps a history. The
TUI wraps them in Textual messages; the CLI draws a progress bar from them. No Textual
import here: the CLI and the tests use them too.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ...core.bench_models import DeviceSample, RunRequest, RunResult, WarningKind
from ...core.fio_models import Sample


class RunPhase(StrEnum):
    """Where a run is, in the order it goes through them (the value is shown)."""

    PREPARING = "preparing"  # reading the environment fingerprint
    LAYING_OUT = "laying out"  # fio --create_only=1
    DROPPING_CACHES = "dropping caches"
    MEASURING = "measuring"
    STOPPING = "stopping"  # cancel: TERM sent, waiting for fio
    CLEANING_UP = "cleaning up"  # removing the .tierdeck-bench.* files
    DONE = "done"


@dataclass(frozen=True)
class RunStarted:
    request: RunRequest
    command: tuple[str, ...]  # the measuring fio command, exactly as executed


@dataclass(frozen=True)
class SampleReady:
    """fio's numbers for one status interval (about a second)."""

    sample: Sample


@dataclass(frozen=True)
class DevicesReady:
    """/proc/diskstats rates of every disk under the target, for one second.

    Their ``t`` counts from the start of the measuring fio process; fio samples count
    from the first I/O, which comes a few milliseconds later."""

    samples: tuple[DeviceSample, ...]


@dataclass(frozen=True)
class Progress:
    fraction: float  # 0.0 .. 1.0
    eta_s: float | None  # None while it cannot be estimated
    phase: RunPhase


@dataclass(frozen=True)
class Notice:
    """Something to show the user: a phase starting (``kind`` None), or a warning that
    goes with the run (cache, direct=0 ...)."""

    text: str
    kind: WarningKind | None = None


@dataclass(frozen=True)
class RunEnded:
    """The run is over (ok, failed or cancelled); not stored yet."""

    result: RunResult


@dataclass(frozen=True)
class RunStored:
    """The service saved the run in the history under ``run_id``."""

    run_id: int


@dataclass(frozen=True)
class StoreFailed:
    """The run could not be saved (a full disk, a locked file): the result stands."""

    error: str


@dataclass(frozen=True)
class StepStarted:
    """A run of a sequence (a sweep, a ladder) begins: ``index`` of ``total`` (from 0)."""

    index: int
    total: int
    name: str


BenchEvent = (
    RunStarted
    | SampleReady
    | DevicesReady
    | Progress
    | Notice
    | RunEnded
    | RunStored
    | StoreFailed
    | StepStarted
)
