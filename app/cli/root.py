"""tierdeck's root command group: the TUI by default, and scriptable subcommands.

The group and the registration of its commands; each command lives in its own module
(or its group's package) and is imported only when it runs (common.py's
``DeferredCommand``). ``tierdeck --help`` itself is printed by launcher.py without
loading this module (root_help.py holds click's text, kept equal by a test)."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ... import __version__
from .common import (
    CommandGroup,
    DeferredCommand,
    host_options,
    make_host,
    quiet_on_broken_pipe,
    requested_host,
)

if TYPE_CHECKING:
    from ..fleet.collect import Fleet


class RootGroup(CommandGroup):
    """The one place where a reader that went away (``tierdeck ... | head``) is handled
    for every command: exit 141 without a word, as a writer killed by SIGPIPE. click
    itself turns EPIPE into a silent exit 1, indistinguishable from a failure, so it is
    caught before click sees it: while parsing (``--help`` output), while the command
    runs, and when the last buffered output is flushed."""

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        with quiet_on_broken_pipe():
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx: click.Context) -> Any:
        with quiet_on_broken_pipe():
            return super().invoke(ctx)

    def main(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().main(*args, **kwargs)
        finally:
            # Output up to the block size waits in Python's buffer until exit, after
            # every handler: flush it here, where a broken pipe can still end quietly.
            with quiet_on_broken_pipe(), contextlib.suppress(ValueError, AttributeError):
                sys.stdout.flush()  # ValueError: closed; AttributeError: no stdout at all


@click.group(cls=RootGroup, invoke_without_command=True)
@host_options
@click.version_option(__version__, prog_name="tierdeck")
@click.pass_context
def main(ctx: click.Context, demo: bool, recorded: Path | None) -> None:
    """tierdeck: see your NAS storage in one place.

    Without a subcommand, opens the dashboard (disks, ZFS/btrfs/md pools, mergerfs
    pools, problems) for this machine, or with --host for another one over SSH. Keys:
    ? for help, r to refresh, q to quit. With more than one host in hosts.toml
    (`tierdeck fleet --help`) and no --host, opens on the fleet of them instead: enter
    opens a host's dashboard, f comes back.

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
    if not demo and recorded is None and requested_host() is None:
        fleet = _configured_fleet()
        if fleet is not None:
            from ..tui.app import TierdeckApp

            TierdeckApp(None, fleet=fleet).run()
            return
    # the TUI's import (Textual) runs while a --host connection is made
    host = make_host(demo, recorded, meanwhile=_import_tui)
    from ..tui.app import TierdeckApp

    TierdeckApp(host, demo=demo).run()


def _import_tui() -> None:
    from ..tui import app  # noqa: F401 - imported now, used by the caller


def _configured_fleet() -> Fleet | None:
    """The fleet of hosts.toml when it names more than one host (the TUI then starts on
    the fleet screen), else None; a file that cannot be read is refused (exit 2)."""
    from ..fleet.config import FleetConfigError, hosts_path, load_fleet
    from .common import EXIT_REFUSED, fail

    if not hosts_path().exists():  # the usual case: one machine, nothing more to read
        return None
    try:
        entries = load_fleet()
    except FleetConfigError as exc:
        fail(f"{exc} (fix it, or move it away to open this machine's dashboard)", EXIT_REFUSED)
    if len(entries) < 2:
        return None
    from ..fleet.collect import Fleet

    return Fleet(entries)


for _command in (
    DeferredCommand(
        "bench",
        "tierdeck.app.cli.bench:bench",
        "Run fio benchmarks from presets or job files, with a saved history.",
    ),
    DeferredCommand(
        "check",
        "tierdeck.app.cli.health:check",
        "Check disks, pools, the cache fill and the mover: one line, exit 0 OK, 1 WARNING, "
        "2 CRITICAL, 3 UNKNOWN.",
    ),
    DeferredCommand(
        "compare",
        "tierdeck.app.cli.compare:compare",
        "Compare 2 to 8 stored runs side by side (ids from `tierdeck history list`).",
    ),
    DeferredCommand(
        "fleet",
        "tierdeck.app.cli.fleet:fleet",
        "Show every host of hosts.toml: reachable, problems, pools, cache fill.",
    ),
    DeferredCommand(
        "health",
        "tierdeck.app.cli.health:health",
        "Show every disk's SMART health and every pool's, each state with its reasons.",
    ),
    DeferredCommand("history", "tierdeck.app.cli.history:history", "Stored benchmark runs."),
    DeferredCommand(
        "inventory",
        "tierdeck.app.cli.inventory:inventory",
        "Print the storage inventory: disks, mounts, mergerfs, ZFS, btrfs, md, relations.",
    ),
    DeferredCommand(
        "lab",
        "tierdeck.app.cli.lab:lab",
        "A throwaway lab NAS on loop files (root only): btrfs raid1 cache, two throttled "
        '"HDDs" (ext4, xfs) and two mergerfs pools, all under one directory.',
    ),
    DeferredCommand(
        "layout",
        "tierdeck.app.cli.layout:layout",
        "Compose a cache/slow tier layout of mergerfs pools.",
    ),
    DeferredCommand(
        "mover",
        "tierdeck.app.cli.mover:mover",
        "Move files from a layout's cache branches to its slow tier.",
    ),
):
    main.add_command(_command)


if __name__ == "__main__":  # pragma: no cover
    main()
