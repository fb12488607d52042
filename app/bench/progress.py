"""How far a run is, from fio's latest report against the jobs it was given.

Apart from the runner: a pure estimate from the job specs, tested on its own.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...core.fio_models import FioReport
from ...core.jobspec import JobSpec, fio_size_bytes, group_seconds, stonewall_groups


class ProgressModel:
    """How far the jobs are: elapsed vs runtime for timed jobs, bytes done vs size for
    size-bound ones, group by group (stonewall starts a group; groups run in turn)."""

    def __init__(self, jobs: Sequence[JobSpec]) -> None:
        self.groups = stonewall_groups(jobs)
        known = [group_seconds(g) for g in self.groups]
        present = [s for s in known if s is not None]
        default = sum(present) / len(present) if present else 1.0
        self.weights = [s if s is not None else default for s in known]

    @staticmethod
    def _job_fraction(job: JobSpec, report: FioReport) -> tuple[float, bool]:
        entries = [j for j in report.jobs if j.name == job.name]
        if not entries:
            return 0.0, False
        started = any(e.has_io for e in entries)
        runtime_ms = max(d.runtime_ms for e in entries for d in (e.read, e.write, e.trim))
        done = sum(d.io_bytes for e in entries for d in (e.read, e.write, e.trim))
        fractions: list[float] = []
        if job.runtime is not None:
            fractions.append(runtime_ms / (job.runtime * 1000.0))
        size = fio_size_bytes(job.size) if job.size is not None else None
        if size and not job.time_based:
            fractions.append(done / (size * job.numjobs))
        return min(1.0, max(fractions, default=0.0)), started

    def fraction(self, report: FioReport | None) -> float:
        if report is None:
            return 0.0
        per_group: list[float] = []
        for group in self.groups:
            parts = [self._job_fraction(job, report) for job in group]
            per_group.append(sum(f for f, _ in parts) / len(parts))
            if any(started for _, started in parts):
                # a later group has started: every group before it is done
                per_group[:-1] = [1.0] * (len(per_group) - 1)
        total = sum(self.weights)
        return sum(w * f for w, f in zip(self.weights, per_group, strict=True)) / total
