"""``tierdeck mover run``'s work, and its command line read without click when it is
the plain one the systemd timer gives (``mover run --layout FILE`` and the command's
own flags): click and what it imports (~0.1 s of a cold start, a fifth of a small
move's whole run) are then never loaded. Any other command line (--help, --host, a
repeated or malformed option, anything click would answer or refuse) goes to click,
which calls the same ``run_command``. launcher.py decides; tests/unit/cli/
test_mover_run_plain.py runs both ways and compares."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from ...backends.host import LiveHost
from ...core.errors import TierdeckError
from ...core.units import format_bytes
from ..mover.progress import step_text
from ..mover.render_json import progress_to_dict, refused_to_dict, report_to_dict
from ..mover.render_text import duration_text, forecast_lines, noatime_lines, result_lines
from ..mover.run import MoverOptions, MoverProgress, MoverRefused, run_mover
from .exits import EXIT_FAILED, EXIT_REFUSED, echo, fail, load_layout_or_exit

FLAGS = {"--dry-run": "dry_run", "--json": "as_json", "--json-lines": "json_lines",
         "--verify": "verify"}  # fmt: skip
VALUES = ("--layout", "--min-age-days")


@dataclass(frozen=True)
class RunArgs:
    layout_path: Path
    min_age_days: int | None = None
    dry_run: bool = False
    as_json: bool = False
    verify: bool = False
    json_lines: bool = False


def plain_run_args(args: list[str]) -> RunArgs | None:
    """The options after ``mover run`` when click would read them to exactly these
    values: each known option once, ``--layout`` a path that is no folder, not empty
    nor option-like, ``--min-age-days`` decimal digits. Else None: click reads them
    (and answers --help, refuses what it refuses, runs --host elsewhere)."""
    values: dict[str, str] = {}
    flags: set[str] = set()
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        name, eq, value = arg.partition("=")
        if name in VALUES:
            if not eq:
                if not rest:
                    return None
                value = rest.pop(0)
            if name in values or not value or value.startswith("-"):
                return None
            values[name] = value
        elif arg in FLAGS and arg not in flags:
            flags.add(arg)
        else:
            return None
    layout, days = values.get("--layout"), values.get("--min-age-days", "0")
    if layout is None or os.path.isdir(layout) or not (days.isascii() and days.isdigit()):
        return None
    return RunArgs(Path(layout), None if "--min-age-days" not in values else int(days),
                   **{FLAGS[f]: True for f in flags})  # fmt: skip


class TtyProgress:
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
        echo(f"\r\x1b[K{line}", err=True, nl=False)


def _json_line(document: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(document, separators=(",", ":")) + "\n")
    sys.stdout.flush()


class JsonLinesProgress:
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


def run_command(args: RunArgs) -> None:
    """The mover run, its output and its exit status (sys.exit 1 or 2; returns on 0)."""
    if args.as_json and args.json_lines:
        fail("--json and --json-lines: choose one", EXIT_REFUSED)
    layout = load_layout_or_exit(args.layout_path)  # exits 2 for a missing or bad file
    options = MoverOptions(min_age_days=args.min_age_days, dry_run=args.dry_run,
                           verify=args.verify)  # fmt: skip
    cancel = threading.Event()
    tty = not (args.as_json or args.json_lines) and sys.stderr.isatty()
    table = sys.stdout.isatty()  # a summary for the journal or a pipe, not a line per file
    progress = (JsonLinesProgress(cancel) if args.json_lines
                else TtyProgress() if tty else lambda p: None)  # fmt: skip
    try:
        with _cancel_on_signals(cancel):
            report = run_mover(LiveHost(), layout, args.layout_path, options,
                               on_progress=progress, cancel=cancel)  # fmt: skip
    except MoverRefused as exc:
        if args.json_lines:
            _json_line(refused_to_dict(exc))
        fail(str(exc), EXIT_REFUSED)
    except TierdeckError as exc:
        fail(str(exc), EXIT_FAILED)
    if tty and not args.dry_run:
        echo("", err=True)
    if args.json_lines:
        _json_line(report_to_dict(report, str(args.layout_path.absolute())))
    elif args.as_json:
        echo(json.dumps(report_to_dict(report, str(args.layout_path.absolute())), indent=2))
    else:
        for line in noatime_lines(report):
            echo(line, err=True)
        lines = forecast_lines(report, tty=table) + ([] if args.dry_run else result_lines(report))
        echo("\n".join(lines))
    if report.stopped is not None:
        echo(f"tierdeck: mover stopped ({report.stopped}): {report.message}", err=True)
        sys.exit(EXIT_FAILED)
    if not report.ok:
        sys.exit(EXIT_FAILED)


def run_plain(args: RunArgs) -> None:
    """``run_command`` as click's root group would run it: a reader that went away
    exits 141 quietly, Ctrl-C before the run's own handler says "Aborted!" (exit 1),
    and stdout is flushed while a broken pipe can still end quietly."""
    from .exits import quiet_on_broken_pipe

    try:
        with quiet_on_broken_pipe():
            run_command(args)
    except KeyboardInterrupt:
        echo("", err=True)
        echo("Aborted!", err=True)
        sys.exit(EXIT_FAILED)
    finally:
        with quiet_on_broken_pipe(), contextlib.suppress(ValueError, AttributeError):
            sys.stdout.flush()
