"""What every export format shows the same way: the refusal, a run's environment, its
job rows and figures, its job file and the export's title. Apart from formats.py (which
dispatches to each format) so that the HTML renderer reads these without importing the
dispatcher that imports it.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...core.bench_models import DirectionSummary, RunResult
from ...core.compare.comparison import Metric
from ...core.errors import TierdeckError
from ...core.units import fmt_mib
from ..compare import render
from ..history.run_json import DIRECTIONS, result_to_json


class ExportRefused(TierdeckError):
    """The export cannot be made (runs that do not compare, a missing library)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def environment(run: RunResult) -> dict[str, str]:
    """What the run ran on, as ordered (key, text) pairs; unknown parts are left out."""
    env, target = run.env, run.target
    out = {
        "target": f"{target.label} ({target.kind})",
        "target path": target.path,
        "disks": " ".join(target.disks),
        "kernel": env.kernel or "",
        "fio": env.fio_version or "",
        "filesystem": env.fs_type or target.fs_type or "",
        "mount options": ",".join(env.mount_options),
        "mergerfs": env.mergerfs_version or "",
        **{f"mergerfs {k}": v for k, v in env.mergerfs_options.items()},
        "zfs": env.zfs_version or "",
        **{f"zfs {k}": v for k, v in env.zfs_properties.items()},
        **{f"disk {disk}": model for disk, model in env.disk_models.items()},
    }
    if run.imported is not None:
        out["imported from"] = f"{run.imported.file_name} ({run.imported.format})"
    return {k: v for k, v in out.items() if v}


def environment_table(runs: Sequence[RunResult]) -> tuple[list[str], list[list[str]]]:
    """Keys of any run's environment, in order; per key one value per run ("-")."""
    envs = [environment(r) for r in runs]
    keys: list[str] = []
    for env in envs:
        keys += [k for k in env if k not in keys]
    return keys, [[env.get(k, "-") for env in envs] for k in keys]


def job_rows(run: RunResult) -> list[tuple[str, str, DirectionSummary]]:
    """(job, direction, figures) per job of the run; its whole-run summary when fio
    reported no job (an imported group-status line)."""
    if run.job_summaries:
        return [
            (job.name, d, job.directions[d])
            for job in run.job_summaries
            for d in DIRECTIONS
            if d in job.directions
        ]
    return [("all jobs", d, run.summary[d]) for d in DIRECTIONS if d in run.summary]


def figures(summary: DirectionSummary) -> list[str]:
    """Bandwidth (MiB/s), IOPS, mean and p99 latency as shown everywhere."""
    return [
        fmt_mib(summary.bw_bytes),
        render.format_value(Metric.IOPS, summary.iops),
        render.format_value(Metric.LAT_MEAN, summary.lat_mean_ns),
        render.format_value(
            Metric.LAT_P99, None if summary.lat_p99_ns is None else float(summary.lat_p99_ns)
        ),
    ]


FIGURE_HEADERS = ["MiB/s", "IOPS", "lat mean", "lat p99"]


def jobfile(run: RunResult) -> str:
    """The run's jobs as a fio job file (as ``history show --json`` has it)."""
    return str(result_to_json(run)["spec"]["jobfile"])


def title(runs: Sequence[RunResult]) -> str:
    if len(runs) == 1:
        run = runs[0]
        return f"tierdeck run #{run.id}: {run.name}"
    return f"tierdeck: {len(runs)} runs compared"
