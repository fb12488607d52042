"""How every command line of tierdeck starts (the ``tierdeck`` script, ``python -m
tierdeck``, ``python -m tierdeck.app.cli``): ``tierdeck --help`` is answered from
root_help.py, click's own text for it stored (tests/unit/cli/test_root_help.py keeps
the two equal), and everything else is handed to the root group (root.py).

Why: importing click costs as much as starting Python does, so the root help, the first
thing a user types, took 2.4x ``python -c pass``; it is printed here without click.
The stored text is used only where click would print exactly it: the sole argument
``--help``, a width of 80 columns or more (click's help is never wider), a program name
that keeps the usage on one line, and no shell-completion request. Anything else goes
to click. Imports nothing beyond what Python has loaded at start.

``tierdeck history list --json`` is answered the same way, from the lines the history
keeps (fast_list.py, with sqlite3 alone): click and the command's modules cost more
than the bound that listing is held to. fast_list.py hands click every case it is not
sure of.

``tierdeck --version`` is answered here too (what every SSH connection to a host with
tierdeck installed asks, backends/host/ssh).

``tierdeck mover run`` with a plain command line (the systemd timer's) runs without
click too: mover_run.py reads it, or hands it to click when click would read it any
differently. Such a run ends its process without Python's teardown."""

from __future__ import annotations

import os
import sys

from .root_help import BODY, USAGE_ARGS, WIDTH

TYPE_CHECKING = False  # typing's own flag, without importing typing (~2 ms) to read it
if TYPE_CHECKING:
    from .mover_run import RunArgs


def run() -> None:
    """The ``tierdeck`` command: exits with the command's status."""
    argv = sys.argv[1:]
    answer: str | bytes | None = root_help(argv) or version_line(argv)
    if answer is None and argv[:2] == ["history", "list"] and answers_without_click():
        from .fast_list import stored_list_json

        answer = stored_list_json(argv)
    if answer is None:
        if argv[:2] == ["mover", "run"] and answers_without_click():
            # The systemd timer's command: without click when its line is plain
            from .mover_run import plain_run_args

            args = plain_run_args(argv[2:])
            if args is not None:
                _run_plain_and_end(args)
        from .root import main

        main()
        return
    try:
        if isinstance(answer, bytes):  # a listing's megabytes of ASCII: straight to the bytes
            sys.stdout.buffer.write(answer)
            sys.stdout.buffer.flush()
        else:
            sys.stdout.write(answer)
            sys.stdout.flush()
    except BrokenPipeError:  # `tierdeck ... | head -1`: 141 without a word, as click's
        from .exits import exit_for_broken_pipe

        exit_for_broken_pipe()


def _run_plain_and_end(args: RunArgs) -> None:
    """The plain mover command, then the process's end with its status, without
    Python's teardown (every module and object freed one by one: ~10 ms of a timer's
    mover run, 2 % of a small move). Nothing is left to it: the run has closed its
    files and history connections, joined its threads and released its lock, and the
    output is flushed here. Only in the command's own process: ``run`` is launched,
    never called from another program."""
    from .mover_run import run_plain

    try:
        run_plain(args)
        status = 0
    except SystemExit as done:
        if not (done.code is None or isinstance(done.code, int)):
            raise  # a message to print: Python's own exit says it
        status = done.code or 0
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a reader gone: nothing more can reach it
            status = status or 1
    os._exit(status)


def root_help(argv: list[str]) -> str | None:
    """click's text for ``argv`` when it is the stored root help, else None."""
    if argv != ["--help"] or columns() < WIDTH + 2 or not answers_without_click():
        return None
    usage = f"Usage: {program_name()} {USAGE_ARGS}"
    if len(usage) > WIDTH:  # click would wrap it
        return None
    return f"{usage}\n{BODY}"


def version_line(argv: list[str]) -> str | None:
    """click's ``tierdeck --version`` line (root.py's version_option), for that sole
    argument. Every connection to a host reads it there (backends/host/ssh, the facts):
    with click's import it cost the host ~0.1 s of CPU per connection and fleet row."""
    if argv != ["--version"] or not answers_without_click():
        return None
    from ... import __version__

    return f"tierdeck, version {__version__}\n"


def answers_without_click() -> bool:
    """Whether the launcher may answer for click at all: there is a stdout to write to,
    and no shell-completion request (click's completion answers instead when its
    variable is set, click.core)."""
    if os.name == "nt" or sys.stdout is None:
        return False
    complete = program_name().replace("-", "_").replace(".", "_")
    return not os.environ.get(f"_{complete}_COMPLETE".upper())


def columns() -> int:
    """``shutil.get_terminal_size().columns``, which click's help asks, without importing
    shutil (it loads the compression modules: ~4 ms). COLUMNS first, then the terminal
    on stdout, else 80."""
    try:
        found = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        found = 0
    if found > 0:
        return found
    try:
        found = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        found = 0
    return found or 80


def program_name() -> str:
    """The name click shows in the usage line (click.utils._detect_program_name): the
    script's file name, or ``python -m PACKAGE`` when started with ``-m``."""
    path = sys.argv[0]
    package = getattr(sys.modules["__main__"], "__package__", None)
    if not package:
        return os.path.basename(path)
    name = os.path.splitext(os.path.basename(path))[0]
    module = package if name == "__main__" else f"{package}.{name}"
    return f"python -m {module.lstrip('.')}"
