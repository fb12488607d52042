"""``tierdeck lab up/down/status``: the throwaway lab NAS (app/machine/lab.py)."""

from __future__ import annotations

import json
from pathlib import Path

import click


@click.group()
def lab() -> None:
    """A throwaway lab NAS on loop files (root only): btrfs raid1 cache, two throttled
    "HDDs" (ext4, xfs) and two mergerfs pools, all under one directory.

    With --host (before `lab`), that machine's own tierdeck builds it there."""
    from .remote import run_on_host_itself

    run_on_host_itself()


_LAB_DIR = click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where the lab lives (default /var/tmp/tierdeck-lab).",
)


@click.command("up")
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


@click.command("down")
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


@click.command("status")
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


for _command in (lab_up_cmd, lab_down_cmd, lab_status_cmd):
    lab.add_command(_command)
