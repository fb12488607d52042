"""``tierdeck mover``: empty a layout's cache branches into its slow tier,
and list past runs. The systemd service the layout writes runs ``mover run --layout
FILE``; its output goes to the journal, and a failed or stopped move exits 1."""

from __future__ import annotations

import contextlib
import datetime
import json
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import click

from ...backends.host import LiveHost
from ...core.errors import TierdeckError
from ...core.units import counted, format_bytes
from ..mover.history import MoverHistory, MoverHistoryError
from ..mover.progress import step_text
from ..mover.render_json import (
    history_to_dict,
    progress_to_dict,
    refused_to_dict,
    report_to_dict,
)
from ..mover.render_text import duration_text, forecast_lines, noatime_lines, result_lines
from ..mover.run import MoverOptions, MoverProgress, MoverRefused, run_mover
from .common import EXIT_FAILED, EXIT_REFUSED, fail, host_option, load_layout_or_exit, once
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


class _TtyProgress:
    """One line on stderr, rewritten about once a second."""

    def __init__(self) -> None:
        self.last = 0.0
        self.step: str | None = None

    def __call__(self, p: MoverProgress) -> None:
        now = time.monotonic()
        step = step_text(p.step)
        if (now - self.last < 1.0 and step == self.step
                and p.files_done + p.files_skipped < p.files_total):  # fmt: skip
            return
        self.last, self.step = now, step
        rate = f"{format_bytes(int(p.rate_bps))}/s" if p.rate_bps else "-"
        skipped = f" ({p.files_skipped} skipped)" if p.files_skipped else ""
        line = (f"{p.files_done}/{p.files_total} files{skipped}  {format_bytes(p.bytes_done)}/"
                f"{format_bytes(p.bytes_total)}  {rate}  "
                f"{step or 'eta ' + duration_text(p.eta_seconds)}")  # fmt: skip
        click.echo(f"\r\x1b[K{line}", err=True, nl=False)


def _json_line(document: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(document, separators=(",", ":")) + "\n")
    sys.stdout.flush()


class _JsonLinesProgress:
    """Each progress report as one JSON line, at most every ``every`` seconds (and the
    last). The reader is another machine over SSH: when it is gone (a broken pipe), no
    one watches the move any more, so it stops the clean way."""

    def __init__(self, cancel: threading.Event, every: float = 0.2) -> None:
        self.cancel = cancel
        self.every = every
        self.last = 0.0

    def __call__(self, p: MoverProgress) -> None:
        now = time.monotonic()
        if now - self.last < self.every and p.files_done + p.files_skipped < p.files_total:
            return
        self.last = now
        try:
            _json_line(progress_to_dict(p))
        except OSError:
            self.cancel.set()


@contextlib.contextmanager
def _cancel_on_signals(cancel: threading.Event) -> Iterator[None]:
    # systemd stops a unit with SIGTERM: the engine finishes or undoes the file at hand.
    def handler(signum: int, frame: FrameType | None) -> None:
        cancel.set()

    before = {sig: signal.signal(sig, handler) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for sig, old in before.items():
            signal.signal(sig, old)


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
    if as_json and json_lines:
        fail("--json and --json-lines: choose one", EXIT_REFUSED)
    layout = load_layout_or_exit(layout_path)  # exits 2 for a missing or bad file
    options = MoverOptions(min_age_days=min_age_days, dry_run=dry_run, verify=verify)
    cancel = threading.Event()
    tty = not (as_json or json_lines) and sys.stderr.isatty()
    table = sys.stdout.isatty()  # a summary for the journal or a pipe, not a line per file
    progress = (_JsonLinesProgress(cancel) if json_lines
                else _TtyProgress() if tty else lambda p: None)  # fmt: skip
    try:
        with _cancel_on_signals(cancel):
            report = run_mover(LiveHost(), layout, layout_path, options,
                               on_progress=progress, cancel=cancel)  # fmt: skip
    except MoverRefused as exc:
        if json_lines:
            _json_line(refused_to_dict(exc))
        fail(str(exc), EXIT_REFUSED)
    except TierdeckError as exc:
        fail(str(exc), EXIT_FAILED)
    if tty and not dry_run:
        click.echo("", err=True)
    if json_lines:
        _json_line(report_to_dict(report, str(layout_path.absolute())))
    elif as_json:
        click.echo(json.dumps(report_to_dict(report, str(layout_path.absolute())), indent=2))
    else:
        for line in noatime_lines(report):
            click.echo(line, err=True)
        lines = forecast_lines(report, tty=table) + ([] if dry_run else result_lines(report))
        click.echo("\n".join(lines))
    if report.stopped is not None:
        click.echo(f"tierdeck: mover stopped ({report.stopped}): {report.message}", err=True)
        sys.exit(EXIT_FAILED)
    if not report.ok:
        sys.exit(EXIT_FAILED)


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
