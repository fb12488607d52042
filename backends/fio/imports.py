"""Files of fio output -> runs for the history (``tierdeck history import``, the demo).

Two formats, one module each: ``fio_import_json`` (fio's JSON and json+, fio 2.x to 3.3x,
through the stream parser's own reading) and ``fio_import_text`` (fio's default output, as
pasted in forum posts and notes). Whatever the file, the result is a ``RunResult``
like the runner's, marked as imported (``RunResult.imported``): its fio JSON (for a
text, the figures read, in fio's JSON shape), its summary and per-job summaries, the
job options the file holds, the fio version as its environment, no series. A text
holding several fio runs (notes, a script's output) gives one run each
(``imported_runs``), never one run adding unrelated figures together.

Anything else is refused with ``ImportRefused`` and a kind; nothing here raises
another error for any input (tests/unit/backends/fio/test_fio_import_properties.py).

To add a format: a module with ``looks_like_<format>(text)`` and a reader, tried in
``parse_fio_outputs`` before the text reader (the most lenient).
"""

from __future__ import annotations

import hashlib
import posixpath
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...core.bench_models import (
    BenchTarget,
    DirectionSummary,
    EnvFingerprint,
    JobSummary,
    RunResult,
    RunStatus,
    RunWarning,
    TargetKind,
    WarningKind,
)
from ...core.errors import ParseError
from ...core.fio_models import Direction, FioError, FioReport
from ...core.imports import (
    ImportFormat,
    ImportNotice,
    ImportRefusalKind,
    ImportRefused,
    ImportSource,
    UnreadOption,
)
from ...core.jobspec import JobSpec
from .import_json import JSON_UNLISTED, job_options, looks_like_json, read_json
from .import_specs import ImportedJobs, JobOptions, imported_jobs
from .import_text import (
    GroupStatus,
    TextImport,
    command_args,
    command_options,
    looks_like_text,
    read_texts,
)
from .stream import job_summaries, parse_report
from .text_sniff import decode_text, looks_binary

__all__ = [
    "ParsedImport",
    "imported_run",
    "imported_runs",
    "jobs_of_command",
    "parse_fio_output",
    "parse_fio_outputs",
]


@dataclass(frozen=True)
class ParsedImport:
    """What a file of fio output says, before it becomes a run."""

    format: ImportFormat
    notices: tuple[ImportNotice, ...]
    fio_version: str | None
    jobs: tuple[JobSpec, ...]  # the options the file holds, as jobs; () when none
    job_summaries: tuple[JobSummary, ...]
    summary: dict[str, DirectionSummary]
    fio_json: dict[str, Any]
    ended_at: float | None  # when fio finished, if the file says
    runtime_s: float | None
    target_path: str | None  # the jobs' directory= or filename=, if they name one
    error: str | None  # fio's job errors, if any job failed
    unread: tuple[UnreadOption, ...] = ()  # job options left out, the jobs kept


def parse_fio_output(data: bytes) -> ParsedImport:
    """Read one file's bytes holding one fio run. Raises ImportRefused, and nothing
    else, when they are not fio output tierdeck can read or hold several runs."""
    parsed = parse_fio_outputs(data)
    if len(parsed) > 1:
        raise ImportRefused(
            f"the file holds {len(parsed)} fio runs, not one",
            kind=ImportRefusalKind.SEVERAL_RUNS,
        )
    return parsed[0]


def parse_fio_outputs(data: bytes) -> tuple[ParsedImport, ...]:
    """Read one file's bytes: each fio run it holds, in order (JSON holds one). Raises
    ImportRefused, and nothing else, when they are not fio output tierdeck can read;
    binary data is refused before any of it is read as text or split into runs."""
    refuse_binary(data)
    text = decode_text(data)
    if not text.strip():
        raise ImportRefused("the file is empty", kind=ImportRefusalKind.EMPTY)
    if looks_like_json(text) and '"fio version"' in text:
        return (_from_json(text),)
    if looks_like_text(text):
        return tuple(_from_text(found) for found in read_texts(text))
    if looks_like_json(text):
        return (_from_json(text),)  # says why the JSON is not fio's
    raise ImportRefused(
        "neither fio JSON (--output-format=json or json+) nor fio's text report",
        kind=ImportRefusalKind.NOT_FIO,
    )


