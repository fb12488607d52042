"""What a running benchmark tells its caller, as small frozen dataclasses.

``app.bench_runner.run_benchmark`` calls ``on_event`` with these, always from the event
loop's thread, in order: ``RunStarted`` once (skipped only when the request's jobs do not
even validate), then ``Notice`` / ``Progress`` / ``SampleReady`` / ``DevicesReady`` as the
run goes (about one of each per second while fio measures), and ``RunEnded`` last,
whatever the outcome (unless the task itself is cancelled). The TUI wraps them in Textual messages; the CLI draws a
progress bar from them. No Textual import here: the CLI and the tests use them too.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.bench_models import DeviceSample, RunRequest, RunResult
from ..core.fio_models import Sample

# Progress phases, in the order a run goes through them.
PHASE_PREPARING = "preparing"  # reading the environment fingerprint
PHASE_LAYING_OUT = "laying out"  # fio --create_only=1
PHASE_DROPPING_CACHES = "dropping caches"
PHASE_MEASURING = "measuring"
PHASE_STOPPING = "stopping"  # cancel: TERM sent, waiting for fio
PHASE_CLEANING_UP = "cleaning up"  # removing the .tierdeck-bench.* files
PHASE_DONE = "done"


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
    phase: str  # one of the PHASE_* names


@dataclass(frozen=True)
class Notice:
    """Something to show the user: a phase starting, a warning (cache, direct=0)."""

    text: str


@dataclass(frozen=True)
class RunEnded:
    result: RunResult


BenchEvent = RunStarted | SampleReady | DevicesReady | Progress | Notice | RunEnded
