"""``tierdeck history ...``: the stored runs (runs.py), their import (importing.py) and
their export (export.py), each module loaded only when its command runs."""

from __future__ import annotations

import click

from ..common import CommandGroup, DeferredCommand, refuse_host


@click.group(cls=CommandGroup)
def history() -> None:
    """Stored benchmark runs. `list` shows only successful runs unless --status says
    otherwise: failed and cancelled runs are kept, never mixed with good ones.

    The history is this machine's, and holds the runs of every machine benchmarked from
    here (over SSH too): `history list --host NAME` lists one machine's."""
    refuse_host(
        "the history",
        "tierdeck history list --host HOSTNAME (its own name for itself) lists the runs made there",
    )


_RUNS = "tierdeck.app.cli.history.runs"

for _command in (
    DeferredCommand("list", f"{_RUNS}:list_cmd", "List stored runs, newest first."),
    DeferredCommand(
        "show",
        f"{_RUNS}:show_cmd",
        "Show one run: target, environment, each job's results, disks and warnings.",
    ),
    DeferredCommand("rename", f"{_RUNS}:rename_cmd", "Give a run a new name."),
    DeferredCommand(
        "tag",
        f"{_RUNS}:tag_cmd",
        "Add tags to a run (or --remove them); prints the run's tags afterwards.",
    ),
    DeferredCommand(
        "delete",
        f"{_RUNS}:delete_cmd",
        "Delete a run and its series (asks first on a terminal).",
    ),
    DeferredCommand(
        "import",
        "tierdeck.app.cli.history.importing:import_cmd",
        "Import fio results saved before tierdeck, one run per FILE, or per fio run in it: "
        "a text of several fio runs one after the other (notes, a script's output) gives "
        'one run each, named "NAME (1 of 2)" and so on.',
    ),
    DeferredCommand(
        "export",
        "tierdeck.app.cli.history.export:export_cmd",
        "Export stored runs to share them: one run as itself, 2 to 8 runs as their comparison.",
    ),
):
    history.add_command(_command)