def refuse_binary(head: bytes) -> None:
    """Raise ImportRefused when a file's first bytes are not text: fio output is, so
    nothing more of it needs reading."""
    if looks_binary(head):
        raise ImportRefused(
            "binary data, not text: not fio's output (JSON or text report)",
            kind=ImportRefusalKind.BINARY,
        )


def imported_run(
    data: bytes,
    file_name: str,
    *,
    now: float,
    name: str | None = None,
    tags: Sequence[str] = (),
    target: BenchTarget | None = None,
    default_jobs: Sequence[JobSpec] = (),
) -> RunResult:
    """The run a file holds, ready to store. ``name`` defaults to the file name;
    ``target`` to the jobs' own directory or file (kind "path"); ``default_jobs`` stand
    in when the file names no options (a seed's snippet under its fio command)."""
    parsed = parse_fio_output(data)
    return _run(parsed, content_hash(data), file_name, now, name, tags, target, default_jobs)


def imported_runs(
    data: bytes,
    file_name: str,
    *,
    now: float,
    name: str | None = None,
    tags: Sequence[str] = (),
) -> tuple[RunResult, ...]:
    """Each fio run a file holds, ready to store in this order. With several, each is
    named "<name> (i of n)" and the second on carry the file's hash with "#i" appended:
    the first holds the file's own hash, which the duplicate check looks for."""
    parsed = parse_fio_outputs(data)
    digest = content_hash(data)
    if len(parsed) == 1:
        return (_run(parsed[0], digest, file_name, now, name, tags, None, ()),)
    return tuple(
        _run(
            one,
            digest if number == 1 else f"{digest}#{number}",
            file_name,
            now,
            f"{name or file_name} ({number} of {len(parsed)})",
            tags,
            None,
            (),
        )
        for number, one in enumerate(parsed, start=1)
    )


def _run(
    parsed: ParsedImport,
    digest: str,
    file_name: str,
    now: float,
    name: str | None,
    tags: Sequence[str],
    target: BenchTarget | None,
    default_jobs: Sequence[JobSpec],
) -> RunResult:
    jobs = _filled(parsed.jobs, default_jobs) if parsed.jobs else tuple(default_jobs)
    summaries = parsed.job_summaries
    if not parsed.jobs and jobs:
        summaries = _with_kinds(summaries, jobs)
    finished = parsed.ended_at if parsed.ended_at is not None else now
    started = finished - (parsed.runtime_s or 0.0)
    return RunResult(
        id=None,
        name=name or file_name,
        status=RunStatus.FAILED if parsed.error else RunStatus.OK,
        target=target or _target(parsed, file_name),
        jobs=jobs,
        started_at=started,
        finished_at=finished,
        error=parsed.error,
        fio_json=parsed.fio_json,
        summary=parsed.summary,
        env=EnvFingerprint(fio_version=parsed.fio_version),
        tags=tuple(tags),
        job_summaries=summaries,
        warnings=tuple(RunWarning(WarningKind.IMPORT_OPTIONS, str(u)) for u in parsed.unread),
        imported=ImportSource(
            file_name=file_name,
            content_hash=digest,
            format=parsed.format,
            notices=parsed.notices,
        ),
    )


def jobs_of_command(line: str) -> tuple[JobSpec, ...]:
    """The jobs of a fio command line (``fio --name=x --rw=write ...``) as written in
    notes: what a snippet of output without its command was run with."""
    args = command_args(line)
    if args is None:
        return ()
    return imported_jobs([JobOptions(n, o, True) for n, o in command_options(args)]).jobs


