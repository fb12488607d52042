"""What the commands of ``tierdeck`` share: exit statuses, refusals, the host and
``once`` options, the history store, cancelling on signals, a broken pipe, and the
deferred commands that keep ``tierdeck --help`` from importing every command's module.

Cheap to import on purpose: every command line loads it, so anything heavy (asyncio,
the history store, the host backends) is imported inside the function that needs it."""

from __future__ import annotations

import importlib
import signal
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

# What needs no click lives in exits.py (``mover run`` starts without click).
from .exits import EXIT_BROKEN_PIPE as EXIT_BROKEN_PIPE
from .exits import EXIT_FAILED as EXIT_FAILED
from .exits import EXIT_REFUSED as EXIT_REFUSED
from .exits import EXIT_SIGINT as EXIT_SIGINT
from .exits import EXIT_SIGTERM as EXIT_SIGTERM
from .exits import exit_for_broken_pipe as exit_for_broken_pipe
from .exits import fail as fail
from .exits import load_layout_or_exit as load_layout_or_exit
from .exits import quiet_on_broken_pipe as quiet_on_broken_pipe

if TYPE_CHECKING:
    import asyncio

    from ...backends.host import Host
    from ...backends.host.ssh import SshHost
    from ...core.bench_models import RunResult
    from ..history.store import HistoryStore

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")


PIPE_WIDTH = 1000  # in a pipe nothing is cut or wrapped: the table's own width


def print_renderable(renderable: object) -> None:
    """A rich table on stdout: coloured on a terminal; in a pipe plain text, no colour,
    nothing wrapped, no padding after the last column."""
    from rich.console import Console

    if sys.stdout.isatty():
        Console(file=sys.stdout, highlight=False).print(renderable)
        return
    console = Console(width=PIPE_WIDTH, no_color=True, highlight=False, color_system=None)
    with console.capture() as captured:
        console.print(renderable)
    click.echo("\n".join(line.rstrip() for line in captured.get().splitlines()))


def output_width() -> int | None:
    """Columns to fit in: the terminal's when stdout is one; None (no limit, nothing
    cut) in a pipe, where the full text is what grep and scripts want."""
    if not sys.stdout.isatty():
        return None
    import shutil  # here: --help and most commands never ask (its imports cost ~3 ms)

    return shutil.get_terminal_size().columns


# --------------------------------------------------------------------------- options

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


# --host: the machine over SSH (an ssh config alias or user@host[:port])
META_KEY = "tierdeck.host"

HOST_HELP = (
    "Work on another machine over SSH: an ssh config alias or user@host[:port]. "
    "~/.ssh/config, the ssh agent, keys and ~/.ssh/known_hosts apply as for ssh."
)


def _remember(ctx: click.Context, _param: click.Parameter, values: tuple[str, ...]) -> None:
    # given twice (before and after the command name, or by a script appending
    # options), the last would win silently: refused instead
    given = [*([ctx.meta[META_KEY]] if META_KEY in ctx.meta else []), *values]
    if len(given) > 1:
        raise click.UsageError(
            f"--host given {len(given)} times ({', '.join(given)}): give it once", ctx=ctx
        )
    if values:
        ctx.meta[META_KEY] = values[0]


def host_option(func: F) -> F:
    """``--host NAME`` on a command (the root group has it too)."""
    option = click.option("--host", "host_name", metavar="NAME", expose_value=False,
                          multiple=True, callback=_remember, help=HOST_HELP)  # fmt: skip
    return option(func)


def requested_host() -> str | None:
    ctx = click.get_current_context(silent=True)
    return None if ctx is None else ctx.meta.get(META_KEY)


def terminal_prompt(question: str) -> str | None:
    """A password or passphrase typed at the terminal, never echoed nor kept on disk;
    None without a terminal (a script): that way of logging in is then skipped."""
    if not sys.stdin.isatty():
        return None
    import getpass

    try:
        return getpass.getpass(question)
    except (EOFError, KeyboardInterrupt):
        return None


def keep_idle_s(name: str) -> float | None:
    """How long ``--host NAME``'s keeper may stay idle, None: no keeper. hosts.toml's
    ``persist`` for the host named or reached so, else ssh's ControlPersist for it."""
    from ...backends.host.ssh import BadTarget, SshTarget
    from ...backends.host.ssh.persist import idle_limit
    from ..fleet.config import FleetConfigError, load_fleet

    try:
        alias = SshTarget.parse(name).host
    except BadTarget:
        return None
    try:
        fleet = load_fleet()
    except FleetConfigError:
        fleet = ()
    entry = next((h for h in fleet if name in (h.name, h.ssh)), None)
    return idle_limit(alias, entry.persist if entry is not None else None)


def open_remote_host(name: str, meanwhile: Callable[[], object] | None = None) -> SshHost:
    """The host, connected (its key checked, logged in), or exit 1 saying why.
    ``meanwhile``: the command's own work done while it connects (see ``make_host``)."""
    from ...backends.host.ssh import BadTarget, SshHost
    from ...core.errors import HostUnreachable

    try:
        host = SshHost(name, prompt=terminal_prompt, keep_idle_s=keep_idle_s(name))
    except BadTarget as exc:
        fail(str(exc), EXIT_REFUSED)
    if meanwhile is not None:
        host.connect_soon()
        meanwhile()
    try:
        host.facts  # noqa: B018 - connect now: a refusal is said before any work starts
    except HostUnreachable as exc:
        host.close()
        fail(str(exc), EXIT_FAILED)
    return host


