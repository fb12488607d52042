"""``--preset NAME`` or ``--job FILE.fio``: the jobs ``bench run`` and ``bench ladder``
run, as a usage error when they name nothing runnable."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import click

from ....core.errors import ParseError
from ....core.jobspec import JobSpec
from ....core.presets import PRESETS, Preset, find_preset


@dataclass(frozen=True)
class RunAsk:
    """What ``bench run`` was asked besides its hosts and folders (``--clients``,
    ``--hosts``): the jobs, and the options every host's run shares."""

    jobs: tuple[JobSpec, ...]
    preset: Preset | None
    size: str | None
    runtime: int | None
    direct: str | None  # "0", "1" or None (the jobs' own)
    as_json: bool
    no_save: bool
    name: str | None

    @property
    def preset_name(self) -> str | None:
        return None if self.preset is None else self.preset.name


def preset_named(name: str) -> Preset:
    found = find_preset(name)
    if found is None:
        names = ", ".join(p.name for p in PRESETS)
        raise click.BadParameter(f"no preset {name!r}; presets: {names}", param_hint="preset")
    return found


def load_jobs(
    preset_name: str | None, job_file: Path | None
) -> tuple[tuple[JobSpec, ...], Preset | None]:
    if (preset_name is None) == (job_file is None):
        raise click.UsageError("give exactly one of --preset NAME or --job FILE.fio")
    if preset_name is not None:
        preset = preset_named(preset_name)
        return preset.jobs, preset
    assert job_file is not None
    from ....backends.fio.jobfile import parse_jobfile

    try:
        # values are validated by plan_run, after --size/--runtime/--direct apply
        jobs = parse_jobfile(job_file.read_text(encoding="utf-8"))
    except ParseError as exc:
        raise click.BadParameter(str(exc), param_hint="--job") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise click.BadParameter(f"cannot read {job_file}: {exc}", param_hint="--job") from exc
    if not jobs:
        raise click.BadParameter(f"{job_file} has no job section", param_hint="--job")
    return tuple(jobs), None
