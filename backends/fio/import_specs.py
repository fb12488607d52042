"""The job options an imported file holds -> JobSpecs, keeping what can be read.

A job is never lost to one option: an option tierdeck cannot read (a value fio takes
that tierdeck does not model, such as ``runtime=500ms``) is left out and reported as an
``UnreadOption``, and the job keeps the rest. A job name that cannot be a job-file
section (fio takes ``--name=/mnt/pool/test``) gets a usable name, reported too.

What the job does not say is unknown, not fio's default: options from fio's JSON or a
pasted command line are the whole job (fio's defaults fill the rest), options from fio's
``rw=..., bs=...`` line are not (``JobSpec.stated``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from ...core.errors import ParseError
from ...core.imports import UnreadOption
from ...core.jobspec import SPEC_OPTIONS, JobSpec, JobSpecError
from .jobfile import option_name, spec_from_options

_NOT_IN_NAME = re.compile(r"[\[\]\n\r;#=\0/]+")


@dataclass(frozen=True)
class JobOptions:
    """One job's options as a file gives them."""

    name: str  # fio's name for the job
    options: Mapping[str, str | None]
    complete: bool  # every option fio was given (JSON, command line), not a summary line
    # options the source leaves out even when fio was given them: fio's JSON lists a
    # bare flag (--time_based, not --time_based=1) nowhere, so its absence says nothing
    unlisted: frozenset[str] = frozenset()


@dataclass(frozen=True)
class ImportedJobs:
    jobs: tuple[JobSpec, ...]
    fio_names: tuple[str, ...]  # per job, the name fio reported it under
    unread: tuple[UnreadOption, ...]

    def by_fio_name(self) -> tuple[JobSpec, ...]:
        """The jobs under fio's names, to match fio's per-job figures."""
        return tuple(
            replace(job, name=name) for job, name in zip(self.jobs, self.fio_names, strict=True)
        )


def imported_jobs(entries: Sequence[JobOptions]) -> ImportedJobs:
    jobs: list[JobSpec] = []
    names: list[str] = []
    unread: list[UnreadOption] = []
    for entry in entries:
        job, problems = _job(entry)
        unread += problems
        if job is not None:
            jobs.append(job)
            names.append(entry.name)
    return ImportedJobs(tuple(jobs), tuple(names), tuple(unread))


def usable_name(name: str) -> str:
    """fio's job name, or the nearest name a job file can hold."""
    usable = _NOT_IN_NAME.sub("_", name).strip().strip("_") or "job"
    return usable + "_" if usable == "global" else usable


def _job(entry: JobOptions) -> tuple[JobSpec | None, list[UnreadOption]]:
    name = usable_name(entry.name)
    unread = []
    if name != entry.name:
        unread.append(UnreadOption(entry.name, "name", entry.name, renamed_to=name))
    options = dict(entry.options)
    if _build(name, options) is None:
        kept: dict[str, str | None] = {}
        dropped: dict[str, str | None] = {}
        for key, value in options.items():
            trial = {**kept, key: value}
            (kept if _build(name, trial) is not None else dropped)[key] = value
        # an option may need a later one (time_based needs runtime): try again once
        for key, value in list(dropped.items()):
            if _build(name, {**kept, key: value}) is not None:
                kept[key] = dropped.pop(key)
        options = {key: value for key, value in options.items() if key in kept}
        unread += [UnreadOption(entry.name, key, value) for key, value in dropped.items()]
    job = _build(name, options)
    if job is None:  # not even rw: nothing of the job can be said
        return None, unread
    return replace(job, stated=_stated(entry, options)), unread


def _stated(entry: JobOptions, kept: Mapping[str, str | None]) -> frozenset[str] | None:
    given = {option_name(key) for key in kept}
    if not entry.complete:
        return frozenset(given)
    unread = {option_name(key) for key in entry.options if key not in kept}
    silent = entry.unlisted - {option_name(key) for key in entry.options}
    if not unread and not silent:
        return None
    return frozenset((given | SPEC_OPTIONS) - unread - silent)


def _build(name: str, options: Mapping[str, str | None]) -> JobSpec | None:
    try:
        return spec_from_options(name, options).validate()
    except (ParseError, JobSpecError):
        return None
