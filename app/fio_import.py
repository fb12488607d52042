"""``tierdeck history import``: files of fio output into the history, one run each.

Each file is read whole (up to READ_LIMIT), parsed by ``backends.fio_import``, checked
against the history for the same bytes (sha256), and stored. A file that is refused
(not fio output, cut short, already imported, unreadable) stores nothing and does not
stop the others.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ..backends.fio_import import content_hash, imported_run
from ..backends.localfiles import read_user_file
from ..core.bench_models import RunResult, RunStatus
from ..core.imports import ImportRefusalKind, ImportRefused
from .history import HistoryError, RunStore

# fio's json+ with --status-interval=1 prints ~10 KiB per job per second: an hour of
# four jobs is ~150 MiB. Beyond this a file is not something fio printed.
READ_LIMIT = 256 * 2**20


def failure_text(run: RunResult) -> str | None:
    """ "failed: fio error 22, Invalid argument" for a run fio reported as failed (the
    jobs' errnos, from the stored summaries), None for any other: a failed run is left
    out of the default history list, so its import must say so."""
    if run.status is not RunStatus.FAILED:
        return None
    errnos = sorted({job.error for job in run.job_summaries if job.error})
    return "failed: " + (
        ", ".join(f"fio error {e}, {os.strerror(e)}" for e in errnos) or "fio error"
    )


@dataclass(frozen=True)
class ImportOutcome:
    path: Path
    run: RunResult | None  # as stored (with its id), None when refused
    refusal: ImportRefused | None = None

    @property
    def run_id(self) -> int | None:
        return None if self.run is None else self.run.id


def import_file(
    store: RunStore,
    path: Path,
    *,
    now: float,
    label: str | None = None,
    tags: Sequence[str] = (),
) -> RunResult:
    """Store the run ``path`` holds; raise ImportRefused (nothing stored) otherwise."""
    try:
        data = read_user_file(path, READ_LIMIT)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise ImportRefused(f"cannot read it: {reason}", kind=ImportRefusalKind.UNREADABLE) from exc
    existing = store.find_import(content_hash(data))
    if existing is not None:
        raise ImportRefused(
            f"already imported as run {existing}",
            kind=ImportRefusalKind.DUPLICATE,
            existing_run=existing,
        )
    run = imported_run(data, path.name, now=now, name=label, tags=tags)
    try:
        run_id = store.save(run)
    except HistoryError:
        # another import of the same bytes won the race (the hash is unique)
        existing = store.find_import(content_hash(data))
        if existing is None:
            raise
        raise ImportRefused(
            f"already imported as run {existing}",
            kind=ImportRefusalKind.DUPLICATE,
            existing_run=existing,
        ) from None
    return replace(run, id=run_id)


def import_files(
    store: RunStore,
    paths: Sequence[Path],
    *,
    now: float,
    label: str | None = None,
    tags: Sequence[str] = (),
) -> list[ImportOutcome]:
    """Each file in turn; a refusal is an outcome, not an exception. With several
    files a label names them "label (file name)"."""
    outcomes = []
    for path in paths:
        name = label
        if label and len(paths) > 1:
            name = f"{label} ({os.path.basename(path)})"
        try:
            run = import_file(store, path, now=now, label=name, tags=tags)
        except ImportRefused as exc:
            outcomes.append(ImportOutcome(path, None, exc))
            continue
        outcomes.append(ImportOutcome(path, run))
    return outcomes