def content_hash(data: bytes) -> str:
    """sha256 of the file's text as a report, not its bytes: the same report saved
    again with other line ends (CRLF), trailing blanks, a BOM or blank lines around it
    is the same import."""
    lines = [line.rstrip() for line in decode_text(data).splitlines()]
    return hashlib.sha256("\n".join(lines).strip("\n").encode("utf-8")).hexdigest()


def bytes_hash(data: bytes) -> str:
    """sha256 of the bytes: what imports stored before content_hash normalised."""
    return hashlib.sha256(data).hexdigest()


def _filled(jobs: Sequence[JobSpec], defaults: Sequence[JobSpec]) -> tuple[JobSpec, ...]:
    """Jobs read from fio's "rw=..., bs=..." line, completed by the command the notes
    say they ran (same name, or the only one): the line's own values win."""
    by_name = {job.name: job for job in defaults}
    only = defaults[0] if len(defaults) == 1 else None
    out = []
    for job in jobs:
        default = by_name.get(job.name, only)
        if job.stated is None or default is None or default.stated is not None:
            out.append(job)
            continue
        given = {key: value for key, value in job.options() if job.states(key)}
        merged = imported_jobs([JobOptions(job.name, {**dict(default.options()), **given}, True)])
        out.append(merged.jobs[0] if merged.jobs and not merged.unread else job)
    return tuple(out)


def _target(parsed: ParsedImport, file_name: str) -> BenchTarget:
    path = parsed.target_path or ""
    label = f"imported from {file_name}" + (f" ({path})" if path else "")
    return BenchTarget(path=path, kind=TargetKind.PATH, label=label, disks=())


# --------------------------------------------------------------------------- JSON


def _from_json(text: str) -> ParsedImport:
    found = read_json(text)
    report = found.report
    read = imported_jobs(
        [JobOptions(n, o, True, JSON_UNLISTED) for n, o in job_options(found.document)]
    )
    jobs = read.jobs
    error = None
    if report.failed_jobs:
        error = str(FioError.from_report(report, found.messages))
    return ParsedImport(
        format=found.format,
        notices=found.notices,
        fio_version=report.fio_version,
        jobs=jobs,
        job_summaries=job_summaries(report, read.by_fio_name()),
        summary=_summary(report),
        fio_json=found.document,
        ended_at=float(report.timestamp) if report.timestamp is not None else None,
        runtime_s=_runtime_s(report),
        target_path=_target_path(read),
        error=error,
        unread=read.unread,
    )


def _summary(report: FioReport) -> dict[str, DirectionSummary]:
    out = {}
    for direction in Direction:
        stats = report.direction(direction)
        if stats.has_io:
            out[direction.value] = DirectionSummary(
                stats.bw_bytes, stats.iops, stats.lat_mean_ns, stats.lat_p99_ns
            )
    return out


def _runtime_s(report: FioReport) -> float | None:
    """How long fio ran: groups run one after another (stonewall), each as long as its
    longest job in any direction; a read group and a write group add up."""
    per_group: dict[int, int] = {}
    for job in report.jobs:
        longest = max(job.direction(d).runtime_ms for d in Direction)
        per_group[job.groupid] = max(per_group.get(job.groupid, 0), longest)
    total = sum(per_group.values())
    return total / 1000.0 if total > 0 else None


def _text_jobs(found: TextImport, names: Sequence[str]) -> ImportedJobs:
    """The options the text gives for these jobs: a pasted command line's are whole,
    fio's "rw=..., bs=..." line's are not."""
    return imported_jobs([JobOptions(n, found.options[n], n in found.from_command) for n in names])


def _target_path(read: ImportedJobs) -> str | None:
    for job, fio_name in zip(read.jobs, read.fio_names, strict=True):
        directory = job.extra.get("directory")
        if directory:
            return directory
        if job.filename:
            return job.filename
        if fio_name.startswith("/") and job.states("filename"):
            # no file named: fio made "<name>.0.0", so a path as name is where it wrote
            return posixpath.dirname(fio_name) or None
    return None


