"""Runs side by side: the typed comparison the CLI, the TUI and the exports show.

``compare_runs(runs, baseline)`` takes 2 to 8 successful RunResults and returns a
:class:`Comparison`:

- **Rows of matched jobs.** A run's jobs are its ``job_summaries``; a run without them
  contributes its whole-run ``summary`` as one job. The first run's jobs make the first
  rows, in order. Each later run's jobs go first to the row of the same job name, then,
  in order, to the rows it has not filled yet (by position); a job left over starts a
  row of its own. ``JobRow.matched_by`` says how each run's job got there, so a screen
  can say "matched by position" when names differ. Rows do not depend on the baseline:
  changing it (``Comparison.rebased``) only recomputes the deltas.
- **Per direction** (read/write/trim with I/O in any run of the row) and **metric**
  (bandwidth in bytes/s, IOPS, mean and p99 latency in ns), a :class:`Cell` per run:
  its value, ``delta_pct`` against the baseline's value, the noise band, and a
  :class:`Verdict`. Higher bandwidth and IOPS are better, lower latencies are better.
- **The noise rule** (``core.compare_noise``): each run's spread is the coefficient of
  variation of that job's per-second values; a delta whose size is at most both runs'
  spreads combined (root sum of squares) is within noise and wins nothing. A run
  without a per-second series (imported) makes the noise unknown: the delta is shown,
  with no verdict.
- **Differences** (``core.compare_differences``): every job option, fio version,
  kernel, filesystem, mergerfs, ZFS and disk model that differs, plus the targets
  (information, not a warning); and per run the warnings that inflate results (cache,
  buffered I/O, memory target, caches kept) and the mark of runs stored before 0.2
  whose clones shared one file. Nothing of this: ``Comparison.comparable``.

Refusals are :class:`CompareRefused` with a :class:`RefusalKind`. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from ..bench_models import DirectionSummary, RunResult, RunStatus, RunWarning
from ..errors import TierdeckError
from ..jobspec import JobSpec
from .differences import Difference, DifferenceKind, env_differences, job_differences
from .noise import Metric, job_seconds, noise_pct, spread_pct
from .series import summary_value as _value

__all__ = [
    "MAX_RUNS",
    "MIN_RUNS",
    "Cell",
    "CompareRefused",
    "Comparison",
    "Difference",
    "DifferenceKind",
    "DirectionRow",
    "JobRow",
    "Match",
    "Metric",
    "MetricRow",
    "RefusalKind",
    "RunNotes",
    "Verdict",
    "baseline_index",
    "compare_runs",
]

MIN_RUNS = 2
MAX_RUNS = 8
DIRECTIONS = ("read", "write", "trim")
WHOLE_RUN = "all jobs"  # the row name of a run compared by its whole-run summary


class RefusalKind(StrEnum):
    TOO_FEW = "too-few"  # fewer than 2 runs
    TOO_MANY = "too-many"  # more than 8
    NOT_OK = "not-ok"  # a failed or cancelled run: its figures are not results
    DUPLICATE = "duplicate"  # the same run twice
    UNKNOWN_BASELINE = "unknown-baseline"  # the baseline is not one of the runs


class CompareRefused(TierdeckError):
    def __init__(self, reason: str, kind: RefusalKind) -> None:
        super().__init__(reason)
        self.reason = reason
        self.kind = kind


class Match(StrEnum):
    """How a run's job came to sit in a row."""

    FIRST = "first"  # the row's own job: the first run that has it
    NAME = "name"
    POSITION = "position"


class Verdict(StrEnum):
    BASELINE = "baseline"
    BETTER = "better"
    WORSE = "worse"
    SAME = "same"  # exactly equal
    NOISE = "noise"  # smaller than the runs' own per-second spread
    UNKNOWN = "unknown"  # a delta, but no series to judge its noise by
    MISSING = "missing"  # no value here or in the baseline


@dataclass(frozen=True)
class Cell:
    value: float | None  # bytes/s, IOPS or ns; None: the run has no such figure
    delta_pct: float | None  # against the baseline; None on the baseline or no value
    spread_pct: float | None  # this run's own per-second spread (CV, %); None: unknown
    noise_pct: float | None  # the band the delta had to leave; None: unknown
    verdict: Verdict


@dataclass(frozen=True)
class MetricRow:
    metric: Metric
    cells: tuple[Cell, ...]  # one per run


