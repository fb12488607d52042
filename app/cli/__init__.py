"""tierdeck's command line: the TUI by default, and scriptable subcommands."""

from __future__ import annotations

import contextlib
import errno
import importlib
import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click

from ... import __version__
from ...backends.host import Host, LiveHost, RecordedHost
from ...core.errors import TierdeckError

# Exit statuses every command keeps (docs/bench-json.md documents them for bench run).
EXIT_FAILED = 1  # the run failed, or tierdeck could not do what was asked
EXIT_REFUSED = 2  # refused before starting, or bad options (click's usage errors too)
EXIT_SIGINT = 130  # 128 + SIGINT
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE: what a shell reports for a writer killed by it
EXIT_SIGTERM = 143  # 128 + SIGTERM


def fail(message: str, code: int) -> NoReturn:
    click.echo(f"tierdeck: {message}", err=True)
    sys.exit(code)


_HOST_OPTIONS = [
    click.option(
        "--demo",
        is_flag=True,
        help="Show the demo NAS (from a real home NAS's notes) instead of this machine.",
    ),
    click.option(
        "--recorded",
        type=click.Path(exists=True, file_okay=False, path_type=Path),
        help="Read a recorded host folder (host.json + root/) instead of this machine.",
    ),
]


F = TypeVar("F", bound=Callable[..., Any])


def _host_options(func: F) -> F:
    for option in reversed(_HOST_OPTIONS):
        func = option(func)
    return func


def once(*decls: str, **attrs: Any) -> Callable[[F], F]:
    """``click.option`` for an option that takes a value and may be given only once.

    click keeps the last of repeated options silently, so ``--preset a --preset b``
    would run b without a word; a script that builds its command line by appending
    options would never notice. The option is collected as ``multiple`` and refused
    when it came more than once. No ``default`` (the value is None when absent)."""
    if "default" in attrs or attrs.get("multiple") or attrs.get("is_flag"):
        raise TypeError("once() is for single-value options without a default")

    def only_one(ctx: click.Context, param: click.Parameter, values: tuple[Any, ...]) -> Any:
        if len(values) > 1:
            name = "/".join(param.opts)
            given = ", ".join(" ".join(map(str, v)) if isinstance(v, tuple) else str(v)
                              for v in values)  # fmt: skip
            times = "twice" if len(values) == 2 else f"{len(values)} times"
            raise click.UsageError(f"{name} given {times} ({given}): give it once", ctx=ctx)
        return values[0] if values else None

    return click.option(*decls, multiple=True, callback=only_one, **attrs)


def make_host(demo: bool, recorded: Path | None) -> Host:
    if demo and recorded:
        raise click.UsageError("--demo and --recorded exclude each other")
    if demo:
        from ..machine.demo import load_demo_host

        return load_demo_host()
    if recorded is not None:
        return RecordedHost(recorded)
    return LiveHost()


def _exit_for_broken_pipe() -> NoReturn:
    # Python flushes stdout once more at exit; with the pipe gone that flush would raise
    # again and print "Exception ignored ...". Pointing fd 1 at /dev/null keeps it quiet.
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    sys.exit(EXIT_BROKEN_PIPE)


@contextlib.contextmanager
def _quiet_on_broken_pipe() -> Iterator[None]:
    try:
        yield
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        _exit_for_broken_pipe()


class LazyGroup(click.Group):
    """Subcommands whose module is imported only when that command runs (click's
    "lazily loading subcommands" recipe): `tierdeck inventory` should not pay for
    importing the benchmark engine and the history store.

    Also the one place where a reader that went away (``tierdeck ... | head``) is
    handled for every command: exit 141 without a word, as a writer killed by SIGPIPE.
    click itself turns EPIPE into a silent exit 1, indistinguishable from a failure, so
    it is caught before click sees it: while parsing (``--help`` output), while the
    command runs, and when the last buffered output is flushed."""

    LAZY = {
        "bench": "tierdeck.app.cli.bench.run:bench",
        "compare": "tierdeck.app.cli.compare:compare",
        "history": "tierdeck.app.cli.history.runs:history",
        "layout": "tierdeck.app.cli.layout:layout",
        "mover": "tierdeck.app.cli.mover:mover",
    }

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        with _quiet_on_broken_pipe():
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx: click.Context) -> Any:
        with _quiet_on_broken_pipe():
            return super().invoke(ctx)

    def main(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().main(*args, **kwargs)
        finally:
            # Output up to the block size waits in Python's buffer until exit, after
            # every handler: flush it here, where a broken pipe can still end quietly.
            with _quiet_on_broken_pipe(), contextlib.suppress(ValueError, AttributeError):
                sys.stdout.flush()  # ValueError: closed; AttributeError: no stdout at all

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *self.LAZY])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.LAZY:
            module_name, _, attribute = self.LAZY[cmd_name].partition(":")
            command: click.Command = getattr(importlib.import_module(module_name), attribute)
            return command
        return super().get_command(ctx, cmd_name)


