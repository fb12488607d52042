"""What every command line shares that needs no click: the exit statuses, a refusal
in one line, a reader that went away, and the layout file a command names.

Apart from common.py (which re-exports all of it) so that ``tierdeck mover run``, the
systemd timer's command, can run without importing click (mover_run.py)."""

from __future__ import annotations

import contextlib
import errno
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    from ...core.layout.model import Layout

# Exit statuses every command keeps (docs/bench-json.md documents them for bench run).
EXIT_FAILED = 1  # the run failed, or tierdeck could not do what was asked
EXIT_REFUSED = 2  # refused before starting, or bad options (click's usage errors too)
EXIT_SIGINT = 130  # 128 + SIGINT
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE: what a shell reports for a writer killed by it
EXIT_SIGTERM = 143  # 128 + SIGTERM


def echo(text: str, *, err: bool = False, nl: bool = True) -> None:
    """``click.echo`` of a str: written, then flushed (a line reaches the journal or
    the terminal at once)."""
    stream = sys.stderr if err else sys.stdout
    stream.write(f"{text}\n" if nl else text)
    stream.flush()


def fail(message: str, code: int) -> NoReturn:
    echo(f"tierdeck: {message}", err=True)
    sys.exit(code)


def exit_for_broken_pipe() -> NoReturn:
    # Python flushes stdout once more at exit; with the pipe gone that flush would raise
    # again and print "Exception ignored ...". Pointing fd 1 at /dev/null keeps it quiet.
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    sys.exit(EXIT_BROKEN_PIPE)


@contextlib.contextmanager
def quiet_on_broken_pipe() -> Iterator[None]:
    """Exit 141 without a word when the reader went away (``tierdeck ... | head``)."""
    try:
        yield
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        exit_for_broken_pipe()


def load_layout_or_exit(path: Path) -> Layout:
    """The layout file a command names; a bad or missing file is a refusal (exit 2, one
    line). Its imports wait for the call: ``tierdeck mover run`` (the timer's command)
    should not pay for the layout package at every start."""
    from ...core.layout.model import LayoutError
    from ..layout.files import load_layout

    try:
        return load_layout(path)
    except LayoutError as exc:
        fail(f"{path}: {exc}", EXIT_REFUSED)
    except OSError as exc:
        fail(f"{path}: {exc.strerror}", EXIT_REFUSED)
