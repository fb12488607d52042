"""The command tree's deferred commands: what the lists of ``--help`` show without
importing a command equals what the command itself says, and listing imports none."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest
from tierdeck.app.cli import main
from tierdeck.app.cli.common import CommandGroup, DeferredCommand

# every module a DeferredCommand names, the groups' packages included
COMMAND_MODULES = (
    "tierdeck.app.cli.bench",
    "tierdeck.app.cli.bench.ladder",
    "tierdeck.app.cli.bench.presets",
    "tierdeck.app.cli.bench.run",
    "tierdeck.app.cli.bench.sweep",
    "tierdeck.app.cli.compare",
    "tierdeck.app.cli.fleet",
    "tierdeck.app.cli.health",
    "tierdeck.app.cli.history",
    "tierdeck.app.cli.history.export",
    "tierdeck.app.cli.history.importing",
    "tierdeck.app.cli.history.runs",
    "tierdeck.app.cli.inventory",
    "tierdeck.app.cli.lab",
    "tierdeck.app.cli.layout",
    "tierdeck.app.cli.mover",
)


def _deferred(group: click.Group, path: str) -> list[tuple[str, DeferredCommand]]:
    found = []
    for name, command in sorted(group.commands.items()):
        if isinstance(command, DeferredCommand):
            found.append((f"{path} {name}", command))
            command = command.resolve()
        if isinstance(command, click.Group):
            found += _deferred(command, f"{path} {name}")
    return found


DEFERRED = _deferred(main, "tierdeck")


def test_every_command_of_the_tree_is_deferred() -> None:
    names = {path for path, _ in DEFERRED}
    assert {"tierdeck bench", "tierdeck bench ladder", "tierdeck history import"} <= names
    assert {command.target.partition(":")[0] for _, command in DEFERRED} == set(COMMAND_MODULES)


@pytest.mark.parametrize(("path", "placeholder"), DEFERRED, ids=[p for p, _ in DEFERRED])
def test_the_listed_short_help_is_the_commands_own(path: str, placeholder: DeferredCommand) -> None:
    real = placeholder.resolve()
    assert real.name == placeholder.name
    # click shortens the help to what is left of the terminal's width after the names
    for limit in range(20, 200):
        assert placeholder.get_short_help_str(limit) == real.get_short_help_str(limit), limit


def test_a_group_resolves_its_deferred_commands_when_asked() -> None:
    group = CommandGroup("g")
    group.add_command(DeferredCommand("inventory", "tierdeck.app.cli.inventory:inventory", "x"))
    command = group.get_command(click.Context(group), "inventory")
    assert command is not None and not isinstance(command, DeferredCommand)
    with pytest.raises(TypeError, match="not a click command"):
        DeferredCommand("x", "tierdeck.app.cli.common:EXIT_FAILED", "x").resolve()


LISTING = """
import sys
from tierdeck.app.cli import main
for argv in (["--help"], ["bench", "--help"], ["history", "--help"]):
    try:
        main(argv, prog_name="tierdeck")
    except SystemExit as done:
        assert done.code == 0, done.code
print(" ".join(sorted(m for m in sys.modules if m.startswith("tierdeck.app.cli"))))
"""


def test_help_lists_commands_without_importing_them() -> None:
    done = subprocess.run(
        [sys.executable, "-c", LISTING], capture_output=True, text=True, check=True
    )
    loaded = set(done.stdout.split())
    assert "tierdeck.app.cli.common" in loaded  # the check sees the CLI's modules at all
    expected = {"tierdeck.app.cli.bench", "tierdeck.app.cli.history"}  # the groups asked for
    assert loaded & set(COMMAND_MODULES) == expected