@click.group(cls=LazyGroup, invoke_without_command=True)
@_host_options
@click.version_option(__version__, prog_name="tierdeck")
@click.pass_context
def main(ctx: click.Context, demo: bool, recorded: Path | None) -> None:
    """tierdeck: see your NAS storage in one place.

    Without a subcommand, opens the dashboard (disks, ZFS/btrfs/md pools, mergerfs
    pools, problems) for this machine. Keys: ? for help, r to refresh, q to quit.

    Every command exits 141 (128 + SIGPIPE, as the shell reports for a writer killed by
    SIGPIPE) without a message when its output is closed early, e.g. by `| head`.
    Usage errors exit 2. `tierdeck bench run --help` lists that command's statuses.

    With --demo, the history is the demo's own (the fio results in the demo NAS's
    notes, kept in the cache folder), for the dashboard and for `tierdeck --demo history ...` alike; the user's
    history is not opened.
    """
    if demo:
        from ..history.demo import use_demo_history

        use_demo_history()
    if ctx.invoked_subcommand is not None:
        return
    from ..tui.app import TierdeckApp

    host = make_host(demo, recorded)
    TierdeckApp(host, demo=demo).run()


@main.command()
@_host_options
@click.option("--json", "as_json", is_flag=True, help="Print the documented JSON shape.")
def inventory(demo: bool, recorded: Path | None, as_json: bool) -> None:
    """Print the storage inventory: disks, mounts, mergerfs, ZFS, btrfs, md, relations.

    The --json shape is stable and documented in docs/inventory-json.md
    (schema "tierdeck.inventory/1").
    """
    from ...core.serialize import inventory_to_dict
    from ..machine.inventory import collect_inventory
    from ..machine.report import render_inventory_text

    try:
        inv = collect_inventory(make_host(demo, recorded))
    except TierdeckError as exc:
        raise click.ClickException(str(exc)) from exc
    if as_json:
        json.dump(inventory_to_dict(inv), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        click.echo(render_inventory_text(inv))


@main.group()
def lab() -> None:
    """A throwaway lab NAS on loop files (root only): btrfs raid1 cache, two throttled
    "HDDs" (ext4, xfs) and two mergerfs pools, all under one directory."""


_LAB_DIR = click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where the lab lives (default /var/tmp/tierdeck-lab).",
)


@lab.command("up")
@_LAB_DIR
@click.option("--no-throttle", is_flag=True, help="Do not slow the HDD loops down.")
def lab_up_cmd(directory: Path | None, no_throttle: bool) -> None:
    """Build the lab NAS (undone again if any step fails)."""
    from ..machine.lab import DEFAULT_LAB_DIR, HddThrottle, LabError, lab_up

    try:
        state = lab_up(
            directory or DEFAULT_LAB_DIR,
            throttle=None if no_throttle else HddThrottle(),
            progress=lambda msg: click.echo(f"  {msg}", err=True),
        )
    except LabError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"lab NAS up in {state.directory}")
    for point in state.mounts:
        click.echo(f"  {point}")
    click.echo("try: tierdeck inventory   or   tierdeck")


@lab.command("down")
@_LAB_DIR
def lab_down_cmd(directory: Path | None) -> None:
    """Remove the lab NAS: unmount, detach loops, delete its images (even after a crash)."""
    from ..machine.lab import DEFAULT_LAB_DIR, LabError, lab_down

    try:
        lab_down(
            directory or DEFAULT_LAB_DIR, progress=lambda msg: click.echo(f"  {msg}", err=True)
        )
    except LabError as exc:
        raise click.ClickException(str(exc)) from exc


@lab.command("status")
@_LAB_DIR
@click.option("--json", "as_json", is_flag=True, help="Print it as JSON (null: no lab NAS).")
def lab_status_cmd(directory: Path | None, as_json: bool) -> None:
    """Show what the lab NAS has (from its lab.json): loop devices, mounts, throttles."""
    from ..machine.lab import DEFAULT_LAB_DIR, lab_status, lab_status_dict, lab_status_text

    state = lab_status(directory or DEFAULT_LAB_DIR)
    if as_json:
        click.echo(json.dumps(None if state is None else lab_status_dict(state), indent=2))
    elif state is None:
        click.echo("no lab NAS")
    else:
        click.echo(lab_status_text(state))


if __name__ == "__main__":  # pragma: no cover
    main()
