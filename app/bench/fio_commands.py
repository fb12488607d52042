"""The fio command lines of a planned run, and the test files it leaves behind.

Apart from the runner: a sweep builds its cells' jobs and clears its files with the same
arguments and names without running anything.
"""

from __future__ import annotations

import posixpath

from ...backends.fio.stream import STREAM_ARGS
from ...backends.host import Host
from ...core.bench_models import RunRequest, TargetKind
from ...core.errors import TierdeckError
from ...core.jobspec import BENCH_FILE_PREFIX, TARGET_OPTIONS, placement_args


def _escape(path: str) -> str:
    return path.replace(":", "\\:")  # fio splits filename= on ':'


def job_args(request: RunRequest) -> list[str]:
    """fio arguments for every job of the request (after the output options): the
    target as fio's directory and fio's own file naming, then the jobs."""
    if request.target.kind is not TargetKind.RAW:
        args = placement_args(request.target.path)
        for job in request.jobs:
            args += job.to_fio_args()
        return args
    args = []
    for job in request.jobs:
        job.validate()
        args += [f"--name={job.name}", f"--filename={_escape(request.target.path)}"]
        for key, value in job.options():
            if key not in TARGET_OPTIONS:
                args.append(f"--{key}" if value is None else f"--{key}={value}")
    return args


def measure_command(request: RunRequest) -> tuple[str, ...]:
    return ("fio", *STREAM_ARGS, *job_args(request))


def layout_command(request: RunRequest) -> tuple[str, ...]:
    return ("fio", "--create_only=1", "--output-format=json", "--eta=never", *job_args(request))


def test_files(request: RunRequest) -> tuple[str, ...]:
    """The files the run plans to create, as absolute paths (none in raw mode)."""
    if request.target.kind is TargetKind.RAW:
        return ()
    top = request.target.path.rstrip("/") or "/"
    return tuple(posixpath.join(top, f.name) for f in request.files)


def bench_entries(host: Host, directory: str) -> set[str]:
    """Names with tierdeck's test-file prefix directly in ``directory``."""
    try:
        return {n for n in host.listdir(directory) if n.startswith(BENCH_FILE_PREFIX)}
    except (OSError, TierdeckError):
        return set()
