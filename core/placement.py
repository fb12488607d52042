"""Where a benchmark's files go, and which files those are.

tierdeck adds nothing to fio's own file semantics: the target becomes fio's
``directory=``, and fio names the files with its default ``filename_format``
(``$jobname.$jobnum.$filenum``) behind tierdeck's ``.tierdeck-bench.`` prefix. So every
clone of ``numjobs`` and every file of ``nrfiles`` gets a file of its own, exactly as
plain ``fio JOBFILE`` run in that directory would lay them out (checked with fio 3.33).
A job's own ``filename=`` is kept when it stays inside the target; fio then shares it
between the job's clones, as it always does.

:func:`place_jobs` turns a user's jobs into jobs that are safe to hand to fio for one
target (or refuses, with the reason); :func:`planned_files` lists the files they will
create, with sizes, for the free-space check and for the cleanup. Pure: no I/O.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from .jobspec import BENCH_FILE_PREFIX, FIO_DEFAULT_FORMAT, JobSpec, JobSpecError, fio_size_bytes

_RANGE_RE = re.compile(r"^([^-:]+)[-:]([^-:]+)$")


class PlacementRefused(JobSpecError):
    """A job names files tierdeck will not let fio touch; the message says why."""


@dataclass(frozen=True)
class BenchFile:
    """One file a run creates, relative to the target directory."""

    name: str
    size_bytes: int | None  # None: fio sizes it (a percentage of the device)
    # Written again after its first write (time_based loops, a file laid out before it
    # is written, a later job writing it). Copy-on-write filesystems then need room for
    # the old and the new blocks until a commit frees the old ones.
    overwritten: bool = False


@dataclass(frozen=True)
class PlacedJobs:
    jobs: tuple[JobSpec, ...]
    notices: tuple[str, ...] = ()  # what was changed, in words (shown before the run)


def place_jobs(jobs: Sequence[JobSpec], target_dir: str) -> PlacedJobs:
    """The jobs as they will run in ``target_dir``: a ``filename=`` inside the target
    becomes relative to it (fio puts ``directory=`` in front of every name, even an
    absolute one), a ``filename_format`` gets tierdeck's prefix, a ``directory=`` is
    replaced by the target. Raises :class:`PlacementRefused` for a file outside the
    target, a ``..`` step out of it, or ``opendir``."""
    top = posixpath.normpath(target_dir)
    placed: list[JobSpec] = []
    notices: list[str] = []
    for job in jobs:
        extra = dict(job.extra)
        if "opendir" in extra:
            raise PlacementRefused(
                f"{job.name}: opendir= makes fio use every file under a directory; "
                "tierdeck only lets fio touch the files it creates. Remove opendir."
            )
        directory = extra.pop("directory", None)
        if directory is not None and posixpath.normpath(directory) != top:
            notices.append(
                f"{job.name}: directory={directory} is replaced by the target {top}: "
                "the test files go there"
            )
        fmt = extra.get("filename_format")
        if fmt is not None:
            extra["filename_format"] = _prefixed_format(job.name, fmt)
        filename = job.filename
        if filename is not None:
            names = [_relative_name(job.name, name, top) for name in job.file_names()]
            filename = ":".join(n.replace(":", "\\:") for n in names)
        placed.append(replace(job, extra=extra, filename=filename))
    return PlacedJobs(tuple(placed), tuple(notices))


def _prefixed_format(job: str, fmt: str) -> str:
    if "/" in fmt:
        raise PlacementRefused(
            f"{job}: filename_format={fmt!r} names a subdirectory; tierdeck keeps its "
            "test files directly in the target"
        )
    return fmt if fmt.startswith(BENCH_FILE_PREFIX) else BENCH_FILE_PREFIX + fmt


def _relative_name(job: str, name: str, top: str) -> str:
    if name.startswith("/"):
        path = posixpath.normpath(name)
        if path != top and not path.startswith(top.rstrip("/") + "/"):
            raise PlacementRefused(
                f"{job}: filename={name} is outside the target {top}; tierdeck only "
                "writes inside the target. Give the file a name relative to the target "
                "(or remove filename= and let fio name one file per job clone)."
            )
        relative = posixpath.relpath(path, top)
    else:
        relative = posixpath.normpath(name)
    if relative in (".", "") or relative == ".." or relative.startswith("../"):
        raise PlacementRefused(f"{job}: filename={name} does not name a file inside the target")
    return relative


# --------------------------------------------------------------------------- files


def _size(text: str | None) -> int | None:
    return fio_size_bytes(text) if text is not None else None


def _file_size_limit(extra: Mapping[str, str | None]) -> int | None:
    """fio's ``filesize=`` (a size or a range ``1M-4M``): the largest it allows."""
    text = extra.get("filesize")
    if not text:
        return None
    match = _RANGE_RE.match(text)
    return _size(match.group(2) if match else text)


def _count(extra: Mapping[str, str | None], *keys: str) -> int:
    for key in keys:
        value = extra.get(key)
        if value is not None and value.strip().isdigit() and int(value) > 0:
            return int(value)
    return 1


def expand_format(fmt: str, job: str, jobnum: int, filenum: int) -> str:
    """fio's filename_format keywords (filesetup.c make_filename)."""
    return (
        fmt.replace("$jobname", job)
        .replace("$jobnum", str(jobnum))
        .replace("$filenum", str(filenum))
    )


def planned_files(jobs: Sequence[JobSpec], *, laid_out: bool = False) -> tuple[BenchFile, ...]:
    """Every file the (placed) jobs make fio create, relative to the target, with the
    bytes it will hold. fio's rules (HOWTO, checked with fio 3.33): ``size`` is per
    clone and divided among its files unless ``filesize`` is given; clones of a job with
    a ``filename`` share it; jobs naming the same file share it (counted once, at the
    largest size). ``laid_out``: the files are written before the measurement."""
    files: dict[str, BenchFile] = {}
    for job in jobs:
        size = _size(job.size)
        limit = _file_size_limit(job.extra)
        names = job.file_names()
        if names:
            per_file = limit or (size // len(names) if size is not None else None)
            wanted = list(names)
        else:
            nrfiles = _count(job.extra, "nrfiles", "nr_files")
            per_file = limit or (size // nrfiles if size is not None else None)
            fmt = job.extra.get("filename_format") or BENCH_FILE_PREFIX + FIO_DEFAULT_FORMAT
            wanted = [
                expand_format(fmt, job.name, jobnum, filenum)
                for jobnum in range(job.numjobs)
                for filenum in range(nrfiles)
            ]
        again = job.writes and (
            laid_out
            or (bool(names) and job.numjobs > 1)  # clones write the same shared file
            or job.time_based
            or _count(job.extra, "loops") > 1
            or (job.extra.get("overwrite") or "0") not in ("0", "")
        )
        for name in dict.fromkeys(wanted):
            before = files.get(name)
            if before is None:
                files[name] = BenchFile(name, per_file, again)
                continue
            # Another job used this file first: writing it now overwrites it.
            sizes = [s for s in (before.size_bytes, per_file) if s is not None]
            files[name] = BenchFile(
                name,
                max(sizes) if sizes else None,
                before.overwritten or again or job.writes,
            )
    return tuple(files.values())