@dataclass(frozen=True)
class DirectionRow:
    direction: str  # "read" / "write" / "trim"
    metrics: tuple[MetricRow, ...]  # in Metric order

    def metric(self, metric: Metric) -> MetricRow:
        return next(m for m in self.metrics if m.metric is metric)


@dataclass(frozen=True)
class JobRow:
    name: str  # the first occupant's job name
    names: tuple[str | None, ...]  # each run's job in this row; None: the run has none
    matched_by: tuple[Match | None, ...]
    directions: tuple[DirectionRow, ...]

    def direction(self, direction: str) -> DirectionRow | None:
        return next((d for d in self.directions if d.direction == direction), None)


@dataclass(frozen=True)
class RunNotes:
    """What makes one run's figures suspect, whatever it is compared with."""

    inflating: tuple[RunWarning, ...]  # cache, buffered, memory target, caches kept
    clones_shared_file: bool  # stored before 0.2: numjobs clones shared one file
    # options an imported run's file did not state (direct, size ...): not compared, so
    # "no parameter differs" cannot be said of them
    unknown_options: tuple[str, ...] = ()

    @property
    def any(self) -> bool:
        return bool(self.inflating) or self.clones_shared_file or bool(self.unknown_options)


@dataclass(frozen=True)
class Comparison:
    runs: tuple[RunResult, ...]
    baseline: int  # index into runs
    rows: tuple[JobRow, ...]
    differences: tuple[Difference, ...]
    notes: tuple[RunNotes, ...]  # one per run

    @property
    def comparable(self) -> bool:
        """No parameter differs (the target aside) and no run carries a warning."""
        return not any(not d.kind.informational for d in self.differences) and not any(
            n.any for n in self.notes
        )

    def rebased(self, baseline: int) -> Comparison:
        """The same runs against another baseline (index into runs)."""
        return compare_runs(self.runs, baseline)


# ------------------------------------------------------------------------- jobs


@dataclass(frozen=True)
class _Job:
    name: str
    key: str | None  # the job name the series' active_jobs use; None: the whole run
    directions: dict[str, DirectionSummary]
    spec: JobSpec | None


def _jobs_of(run: RunResult) -> list[_Job]:
    specs = {spec.name: spec for spec in run.jobs}
    if run.job_summaries:
        # one job planned and one reported under another name (an imported job file
        # whose section fio echoed differently): still that job's options
        only = run.jobs[0] if len(run.jobs) == len(run.job_summaries) == 1 else None
        return [
            _Job(j.name, j.name, dict(j.directions), specs.get(j.name, only))
            for j in run.job_summaries
        ]
    single = run.jobs[0] if len(run.jobs) == 1 else None
    name = single.name if single is not None else WHOLE_RUN
    return [_Job(name, None, dict(run.summary), single)]


def _match(runs: Sequence[RunResult]) -> list[list[tuple[_Job, Match] | None]]:
    """Rows x runs: which job of each run sits in each row (the module docstring)."""
    rows: list[list[tuple[_Job, Match] | None]] = []
    for index, run in enumerate(runs):
        jobs = _jobs_of(run)
        taken: set[int] = set()
        rest: list[_Job] = []
        names = [_name(row) for row in rows]
        for job in jobs:
            row = next(
                (i for i, name in enumerate(names) if i not in taken and name == job.name), None
            )
            if row is None:
                rest.append(job)
            else:
                rows[row][index] = (job, Match.NAME)
                taken.add(row)
        free = [i for i in range(len(rows)) if i not in taken]
        for job in rest:
            if free:
                rows[free.pop(0)][index] = (job, Match.POSITION)
            else:
                new: list[tuple[_Job, Match] | None] = [None] * len(runs)
                new[index] = (job, Match.FIRST)
                rows.append(new)
    return rows


def _name(row: Sequence[tuple[_Job, Match] | None]) -> str:
    first = _first(row)
    assert first is not None  # a row starts with the job that made it
    return first.name


def _first(row: Sequence[tuple[_Job, Match] | None]) -> _Job | None:
    return next((cell[0] for cell in row if cell is not None), None)


# ------------------------------------------------------------------------- cells


def _verdict(delta: float, noise: float | None, higher_is_better: bool) -> Verdict:
    if delta == 0:
        return Verdict.SAME
    if noise is None:
        return Verdict.UNKNOWN
    if abs(delta) <= noise:
        return Verdict.NOISE
    return Verdict.BETTER if (delta > 0) == higher_is_better else Verdict.WORSE