def _with_kinds(summaries: Sequence[JobSummary], jobs: Sequence[JobSpec]) -> tuple[JobSummary, ...]:
    """rw and bs, where fio's text gave none, from the job of the same name, or from the
    only job there is (a seed's snippet under its one fio command)."""
    by_name = {job.name: job for job in jobs}
    only = jobs[0] if len(jobs) == 1 else None
    out = []
    for s in summaries:
        job = by_name.get(s.name, only)
        if job is None:
            out.append(s)
        else:
            out.append(JobSummary(s.name, s.rw or job.rw, s.bs or job.bs, s.directions, s.error))
    return tuple(out)


# --------------------------------------------------------------------------- text


def _from_text(found: TextImport) -> ParsedImport:
    if found.jobs:
        return _from_text_reports(found)
    return _from_group_lines(found)


def _from_text_reports(found: TextImport) -> ParsedImport:
    document = found.document()
    try:
        report = parse_report(document)
    except ParseError as exc:  # pragma: no cover - the reader writes only numbers
        raise ImportRefused(
            f"fio's text with figures tierdeck cannot read: {exc.detail}",
            kind=ImportRefusalKind.BAD_REPORT,
        ) from exc
    names: list[str] = []
    for job in found.jobs:
        name = job["jobname"]
        opts = found.options.get(name)
        if name in names or not opts:
            continue
        if job["tierdeck jobs"] > 1:  # one report for N clones: group_reporting
            opts.setdefault("numjobs", str(job["tierdeck jobs"]))
            opts.setdefault("group_reporting", None)
        names.append(name)
    read = _text_jobs(found, names)
    jobs = read.jobs
    error = None
    if report.failed_jobs:
        error = str(FioError.from_report(report))
    return ParsedImport(
        format=ImportFormat.FIO_TEXT,
        notices=(ImportNotice.LAST_OF_SEVERAL,) if found.last_of_several else (),
        fio_version=found.fio_version,
        jobs=jobs,
        job_summaries=job_summaries(report, read.by_fio_name()),
        summary=_summary(report),
        fio_json=document,
        ended_at=found.ended_at,
        runtime_s=_runtime_s(report),
        target_path=_target_path(read),
        error=error,
        unread=read.unread,
    )


def _from_group_lines(found: TextImport) -> ParsedImport:
    by_name: dict[str, list[GroupStatus]] = {}
    for group in found.groups:
        by_name.setdefault(group.name, []).append(group)
    summaries = []
    for name, groups in by_name.items():
        directions = {g.direction: DirectionSummary(g.bw_bytes, None, None, None) for g in groups}
        summaries.append(JobSummary(name=name, rw=None, bs=None, directions=directions))
    read = _text_jobs(found, [n for n in found.options if n in by_name])
    jobs = read.jobs
    if jobs:
        summaries = list(_with_kinds(summaries, read.by_fio_name()))
    summary: dict[str, DirectionSummary] = {}
    for direction in ("read", "write", "trim"):
        groups = [g for g in found.groups if g.direction == direction]
        if len(groups) == 1:
            summary[direction] = DirectionSummary(groups[0].bw_bytes, None, None, None)
        elif groups and all(g.io_bytes is not None and g.runtime_ms for g in groups):
            io = sum(g.io_bytes or 0 for g in groups)
            ms = sum(g.runtime_ms or 0 for g in groups)
            summary[direction] = DirectionSummary(1000 * io // ms, None, None, None)
    runtimes = [g.runtime_ms for g in found.groups if g.runtime_ms]
    return ParsedImport(
        format=ImportFormat.FIO_TEXT,
        notices=(ImportNotice.GROUP_STATUS_ONLY,),
        fio_version=found.fio_version,
        jobs=jobs,
        job_summaries=tuple(summaries),
        summary=summary,
        fio_json=found.document(),
        ended_at=None,
        runtime_s=sum(runtimes) / 1000.0 if runtimes else None,
        target_path=_target_path(read),
        error=None,
        unread=read.unread,
    )
