"""Stored runs as a file to share: Markdown, CSV, JSON or a self-contained HTML report.

The one export the CLI (``tierdeck history export``) and the TUI (compare view and run
view) call: :func:`render_export` for the text, :func:`write_export` for the file.

What an export holds, in every format:

- **one run**: that run: its summary per job and direction (bandwidth, IOPS, mean and
  p99 latency), its job options (the job file), its environment and warnings. JSON is
  the run's ``tierdeck.run/1`` object with fio's own JSON (``history show --json
  --fio``).
- **two to eight runs**: their comparison (core/compare/comparison.py, rendered by
  app/compare/render.py exactly as ``tierdeck compare`` does, against ``baseline``),
  plus each run's environment. JSON is the ``tierdeck.compare/1`` object whose runs
  each carry an ``env`` key; CSV is the compare CSV with the environment in columns.
- **html** adds charts of the per-second series (app/export/html.py) and opens with no
  network.
- **redact**: every run goes through core/redact.py first, so no format can leak a
  serial, WWN, UUID or hostname that the runs hold.

A file is written atomically (backends/localfiles). Without ``output`` it is
``tierdeck-run(s)-<ids>[-redacted].<ext>`` in the current folder, and an existing file
of that name is never replaced: the export takes the next free name (``_2``, ``_3``
...) and says so in :class:`ExportWritten`. A file the user named is replaced.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...backends.localfiles import write_atomically
from ...core.bench_models import RunResult, RunStatus
from ...core.compare.comparison import Comparison, compare_runs
from ...core.redact import NOTHING_KNOWN, KnownIdentifiers, redact_runs
from ..compare import render
from ..history.run_json import result_to_json
from .parts import (
    FIGURE_HEADERS,
    ExportRefused,
    environment_table,
    figures,
    job_rows,
    jobfile,
    title,
)

if TYPE_CHECKING:
    from ...backends.host import Host
    from ...core.models import Inventory

MAX_FREE_NAME_TRIES = 1000


class ExportFormat(StrEnum):
    MARKDOWN = "markdown"
    CSV = "csv"
    JSON = "json"
    HTML = "html"

    @property
    def extension(self) -> str:
        return {"markdown": "md"}.get(self.value, self.value)


@dataclass(frozen=True)
class ExportWritten:
    path: Path  # absolute
    # The default name was taken by a file tierdeck does not replace: that name.
    name_taken: Path | None = None

    def message(self) -> str:
        """One line for the user: where the file went, and why not where expected."""
        if self.name_taken is not None:
            return f"wrote {self.path} ({self.name_taken.name} exists and was left alone)"
        return f"wrote {self.path}"


# --------------------------------------------------------------------- entry points


def render_export(
    runs: Sequence[RunResult],
    fmt: ExportFormat,
    *,
    redact: bool = False,
    baseline: int = 0,
    known: KnownIdentifiers = NOTHING_KNOWN,
) -> str:
    """The export's text (module docstring); ExportRefused when it cannot be made."""
    if not runs:
        raise ExportRefused("nothing to export: no runs given")
    if redact:
        runs = redact_runs(runs, known)
    comparison = _comparison(runs, baseline) if len(runs) > 1 else None
    if fmt is ExportFormat.HTML:
        from .html import render_html

        return render_html(runs, comparison, redacted=redact)
    if fmt is ExportFormat.JSON:
        doc = _json(runs, comparison)
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    if fmt is ExportFormat.CSV:
        return _csv(runs, comparison)
    return _markdown(runs, comparison)


def write_export(
    runs: Sequence[RunResult],
    fmt: ExportFormat,
    output: Path | None = None,
    *,
    redact: bool = False,
    baseline: int = 0,
    known: KnownIdentifiers = NOTHING_KNOWN,
    folder: Path | None = None,
) -> ExportWritten:
    """Render and write the export: to ``output`` (replaced if it exists), or to the
    default name in ``folder`` (default: the current folder), never over a file there.
    Raises ExportRefused, or OSError as the file system does (read-only, full)."""
    text = render_export(runs, fmt, redact=redact, baseline=baseline, known=known)
    return write_text_export(text, default_name(runs, fmt, redact=redact), output, folder=folder)