def _metric_row(
    metric: Metric, values: Sequence[float | None], spreads: Sequence[float | None], baseline: int
) -> MetricRow:
    base = values[baseline]
    cells = []
    for index, (value, spread) in enumerate(zip(values, spreads, strict=True)):
        if index == baseline:
            verdict = Verdict.BASELINE if value is not None else Verdict.MISSING
            cells.append(Cell(value, None, spread, None, verdict))
            continue
        if value is None or base is None or base == 0:
            cells.append(Cell(value, None, spread, None, Verdict.MISSING))
            continue
        delta = 100.0 * (value - base) / base
        noise = noise_pct(spreads[baseline], spread)
        cells.append(
            Cell(value, delta, spread, noise, _verdict(delta, noise, metric.higher_is_better))
        )
    return MetricRow(metric, tuple(cells))


def _row(
    runs: Sequence[RunResult], slots: Sequence[tuple[_Job, Match] | None], baseline: int
) -> JobRow:
    jobs = [None if slot is None else slot[0] for slot in slots]
    directions = []
    for direction in DIRECTIONS:
        summaries = [None if j is None else j.directions.get(direction) for j in jobs]
        if all(s is None for s in summaries):
            continue
        metrics = []
        for metric in Metric:
            values = [_value(s, metric) for s in summaries]
            spreads = [
                None if j is None else spread_pct(job_seconds(r.series, j.key), direction, metric)
                for r, j in zip(runs, jobs, strict=True)
            ]
            metrics.append(_metric_row(metric, values, spreads, baseline))
        directions.append(DirectionRow(direction, tuple(metrics)))
    first = _first(slots)
    assert first is not None  # a row exists because some run has the job
    return JobRow(
        name=first.name,
        names=tuple(None if j is None else j.name for j in jobs),
        matched_by=tuple(None if slot is None else slot[1] for slot in slots),
        directions=tuple(directions),
    )


# ------------------------------------------------------------------------- entry


def _check(runs: Sequence[RunResult], baseline: int) -> None:
    if len(runs) < MIN_RUNS:
        raise CompareRefused(
            f"compare needs at least {MIN_RUNS} runs, got {len(runs)}", RefusalKind.TOO_FEW
        )
    if len(runs) > MAX_RUNS:
        raise CompareRefused(
            f"compare takes at most {MAX_RUNS} runs, got {len(runs)}", RefusalKind.TOO_MANY
        )
    for run in runs:
        if run.status is not RunStatus.OK:
            raise CompareRefused(
                f"run #{run.id} ({run.name}) {run.status}: only successful runs compare",
                RefusalKind.NOT_OK,
            )
    ids = [r.id for r in runs if r.id is not None]
    duplicate = next((i for i in ids if ids.count(i) > 1), None)
    if duplicate is not None:
        raise CompareRefused(f"run #{duplicate} is given twice", RefusalKind.DUPLICATE)
    if not 0 <= baseline < len(runs):
        raise CompareRefused(
            f"baseline {baseline} is not one of the {len(runs)} runs", RefusalKind.UNKNOWN_BASELINE
        )


def baseline_index(runs: Sequence[RunResult], run_id: int | None) -> int:
    """The index of the run with id ``run_id`` (None: the first run)."""
    if run_id is None:
        return 0
    for index, run in enumerate(runs):
        if run.id == run_id:
            return index
    raise CompareRefused(
        f"baseline #{run_id} is not one of the compared runs", RefusalKind.UNKNOWN_BASELINE
    )


def compare_runs(runs: Sequence[RunResult], baseline: int = 0) -> Comparison:
    """Compare 2..8 successful runs against ``runs[baseline]``; CompareRefused if not."""
    _check(runs, baseline)
    runs = tuple(runs)
    slots = _match(runs)
    rows = tuple(_row(runs, row, baseline) for row in slots)
    differences: list[Difference] = []
    for row, row_slots in zip(rows, slots, strict=True):
        specs = [None if slot is None else slot[0].spec for slot in row_slots]
        differences += job_differences(row.name, row.names, specs)
    differences += env_differences(runs)
    notes = tuple(
        RunNotes(
            tuple(w for w in r.warnings if w.kind.inflates_results),
            r.clones_shared_file,
            tuple(sorted({option for job in r.jobs for option in job.unknown()})),
        )
        for r in runs
    )
    return Comparison(runs, baseline, rows, tuple(differences), notes)