def refuse_host(what: str, instead: str) -> None:
    """For commands about this machine's own files (the history, the fleet's list):
    ``--host`` is refused with what to do instead, never silently ignored."""
    name = requested_host()
    if name is not None:
        raise click.UsageError(f"{what} is kept on this machine, not on {name}: {instead}")


def host_options(func: F) -> F:
    """``--demo``, ``--recorded DIR`` and ``--host NAME``: the host a command reads
    (see ``make_host``)."""
    for option in reversed(_HOST_OPTIONS):
        func = option(func)
    return host_option(func)


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


def make_host(
    demo: bool, recorded: Path | None, *, meanwhile: Callable[[], object] | None = None
) -> Host:
    """The host a command works on: the demo NAS, a recording, the machine ``--host``
    names (over SSH, connected), or this machine. ``meanwhile`` (a command's imports) is
    called before this returns, for every kind of host; for ``--host`` while the
    connection is made (the host's sshd starts the session and its login shell as this
    process imports), a refusal still said before any of the command's work."""
    from ...backends.host import LiveHost, RecordedHost

    remote = requested_host()
    if sum((demo, recorded is not None, remote is not None)) > 1:
        raise click.UsageError("--demo, --recorded and --host exclude each other")
    if remote is not None:
        return open_remote_host(remote, meanwhile)
    host: Host
    if demo:
        from ..machine.demo import load_demo_host

        host = load_demo_host()
    elif recorded is not None:
        host = RecordedHost(recorded)
    else:
        host = LiveHost()
    if meanwhile is not None:
        meanwhile()
    return host


def command_host() -> Host:
    """The live host a command changes things on: ``--host``'s, or this machine."""
    return make_host(False, None)


# --------------------------------------------------------------------------- history


def open_store() -> HistoryStore:
    """The user's history, or exit 1 saying why it cannot be opened."""
    from ..history.store import HistoryError, HistoryStore

    try:
        return HistoryStore()
    except HistoryError as exc:
        fail(str(exc), EXIT_FAILED)


def stored_run(
    store: HistoryStore, run_id: int, *, missing: int = EXIT_FAILED, whole: bool = True
) -> RunResult:
    """The run, or exit with ``missing`` (compare refuses unknown ids with 2).
    ``whole=False``: without fio's document and the disks' series (what compare reads)."""
    from ...core.errors import TierdeckError

    try:
        result = store.get(run_id, fio=whole, devices=whole)
    except TierdeckError as exc:
        fail(str(exc), EXIT_FAILED)
    if result is None:
        fail(f"no run #{run_id} in the history ({store.path})", missing)
    return result


# --------------------------------------------------------------------------- signals


async def until_cancelled(
    work: Callable[[asyncio.Event], Awaitable[T]], say: Callable[[str], None], cancelling: str
) -> tuple[T, int]:
    """``work(cancel)`` with SIGINT/SIGTERM setting ``cancel`` (said once, as
    ``cancelling``): its result, and the first signal received (0: none). Runs, sweeps
    and ladders stop cleanly this way: fio stopped, files removed, mounts gone."""
    import asyncio

    cancel = asyncio.Event()
    loop = asyncio.get_running_loop()
    received: list[int] = []

    def on_signal(signum: int) -> None:
        if not received:
            say(cancelling)
        received.append(signum)
        cancel.set()

    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, on_signal, signum)
    try:
        result = await work(cancel)
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)
    return result, received[0] if received else 0


def cancel_exit_code(signum: int) -> int:
    """The exit status of a run, sweep or ladder cancelled by ``signum``."""
    return EXIT_SIGTERM if signum == signal.SIGTERM else EXIT_SIGINT


# --------------------------------------------------------------------------- commands


class DeferredCommand(click.Command):
    """Stands in for the command ``target`` ("module:attribute") in its group until it
    runs: ``tierdeck inventory`` should not pay for importing the benchmark engine and
    the history store, nor ``tierdeck --help`` for importing every command.

    ``summary`` is the first sentence of the real command's help, which the group's
    command list shows (tests/unit/cli/test_deferred.py keeps the two equal)."""

    def __init__(self, name: str, target: str, summary: str) -> None:
        super().__init__(name, help=summary)
        self.target = target

    def resolve(self) -> click.Command:
        module_name, _, attribute = self.target.partition(":")
        command = getattr(importlib.import_module(module_name), attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{self.target} is not a click command")
        return command


class CommandGroup(click.Group):
    """A group whose ``DeferredCommand``\\ s load when they are run or asked for, while
    its own command list (``--help``) is drawn from their summaries alone."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if isinstance(command, DeferredCommand):
            return command.resolve()
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # click's own, but with the commands as registered: get_command would import them
        commands = [(name, self.commands[name]) for name in self.list_commands(ctx)]
        commands = [(name, command) for name, command in commands if not command.hidden]
        if not commands:
            return
        limit = formatter.width - 6 - max(len(name) for name, _ in commands)
        rows = [(name, command.get_short_help_str(limit)) for name, command in commands]
        with formatter.section("Commands"):
            formatter.write_dl(rows)