def write_text_export(
    text: str, name: str, output: Path | None = None, *, folder: Path | None = None
) -> ExportWritten:
    """Write an export's ``text``: to ``output`` (replaced if it exists), or as ``name``
    in ``folder`` (default: the current folder), never over a file there."""
    if output is not None:
        path = output.absolute()
        _write(path, text)
        return ExportWritten(path)
    wanted = ((folder or Path.cwd()) / name).absolute()
    path = _claim_free_name(wanted)
    try:
        _write(path, text)
    except BaseException:
        path.unlink(missing_ok=True)  # the empty placeholder claimed above
        raise
    return ExportWritten(path, None if path == wanted else wanted)


def _write(path: Path, text: str) -> None:
    write_atomically(path, text)
    # write_atomically keeps a replaced file's mode; a file to share gets the
    # permissions any new file of the user's gets (umask), as a shell redirect would.
    mask = os.umask(0o022)
    os.umask(mask)
    os.chmod(path, 0o666 & ~mask)


def default_name(runs: Sequence[RunResult], fmt: ExportFormat, *, redact: bool) -> str:
    """``tierdeck-runs-3-7-redacted.html``: the ids in the order given."""
    stem = "tierdeck-run" if len(runs) == 1 else "tierdeck-runs"
    ids = "-".join(str(r.id) for r in runs)
    return f"{stem}-{ids}{'-redacted' if redact else ''}.{fmt.extension}"


def _claim_free_name(wanted: Path) -> Path:
    """Create ``wanted`` (or ``stem_2.ext``, ``stem_3.ext`` ...) empty and exclusively,
    so no other writer's file is replaced between the check and the rename."""
    for number in range(1, MAX_FREE_NAME_TRIES + 1):
        path = wanted if number == 1 else wanted.with_name(f"{wanted.stem}_{number}{wanted.suffix}")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            continue
        os.close(fd)
        return path
    raise ExportRefused(f"no free file name next to {wanted}: give --output")


def machine_identifiers(host: Host, inventory: Inventory | None = None) -> KnownIdentifiers:
    """What --redact should also remove wherever it appears: the host's name and, with
    an inventory at hand (the TUI), its disks' serials and WWNs."""
    disks = inventory.disks if inventory is not None else ()
    return KnownIdentifiers(
        hostnames=(host.hostname,),
        serials=tuple(d.serial for d in disks if d.serial),
        wwns=tuple(d.wwn for d in disks if d.wwn),
    )


def _comparison(runs: Sequence[RunResult], baseline: int) -> Comparison:
    from ...core.compare.comparison import CompareRefused

    try:
        return compare_runs(runs, baseline)
    except CompareRefused as exc:
        raise ExportRefused(exc.reason) from exc


# --------------------------------------------------------------------- JSON


def _json(runs: Sequence[RunResult], comparison: Comparison | None) -> dict[str, Any]:
    if comparison is None:
        return result_to_json(runs[0], include_fio=True)
    doc = render.to_json(comparison)
    for entry, run in zip(doc["runs"], runs, strict=True):
        entry["env"] = result_to_json(run)["env"]
    return doc


# --------------------------------------------------------------------- CSV

ENV_FIELDS = ("kernel", "fio_version", "fs_type", "mount_options", "mergerfs_version",
              "zfs_version", "disk_models", "target_kind", "target_path")  # fmt: skip
RUN_CSV_FIELDS = (
    "run_id", "run_name", "job", "rw", "bs", "direction",
    "bw_bytes", "iops", "lat_mean_ns", "lat_p99_ns",
)  # fmt: skip


def _env_fields(run: RunResult) -> dict[str, str]:
    env = run.env
    return {
        "kernel": env.kernel or "",
        "fio_version": env.fio_version or "",
        "fs_type": env.fs_type or run.target.fs_type or "",
        "mount_options": ",".join(env.mount_options),
        "mergerfs_version": env.mergerfs_version or "",
        "zfs_version": env.zfs_version or "",
        "disk_models": "; ".join(f"{d}: {m}" for d, m in env.disk_models.items()),
        "target_kind": str(run.target.kind),
        "target_path": run.target.path,
    }


