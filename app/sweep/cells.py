"""A sweep cell as fio jobs, and fio's own verdict on them before anything runs.

Without a preset a cell is one job named ``sweep``: the base options with the cell's
values over them, read exactly as a job file's lines would be
(``backends.fio_jobfile.spec_from_options``). With a preset, every job of the preset
gets the base options and the cell's values over its own (its shared file, if any,
stays). The job names stay the same from cell to cell, so cells with the same files
reuse them (app/sweep/run.py).

:func:`check_with_fio` hands every cell's jobs to the real ``fio --parse-only`` in one
call (through the Host): an option fio does not know, or a value it rejects, is found
before the first cell runs. Only when that call fails are cells checked one by one,
to name the first one fio refuses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from enum import StrEnum

from ...backends.fio.jobfile import spec_from_options
from ...backends.host import Host
from ...core.bench_models import RunRequest
from ...core.errors import HostError, ParseError, TierdeckError
from ...core.jobspec import JobSpec, JobSpecError
from ...core.presets import find_preset
from ...core.sweep.model import AxisKind, SweepCell, SweepSpec, fio_value
from ..bench.fio_commands import job_args

SWEEP_JOB_NAME = "sweep"
_PARSE_TIMEOUT_S = 60.0


class SweepRefusalKind(StrEnum):
    FILE = "file"  # the sweep file itself (SweepError)
    TARGET = "target"  # no target, or --target against a targets axis
    CELL = "cell"  # a cell's jobs are not valid fio jobs
    FIO = "fio"  # fio --parse-only refuses an option or a value
    PLAN = "plan"  # a cell's preflight refused (space, O_DIRECT, busy ...)
    RESUME = "resume"  # no such sweep, or its definition differs
    STORE = "store"  # the history cannot be opened


class SweepRefused(TierdeckError):
    """The sweep was refused before any cell ran; ``reason`` says why in one line."""

    def __init__(self, kind: SweepRefusalKind, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


def fio_options(cell: SweepCell) -> dict[str, str | None]:
    """The cell's values that are fio options (not its target)."""
    return {
        name: fio_value(value)
        for name, value in cell.values
        if name != "targets"  # AxisKind.TARGET's axis
    }


def cell_jobs(spec: SweepSpec, cell: SweepCell) -> tuple[JobSpec, ...]:
    """The cell's jobs, validated; SweepRefused(CELL) names the cell and the value."""
    options: dict[str, str | None] = {**spec.base, **fio_options(cell)}
    try:
        if spec.preset is None:
            return (spec_from_options(SWEEP_JOB_NAME, options).validate(),)
        preset = find_preset(spec.preset)
        if preset is None:
            raise SweepRefused(
                SweepRefusalKind.FILE, f"sweep: base.preset: no preset {spec.preset!r}"
            )
        return tuple(_over_preset_job(job, options) for job in preset.jobs)
    except (ParseError, JobSpecError) as exc:
        # spec_from_options reads no file: its "line 0: " says nothing
        detail = exc.detail.removeprefix("line 0: ") if isinstance(exc, ParseError) else str(exc)
        raise SweepRefused(
            SweepRefusalKind.CELL, f"sweep cell {cell.label or cell.index + 1}: {detail}"
        ) from exc


def _over_preset_job(job: JobSpec, options: Mapping[str, str | None]) -> JobSpec:
    merged = {**dict(job.options()), **options}
    built = spec_from_options(job.name, merged)
    # options() leaves out where the job's file is: a shared file stays shared
    if "filename" not in options:
        built = replace(built, file_tag=job.file_tag, filename=job.filename)
    return built.validate()


def cell_target(spec: SweepSpec, cell: SweepCell, given: str | None) -> str:
    """Where the cell runs: its targets value, else --target, else the file's target."""
    for axis in spec.axes:
        if axis.kind is AxisKind.TARGET:
            return str(cell.value(axis.name))
    target = given or spec.target
    if target is None:
        raise SweepRefused(
            SweepRefusalKind.TARGET,
            "the sweep has no target: give --target PATH, target = in the file, or a targets axis",
        )
    return target


def check_with_fio(host: Host, requests: Sequence[tuple[SweepCell, RunRequest]]) -> None:
    """fio --parse-only on every cell's jobs; SweepRefused(FIO) names the first cell
    fio refuses, in fio's own words."""
    if not requests:
        return
    args = [arg for _, request in requests for arg in job_args(request)]
    if _parse(host, args) is None:
        return
    for cell, request in requests:
        problem = _parse(host, job_args(request))
        if problem is not None:
            raise SweepRefused(
                SweepRefusalKind.FIO,
                f"fio refuses sweep cell {cell.label or cell.index + 1}: {problem}",
            )
    # together refused, one by one accepted: say it without naming a cell
    raise SweepRefused(SweepRefusalKind.FIO, f"fio refuses the sweep's jobs: {_parse(host, args)}")


def _parse(host: Host, args: Sequence[str]) -> str | None:
    try:
        # fio times its clocks at start (~65 ms here) unless told which to use; parsing
        # needs no clock, and a job's own clocksource= still overrides this default.
        argv = ["fio", "--parse-only", "--clocksource=clock_gettime", *args]
        done = host.run(argv, timeout=_PARSE_TIMEOUT_S)
    except HostError as exc:  # ToolMissing, ToolTimeout
        return str(exc)
    if done.returncode == 0:
        return None
    lines = [line.strip() for line in (done.stderr + "\n" + done.stdout).splitlines()]
    wanted = [line for line in lines if line.startswith("fio:") or "out of range" in line]
    return "; ".join(dict.fromkeys(wanted or [line for line in lines if line]))[:400] or (
        f"fio --parse-only exited {done.returncode}"
    )
