"""fio results as typed, frozen dataclasses.

``backends.fio_stream`` builds these from fio's JSON; the run screen draws :class:`Sample`
series; the history store keeps :class:`FioReport`. Nothing here does I/O.

Units are normalised whatever fio version produced the numbers: bytes, bytes/s and
nanoseconds. fio 2.x reported KiB and microseconds; the parser converts, so callers never
branch on versions.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from .errors import TierdeckError


class Direction(StrEnum):
    READ = "read"
    WRITE = "write"
    TRIM = "trim"


# (latency ns, count) pairs of fio's json+ histogram, sorted by latency. A tuple, not a
# dict, so that the frozen dataclasses holding it stay hashable.
Bins = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class DirectionStats:
    """One direction (read, write or trim) of one job, or of a whole report."""

    io_bytes: int
    total_ios: int
    bw_bytes: int  # average bytes/s over runtime_ms, computed as fio does: 1000*io/runtime
    iops: float
    runtime_ms: int
    lat_mean_ns: float | None = None  # total latency (submit + completion); None: no I/O
    lat_count: int = 0  # how many I/Os lat_mean_ns averages ("N"); weights merged means
    # 99th percentile. fio computes percentiles of *completion* latency unless the job
    # set lat_percentiles=1, so this is clat p99 for most runs, as fio's own report shows.
    lat_p99_ns: int | None = None
    bins: Bins = ()  # json+ only: cumulative latency histogram behind the percentiles

    @property
    def has_io(self) -> bool:
        return self.total_ios > 0 or self.io_bytes > 0


EMPTY_DIRECTION = DirectionStats(io_bytes=0, total_ios=0, bw_bytes=0, iops=0.0, runtime_ms=0)


@dataclass(frozen=True)
class FioJobResult:
    name: str
    groupid: int
    error: int  # errno of the job's failure, 0 when it ran fine
    read: DirectionStats
    write: DirectionStats
    trim: DirectionStats
    # "job_runtime" (ms; absent before fio 3.1x). Not a duration to compute with: for a
    # stonewalled job that has not run yet fio 3.33 reports nonsense (587337 in
    # fio333_status_stonewall.json), and under group_reporting it is the members' sum.
    job_runtime_ms: int | None = None
    elapsed_s: int | None = None
    options: dict[str, str] | None = None  # "job options" as fio echoes them

    def direction(self, direction: Direction) -> DirectionStats:
        return {Direction.READ: self.read, Direction.WRITE: self.write}.get(direction, self.trim)

    @property
    def has_io(self) -> bool:
        return self.read.has_io or self.write.has_io or self.trim.has_io


@dataclass(frozen=True)
class FioReport:
    """One fio JSON document: the final report, or one --status-interval snapshot."""

    fio_version: str  # "fio-3.33"
    timestamp: int | None  # seconds since the epoch
    timestamp_ms: int | None  # fio >= 3.0; status snapshots are timed by it
    jobs: tuple[FioJobResult, ...]
    read: DirectionStats  # all jobs summed; see backends.fio_stream.aggregate
    write: DirectionStats
    trim: DirectionStats
    global_options: dict[str, str] | None = None

    def direction(self, direction: Direction) -> DirectionStats:
        return {Direction.READ: self.read, Direction.WRITE: self.write}.get(direction, self.trim)

    @property
    def failed_jobs(self) -> tuple[FioJobResult, ...]:
        return tuple(job for job in self.jobs if job.error)

    @property
    def version_tuple(self) -> tuple[int, ...]:
        """(3, 33) from "fio-3.33"; () when fio printed something unexpected."""
        digits = self.fio_version.removeprefix("fio-").split("-", 1)[0]
        parts: list[int] = []
        for part in digits.split("."):
            if not (part.isascii() and part.isdigit()):
                break
            parts.append(int(part))
        return tuple(parts)


@dataclass(frozen=True)
class DirectionSample:
    bw_bytes_per_s: float
    iops: float
    lat_mean_ns: float | None  # None when no I/O completed in the interval
    lat_p99_ns: int | None  # None without json+ bins (plain json has only cumulative p99)


EMPTY_SAMPLE_DIRECTION = DirectionSample(0.0, 0.0, None, None)


@dataclass(frozen=True)
class Sample:
    """What happened during one status interval, all jobs together."""

    t: float  # seconds since I/O started, at the END of the interval
    interval_s: float
    read: DirectionSample
    write: DirectionSample
    trim: DirectionSample = EMPTY_SAMPLE_DIRECTION
    active_jobs: tuple[str, ...] = ()  # jobs that completed I/O in this interval

    def direction(self, direction: Direction) -> DirectionSample:
        return {Direction.READ: self.read, Direction.WRITE: self.write}.get(direction, self.trim)

    @property
    def total_bw_bytes_per_s(self) -> float:
        return self.read.bw_bytes_per_s + self.write.bw_bytes_per_s + self.trim.bw_bytes_per_s


class FioError(TierdeckError):
    """fio ran but one or more jobs failed (EINVAL from O_DIRECT on FUSE, ENOSPC ...).

    Not a ParseError: the output was fine, the benchmark was not. ``messages`` are fio's
    own lines ("fio: pid=..., err=22/file:filesetup.c:805, ..."), from stdout and stderr.
    """

    def __init__(self, jobs: Sequence[tuple[str, int]], messages: Sequence[str] = ()) -> None:
        self.jobs = tuple(jobs)  # (job name, errno)
        self.messages = tuple(messages)
        # A job's numjobs clones fail alike: once each, with a count.
        counts: dict[tuple[str, int], int] = {}
        for name, err in self.jobs:
            counts[(name, err)] = counts.get((name, err), 0) + 1
        failed = ", ".join(
            f"{name} (err={err}: {_strerror(err)})" + (f" x{n}" if n > 1 else "")
            for (name, err), n in counts.items()
        )
        detail = _most_useful(self.messages)
        text = f"fio job failed: {failed}" if self.jobs else "fio failed"
        super().__init__(f"{text}; {detail}" if detail else text)

    @classmethod
    def from_report(cls, report: FioReport, messages: Iterable[str] = ()) -> FioError:
        return cls([(job.name, job.error) for job in report.failed_jobs], list(messages))


def _strerror(err: int) -> str:
    try:
        return os.strerror(err)
    except ValueError:  # pragma: no cover - strerror accepts any int on Linux
        return "unknown error"


def _most_useful(messages: Sequence[str]) -> str:
    # fio explains *why* on a plain "fio: ..." line ("destination does not support
    # O_DIRECT"); the "fio: pid=" line only repeats the errno. Prefer the explanation.
    plain = [m.strip() for m in messages if m.strip() and "pid=" not in m]
    if plain:
        return plain[-1]
    return messages[-1].strip() if messages else ""


_NUMBER_RE = re.compile(r"[0-9]+")


def collapse_repeats(lines: Sequence[str]) -> list[str]:
    """fio's messages with repeats folded into one line and a count. fio prints an
    "io_u error" line per failed I/O, differing only in offsets: thousands of lines
    that say one thing (lines differing only in numbers count as repeats)."""
    order: list[str] = []
    first: dict[str, str] = {}
    counts: dict[str, int] = {}
    for line in lines:
        shape = _NUMBER_RE.sub("#", line)
        if shape not in first:
            order.append(shape)
            first[shape] = line
        counts[shape] = counts.get(shape, 0) + 1
    return [
        first[shape] if counts[shape] == 1 else f"{first[shape]} (repeated {counts[shape]} times)"
        for shape in order
    ]