def _csv(runs: Sequence[RunResult], comparison: Comparison | None) -> str:
    """One row per run, job and direction, raw units (bytes/s, ns), environment last."""
    out = io.StringIO()
    if comparison is not None:
        rows = list(csv.DictReader(io.StringIO(render.to_csv(comparison))))
        writer = csv.DictWriter(
            out, fieldnames=[*render.CSV_FIELDS, *ENV_FIELDS], lineterminator="\n"
        )
        writer.writeheader()
        by_id = {str(r.id): _env_fields(r) for r in runs}
        for row in rows:
            writer.writerow({**row, **by_id[row["run_id"]]})
        return out.getvalue()
    run = runs[0]
    writer = csv.DictWriter(out, fieldnames=[*RUN_CSV_FIELDS, *ENV_FIELDS], lineterminator="\n")
    writer.writeheader()
    kinds = {j.name: (j.rw or "", j.bs or "") for j in run.job_summaries}
    for job, direction, d in job_rows(run):
        rw, bs = kinds.get(job, ("", ""))
        writer.writerow(
            {
                "run_id": run.id,
                "run_name": run.name,
                "job": job,
                "rw": rw,
                "bs": bs,
                "direction": direction,
                "bw_bytes": d.bw_bytes,
                "iops": "" if d.iops is None else d.iops,
                "lat_mean_ns": "" if d.lat_mean_ns is None else d.lat_mean_ns,
                "lat_p99_ns": "" if d.lat_p99_ns is None else d.lat_p99_ns,
                **_env_fields(run),
            }
        )
    return out.getvalue()


# --------------------------------------------------------------------- Markdown


def _md_table(header: Sequence[str], rows: Sequence[Sequence[str]], right_from: int) -> list[str]:
    aligns = ["---" if i < right_from else "---:" for i in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(aligns) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def _md_fence(text: str) -> list[str]:
    """A code block no backtick run in ``text`` can close early."""
    fence = "`" * max(3, _longest_backticks(text) + 1)
    return [fence + "ini", text.rstrip("\n"), fence]


def _longest_backticks(text: str) -> int:
    longest = current = 0
    for char in text:
        current = current + 1 if char == "`" else 0
        longest = max(longest, current)
    return longest


def _markdown(runs: Sequence[RunResult], comparison: Comparison | None) -> str:
    lines = [f"# {render.md_escape(title(runs))}", ""]
    if comparison is not None:
        lines += [render.to_markdown(comparison).rstrip("\n"), ""]
    else:
        run = runs[0]
        lines += [
            f"- target: {render.md_escape(run.target.label)}",
            f"- status: {RunStatus(run.status).value}",
        ]
        if run.preset:
            lines.append(f"- preset: {render.md_escape(run.preset)}")
        if run.error:
            lines.append(f"- error: {render.md_escape(run.error)}")
        lines.append("")
        rows = [[render.md_escape(job), d, *figures(s)] for job, d, s in job_rows(run)]
        lines += [*_md_table(["job", "dir", *FIGURE_HEADERS], rows, 2), ""]
        lines += ["## Job options", "", *_md_fence(jobfile(run)), ""]
    lines += ["## Environment", ""]
    keys, values = environment_table(runs)
    header = ["", *(render.md_escape(render.run_label(r)) for r in runs)]
    rows = [
        [render.md_escape(k), *(render.md_escape(v) for v in vs)]
        for k, vs in zip(keys, values, strict=True)
    ]
    lines += _md_table(header, rows, len(header))
    warnings = [(r, w) for r in runs for w in r.warnings] if comparison is None else []
    if warnings:
        lines += ["", "## Warnings", ""]
        lines += [f"- {render.md_escape(w.text)}" for _, w in warnings]
    return "\n".join(lines) + "\n"
