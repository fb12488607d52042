"""``tierdeck history import FILE...``: old fio results into the history."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import click

from ..common import EXIT_FAILED, EXIT_REFUSED, fail, once, open_store

LIST_FAILED = "tierdeck history list --status failed"


@click.command("import")
@click.argument(
    "files", nargs=-1, required=True, type=click.Path(path_type=Path), metavar="FILE..."
)
@once("--label", metavar="TEXT", help="The run's name (default: the file's name).")
@click.option("--tag", "tags", multiple=True, metavar="TAG", help="Tag the runs (repeatable).")
def import_cmd(files: Sequence[Path], label: str | None, tags: Sequence[str]) -> None:
    """Import fio results saved before tierdeck, one run per FILE, or per fio run
    in it: a text of several fio runs one after the other (notes, a script's output)
    gives one run each, named "NAME (1 of 2)" and so on.

    Accepted: fio's JSON and json+ output (--output-format=json / json+) of fio 2.x,
    3.x and current releases, also with fio's own lines before it ("fio: terminating
    on signal 2") and with several documents (--status-interval: the last complete
    one is the result); and fio's default text output as pasted in notes and forums,
    of fio 3.x and 2.x ("read : io=..., bw=...KB/s"): per job the bandwidth line,
    slat/clat/lat, the percentiles, and the "Run status group" lines. A text
    holding only "Run status group" lines gives bandwidth and runtime, without IOPS
    or latency, and the run says so.

    Imported runs keep their figures, fio's JSON and the job options the file holds;
    they have no per-second series and no environment but the fio version, and are
    marked as imported in the history. An option the file does not state (a text
    with only fio's "rw=..., bs=..." line, no command line) is unknown, not fio's
    default. A job option tierdeck cannot read is left out, the job kept, and the
    run says which. A file that is not fio output (binary data is refused from its
    first block), or that was imported before (the same report, whatever its line
    ends), is refused and nothing of it is stored.

    Prints "imported FILE as run N (name)" per file, "imported FILE as runs N, M
    (name; name)" for a file of several fio runs, and on stderr each job option left
    out. A run fio itself reported as failed (a job's error, e.g. 22 for an O_DIRECT
    open the filesystem refused) is stored as failed, which `history list` leaves out
    by default: its file's line ends with "(failed: fio error 22, Invalid argument;
    listed by `tierdeck history list --status failed`)", or "(run M failed: ...)" for
    one of several. Exits 2 if any file was refused.
    """
    from ....core.errors import TierdeckError
    from ...history.fio_import import import_files

    store = open_store()
    try:
        outcomes = import_files(store, files, now=time.time(), label=label, tags=tags)
    except TierdeckError as exc:  # the history itself failed (not one file)
        fail(str(exc), EXIT_FAILED)
    for outcome in outcomes:
        if outcome.run is not None:
            failed = "; ".join(outcome.failed)
            why = f" ({failed}; listed by `{LIST_FAILED}`)" if failed else ""
            if len(outcome.runs) > 1:
                ids = ", ".join(str(run.id) for run in outcome.runs)
                names = "; ".join(run.name for run in outcome.runs)
                click.echo(f"imported {outcome.path} as runs {ids} ({names}){why}")
            else:
                click.echo(
                    f"imported {outcome.path} as run {outcome.run.id} ({outcome.run.name}){why}"
                )
            for note in outcome.left_out:
                click.echo(f"tierdeck: {outcome.path}: {note}", err=True)
        else:
            assert outcome.refusal is not None
            click.echo(
                f"tierdeck: {outcome.path}: not imported: {outcome.refusal.reason}", err=True
            )
    if any(o.run is None for o in outcomes):
        raise SystemExit(EXIT_REFUSED)
