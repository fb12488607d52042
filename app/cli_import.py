"""``tierdeck history import FILE...``: old fio results into the history."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import click

from .cli import EXIT_FAILED, EXIT_REFUSED, fail, once

LIST_FAILED = "tierdeck history list --status failed"


@click.command("import")
@click.argument(
    "files", nargs=-1, required=True, type=click.Path(path_type=Path), metavar="FILE..."
)
@once("--label", metavar="TEXT", help="The run's name (default: the file's name).")
@click.option("--tag", "tags", multiple=True, metavar="TAG", help="Tag the runs (repeatable).")
def import_cmd(files: Sequence[Path], label: str | None, tags: Sequence[str]) -> None:
    """Import fio results saved before tierdeck, one run per FILE.

    Accepted: fio's JSON and json+ output (--output-format=json / json+) of fio 2.x,
    3.x and current releases, also with fio's own lines before it ("fio: terminating
    on signal 2") and with several documents (--status-interval: the last complete
    one is the result); and fio's default text output as pasted in notes and forums:
    per job the IOPS/BW line, slat/clat/lat, the percentiles, and the "Run status
    group" lines. A text holding only "Run status group" lines gives bandwidth and
    runtime, without IOPS or latency, and the run says so.

    Imported runs keep their figures, fio's JSON and the job options the file holds;
    they have no per-second series and no environment but the fio version, and are
    marked as imported in the history. A file that is not fio output, or that was
    imported before (same content), is refused and nothing of it is stored.

    Prints "imported FILE as run N (name)" per file. A run fio itself reported as
    failed (a job's error, e.g. 22 for an O_DIRECT open the filesystem refused) is
    stored as failed, which `history list` leaves out by default: its line ends with
    "(failed: fio error 22, Invalid argument; listed by `tierdeck history list --status
    failed`)". Exits 2 if any file was refused.
    """
    from ..core.errors import TierdeckError
    from .cli_history import _store
    from .fio_import import failure_text, import_files

    store = _store()
    try:
        outcomes = import_files(store, files, now=time.time(), label=label, tags=tags)
    except TierdeckError as exc:  # the history itself failed (not one file)
        fail(str(exc), EXIT_FAILED)
    for outcome in outcomes:
        if outcome.run is not None:
            failed = failure_text(outcome.run)
            why = f" ({failed}; listed by `{LIST_FAILED}`)" if failed else ""
            click.echo(f"imported {outcome.path} as run {outcome.run.id} ({outcome.run.name}){why}")
        else:
            assert outcome.refusal is not None
            click.echo(
                f"tierdeck: {outcome.path}: not imported: {outcome.refusal.reason}", err=True
            )
    if any(o.run is None for o in outcomes):
        raise SystemExit(EXIT_REFUSED)
