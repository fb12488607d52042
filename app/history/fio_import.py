"""``tierdeck history import``: files of fio output into the history, one run per fio
run in each (a notes file of several fio runs gives several).

Each file is read whole (up to READ_LIMIT), parsed by ``backends.fio_import``, checked
against the history for the same report (``content_hash``: line ends and trailing
blanks do not count; runs imported before it are found by their bytes' sha256), and
stored. A file that is refused
(not fio output, cut short, already imported, unreadable) stores nothing and does not
stop the others.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ...backends.fio.imports import bytes_hash, content_hash, imported_runs, refuse_binary
from ...backends.localfiles import read_user_file
from ...core.bench_models import RunResult, RunStatus, WarningKind
from ...core.imports import ImportRefusalKind, ImportRefused
from .store import HistoryError, RunStore

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
    run: RunResult | None  # as stored (with its id), None when refused; the file's first
    refusal: ImportRefused | None = None
    more: tuple[RunResult, ...] = ()  # the file's further fio runs, as stored

    @property
    def run_id(self) -> int | None:
        return None if self.run is None else self.run.id

    @property
    def runs(self) -> tuple[RunResult, ...]:
        return () if self.run is None else (self.run, *self.more)

    @property
    def left_out(self) -> tuple[str, ...]:
        """The job options the import could not read, in words (each run keeps its own
        as warnings), for every run of the file, each said with its run when the file
        held several: for the CLI and the TUI to say at once."""
        several = len(self.runs) > 1
        return tuple(
            f"run {run.id}: {w.text}" if several else w.text
            for run in self.runs
            for w in run.warnings
            if w.kind is WarningKind.IMPORT_OPTIONS
        )

    @property
    def failed(self) -> tuple[str, ...]:
        """The runs fio reported as failed, in ``failure_text``'s words, each said with
        its run when the file held several ("run 2 failed: fio error 22, ..."): a failed
        run is left out of the default history list, so the CLI and the TUI say it at
        once, for each run of the file."""
        several = len(self.runs) > 1
        said = ((run, failure_text(run)) for run in self.runs)
        return tuple(f"run {run.id} {text}" if several else text for run, text in said if text)


def import_file(
    store: RunStore,
    path: Path,
    *,
    now: float,
    label: str | None = None,
    tags: Sequence[str] = (),
) -> RunResult:
    """Store what ``path`` holds, as ``import_runs`` does, and return its first run."""
    return import_runs(store, path, now=now, label=label, tags=tags)[0]


def import_runs(
    store: RunStore,
    path: Path,
    *,
    now: float,
    label: str | None = None,
    tags: Sequence[str] = (),
) -> tuple[RunResult, ...]:
    """Store each fio run ``path`` holds, in order; raise ImportRefused (nothing
    stored) otherwise."""
    try:
        data = read_user_file(path, READ_LIMIT, check_head=refuse_binary)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise ImportRefused(f"cannot read it: {reason}", kind=ImportRefusalKind.UNREADABLE) from exc
    existing = _imported_as(store, data)
    if existing is not None:
        raise ImportRefused(
            f"already imported as run {existing}",
            kind=ImportRefusalKind.DUPLICATE,
            existing_run=existing,
        )
    runs = imported_runs(data, path.name, now=now, name=label, tags=tags)
    stored: list[RunResult] = []
    try:
        for run in runs:
            stored.append(replace(run, id=store.save(run)))
    except HistoryError:
        for done in stored:  # all of the file's runs or none
            assert done.id is not None
            store.delete(done.id)
        # another import of the same bytes won the race (the hash is unique)
        existing = _imported_as(store, data)
        if existing is None:
            raise
        raise ImportRefused(
            f"already imported as run {existing}",
            kind=ImportRefusalKind.DUPLICATE,
            existing_run=existing,
        ) from None
    return tuple(stored)


def _imported_as(store: RunStore, data: bytes) -> int | None:
    found = store.find_import(content_hash(data))
    return found if found is not None else store.find_import(bytes_hash(data))


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
            first, *more = import_runs(store, path, now=now, label=name, tags=tags)
        except ImportRefused as exc:
            outcomes.append(ImportOutcome(path, None, exc))
            continue
        outcomes.append(ImportOutcome(path, first, more=tuple(more)))
    return outcomes
