"""``tierdeck mover``: empty a layout's cache branches into its slow tier,
and list past runs. The systemd service the layout writes runs ``mover run --layout
FILE``; its output goes to the journal, and a failed or stopped move exits 1."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import click

from ...core.units import counted, format_bytes
from ..mover.history import MoverHistory, MoverHistoryError
from ..mover.render_json import history_to_dict
from ..mover.render_text import duration_text
from .common import EXIT_FAILED, fail, host_option, once
from .mover_run import RunArgs, run_command
from .remote import run_on_host_itself


@click.group()
@host_option
@click.pass_context
def mover(ctx: click.Context) -> None:
    """Move files from a layout's cache branches to its slow tier.

    With --host (before the subcommand), the command runs on that machine's own
    tierdeck, over SSH, with its output here: the mover moves the host's files there,
    never one by one over the network. Paths are that machine's."""
    run_on_host_itself()


_RUN_HELP = """Move what the layout's mover policy selects from the cache branches to
the slow tier, then exit: 0 all moved (skipped files are not failures), 1 a move
stopped or failed (no space, read-only slow branch, cancelled, an error, or selected
files that fit on no slow branch), 2 refused (bad layout or options, another mover
running this layout, any error `layout check` reports, such as a pool as the source).

\b
What moves (the layout's [mover] table; the options override it):
  - age: files not used for min_age_days days. age_basis "atime" (last read)
    keeps what is still being watched on the cache; on a filesystem mounted
    noatime atime never changes after creation, so tierdeck says so, and
    age_basis "mtime" (last written) may suit it better;
  - fill: while a cache branch is fuller than fill_high_pct, its oldest files
    move, whatever their age, until it is down to fill_low_pct (the watermarks);
  - exclude: globs on the path relative to the branch, fnmatch style ("*"
    also matches "/"; a glob matching a folder excludes all below it).

\b
Each file is copied branch to branch (not through the pool) onto the slow branch
the slow pool's create policy picks, to a temporary name, made durable, renamed
into place and checked (size and mtime) before the cached copy is removed. Files
open in any process, or changed during the copy, stay and are reported. A crash
is finished or undone by the next run. --verify also compares a SHA-256 of each
copy read back from the disk with its source: every file is read twice, which
can halve the speed on disks that are the bottleneck.

The forecast printed on a terminal is a table of the first 20 files; elsewhere
(systemd's journal, a pipe) it is a summary: files and bytes in all, per reason and
per slow branch. --json lists every file.
"""


@click.command("run", help=_RUN_HELP)
@once("--layout", "layout_path", required=True, metavar="FILE.toml",
      type=click.Path(dir_okay=False, path_type=Path), help="The layout file to run.")  # fmt: skip
@once("--min-age-days", type=click.IntRange(min=0), metavar="N",
      help="Move files older than N days (overrides the layout's min_age_days).")  # fmt: skip
@click.option("--dry-run", is_flag=True, help="Print the forecast; move nothing.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object (docs/mover-json.md).")
@click.option("--json-lines", "json_lines", is_flag=True,
              help="One JSON object a line: the progress as files move, then the run "
              "(docs/mover-json.md; what the TUI of another machine reads).")  # fmt: skip
@click.option("--verify", is_flag=True, help="Also compare a SHA-256 of each copy with its source.")
def run_cmd(layout_path: Path, min_age_days: int | None, dry_run: bool, as_json: bool,
            json_lines: bool, verify: bool) -> None:  # fmt: skip
    run_command(RunArgs(layout_path, min_age_days, dry_run, as_json, verify, json_lines))


@click.command("history")
@once("--layout", "layout_path", metavar="FILE", type=click.Path(dir_okay=False, path_type=Path),
      help="Only the runs of this layout file.")  # fmt: skip
@once("--limit", type=click.IntRange(min=1), metavar="N", help="The newest N runs.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object (docs/mover-json.md).")
def history_cmd(layout_path: Path | None, limit: int | None, as_json: bool) -> None:
    """Past mover runs, newest first: moves, dry runs, stopped runs and refusals."""
    try:
        path = None if layout_path is None else str(layout_path.absolute())
        records = MoverHistory().list(path, limit)
    except MoverHistoryError as exc:
        fail(str(exc), EXIT_FAILED)
    if as_json:
        click.echo(json.dumps(history_to_dict(records), indent=2))
        return
    if not records:
        click.echo("no mover runs recorded")
        return
    for r in records:
        when = datetime.datetime.fromtimestamp(r.started).strftime("%Y-%m-%d %H:%M:%S")
        status = ("refused" if r.refused else f"stopped: {r.stopped}" if r.stopped
                  else "dry run" if r.dry_run else f"failed: {r.unplaced} unplaced" if r.failed
                  else "ok")  # fmt: skip
        click.echo(f"{when}  {r.layout_name:<12} {status:<18} {counted(r.files_moved, 'file'):>12} "
                   f"{format_bytes(r.bytes_moved):>7}  {len(r.skipped)} skipped  "
                   f"{duration_text(r.duration)}  {r.message}")  # fmt: skip


for _command in (run_cmd, history_cmd):
    mover.add_command(_command)
