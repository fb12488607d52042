"""``tierdeck history export ID...``: stored runs as a file to share (app/export/formats.py)."""

from __future__ import annotations

from pathlib import Path

import click

from ..common import EXIT_FAILED, EXIT_REFUSED, fail, once, open_store, stored_run

FORMATS = ("markdown", "csv", "json", "html")
# --output's extension names the format when --format is not given
BY_EXTENSION = {".md": "markdown", ".markdown": "markdown", ".csv": "csv", ".json": "json",
                ".html": "html", ".htm": "html"}  # fmt: skip


def _format(fmt: str | None, output: str | None) -> str:
    if fmt is not None:
        return fmt
    if output not in (None, "-"):
        return BY_EXTENSION.get(Path(output).suffix.lower(), "markdown")
    return "markdown"


@click.command("export")
@click.argument("run_ids", nargs=-1, required=True, type=int, metavar="ID...")
@once(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    help="markdown, csv, json or html (default: from --output's extension, else markdown).",
)
@once(
    "-o",
    "--output",
    metavar="FILE",
    help="Write here (replacing it); '-' for stdout. "
    "Default: tierdeck-run(s)-<ids>.<ext> in this folder, never over an existing file.",
)
@click.option(
    "--redact",
    is_flag=True,
    help="Replace serials, WWNs, UUIDs, hostnames and home directories' user names.",
)
def export_cmd(run_ids: tuple[int, ...], fmt: str | None, output: str | None, redact: bool) -> None:
    """Export stored runs to share them: one run as itself, 2 to 8 runs as their comparison.

    One run: its results per job and direction (bandwidth, IOPS, mean and p99
    latency), its job options (as a fio job file) and its environment. Several runs:
    the comparison of `tierdeck compare` (against the first ID), what differs between
    them, and each run's environment.

    Formats: markdown (tables to paste on a forum); csv (one row per run, job and
    direction, in bytes/s and ns, the environment in columns); json (one run:
    tierdeck.run/1 with fio's own JSON; several: tierdeck.compare/1 with each run's
    "env"); html (one self-contained file, no network needed to open it: the tables,
    the comparability panel, the environment and charts of the per-second series).

    --redact replaces serials, WWNs, UUIDs, hostnames (this machine's, and those in
    fio's output) and the user names of home directories (/home/NAME, /Users/NAME)
    everywhere, with numbered names so that runs on the same disk still match:
    REDACTED-SERIAL-1, REDACTED-HOST-1, REDACTED-USER-1 ...

    Prints where the file went. Without --output the file is new: when the default
    name exists, the next free one (_2, _3 ...) is taken and the message says so.
    Exits 2 for unknown ids, runs that do not compare (more than 8, failed or
    cancelled runs among several, an id twice).
    """
    from ....backends.host import LiveHost
    from ....core.errors import TierdeckError
    from ....core.redact import NOTHING_KNOWN
    from ...export.formats import (
        ExportFormat,
        machine_identifiers,
        render_export,
        write_export,
    )
    from ...export.parts import ExportRefused

    store = open_store()
    runs = [stored_run(store, run_id, missing=EXIT_REFUSED) for run_id in run_ids]
    export_format = ExportFormat(_format(fmt, output))
    known = machine_identifiers(LiveHost()) if redact else NOTHING_KNOWN
    try:
        if output == "-":
            text = render_export(runs, export_format, redact=redact, known=known)
        else:
            target = Path(output) if output else None
            written = write_export(runs, export_format, target, redact=redact, known=known)
            text = written.message() + "\n"
    except ExportRefused as exc:
        fail(exc.reason, EXIT_REFUSED)
    except (OSError, TierdeckError) as exc:
        fail(f"cannot write the export: {exc}", EXIT_FAILED)
    # outside the handlers above: a reader that went away is the CLI's business (141)
    click.echo(text, nl=False)
