"""What one fio process left: its exit, its last report, its own words; and the run's
verdict and summary made from them.

Apart from the runner, which drives fio: turning fio's output into an error message
and a summary is pure, and tested on its own.
"""

from __future__ import annotations

import errno
from dataclasses import dataclass, field
from typing import Any

from ...core.bench_models import DirectionSummary
from ...core.fio_models import Direction, DirectionStats, FioError, FioReport, collapse_repeats

_MAX_ERROR_LINES = 20


@dataclass
class FioOutcome:
    returncode: int | None
    reports: int = 0
    last_doc: dict[str, Any] | None = None
    last_report: FioReport | None = None
    messages: list[str] = field(default_factory=list)  # fio's own lines, stdout + stderr
    interrupted: str | None = None  # why fio's end was never seen (a remote link died)


def fio_failure(outcome: FioOutcome) -> str | None:
    """fio's verdict in its own words, or None when the run went fine."""
    report = outcome.last_report
    failed_jobs = report.failed_jobs if report is not None else ()
    if outcome.returncode == 0 and report is not None and not failed_jobs:
        return None
    lines = collapse_repeats([line.strip() for line in outcome.messages if line.strip()])
    lines = lines[-_MAX_ERROR_LINES:]
    if any(err == errno.ENOSPC for _, err in ((j.name, j.error) for j in failed_jobs)):
        lines.append(
            "the target ran out of space during the run: on a copy-on-write filesystem "
            "(btrfs, ZFS) writing over a file needs room for the old and the new blocks. "
            "Choose a smaller size."
        )
    if outcome.interrupted is not None:
        headline = outcome.interrupted
    elif report is not None and failed_jobs:
        # FioError names each failed job with its errno; fio's lines say why.
        headline = str(FioError.from_report(report)).split(";", 1)[0]
    elif outcome.returncode is None:
        headline = "fio could not be started"
    elif outcome.returncode < 0:
        headline = f"fio was killed by signal {-outcome.returncode}"
    elif outcome.returncode != 0:
        headline = f"fio exited with status {outcome.returncode}"
    else:
        headline = "fio printed no final report"
    return "\n".join([headline, *lines])


def _direction_summary(stats: DirectionStats) -> DirectionSummary:
    return DirectionSummary(
        bw_bytes=stats.bw_bytes,
        iops=stats.iops,
        lat_mean_ns=stats.lat_mean_ns,
        lat_p99_ns=stats.lat_p99_ns,
    )


def run_summary(report: FioReport) -> dict[str, DirectionSummary]:
    return {
        direction.value: _direction_summary(report.direction(direction))
        for direction in Direction
        if report.direction(direction).has_io
    }
