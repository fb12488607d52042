"""``tierdeck inventory``: the storage inventory as text or JSON."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import click

from ...core.errors import TierdeckError
from .common import host_options, make_host


@click.command()
@host_options
@click.option("--json", "as_json", is_flag=True, help="Print the documented JSON shape.")
def inventory(demo: bool, recorded: Path | None, as_json: bool) -> None:
    """Print the storage inventory: disks, mounts, mergerfs, ZFS, btrfs, md, relations.

    The --json shape is stable and documented in docs/inventory-json.md
    (schema "tierdeck.inventory/1").
    """
    # imported while a --host connection is made (make_host's meanwhile)
    host = make_host(demo, recorded, meanwhile=_import_readers)
    from ...core.serialize import inventory_to_dict
    from ..machine.inventory import collect_inventory
    from ..machine.report import render_inventory_text

    try:
        inv = collect_inventory(host)
    except TierdeckError as exc:
        raise click.ClickException(str(exc)) from exc
    if as_json:
        json.dump(inventory_to_dict(inv), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        click.echo(render_inventory_text(inv))


def _import_readers() -> None:
    """The modules that collect, serialise and render an inventory."""
    for module in ("...core.serialize", "..machine.inventory", "..machine.report"):
        importlib.import_module(module, __package__)
