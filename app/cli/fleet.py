"""``tierdeck fleet``: the hosts of hosts.toml, each one's state at a glance; ``fleet
add`` and ``fleet remove`` edit the file; ``fleet keepers`` lists (and stops) the kept
SSH connections."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

import click

from .common import EXIT_FAILED, EXIT_REFUSED, fail, once, output_width

if TYPE_CHECKING:
    from ..fleet.config import FleetHost


def _load() -> tuple[FleetHost, ...]:
    from ..fleet.config import FleetConfigError, load_fleet

    try:
        return load_fleet()
    except FleetConfigError as exc:
        fail(str(exc), EXIT_REFUSED)


def _save(hosts: tuple[FleetHost, ...]) -> None:
    from ..fleet.config import hosts_path, save_fleet

    try:
        save_fleet(hosts)
    except OSError as exc:
        fail(f"{hosts_path()}: {exc.strerror or exc}", EXIT_FAILED)


@click.group(invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Print docs/fleet-json.md's object.")
@once("--timeout", type=click.FloatRange(min=0.1), metavar="SECONDS",
      help="How long each host may take to answer (default 10).")  # fmt: skip
@click.pass_context
def fleet(ctx: click.Context, as_json: bool, timeout: float | None) -> None:
    """Show every host of hosts.toml: reachable, problems, pools, cache fill.

    The hosts are in hosts.toml of tierdeck's config folder (~/.config/tierdeck, or
    $TIERDECK_CONFIG_DIR), one [[host]] table each with name, ssh (an ssh config alias
    or user@host[:port]) and optional tags; `fleet add` and `fleet remove` edit it.
    Every host is asked at once over SSH, each within --timeout seconds: a host that is
    down or slow is shown with its error and never holds the others. A host whose
    connection is kept (persist in hosts.toml, or ssh's ControlPersist) is read through
    its keeper (`fleet keepers`), so the next round connects to no one.

    The cache column is the fullest cache branch against the mover's high watermark
    when tierdeck applied the pool's layout (">80": above it), else the fullest
    mergerfs pool's fill. The last bench column is that machine's newest ok run in this
    machine's history (`tierdeck history list --host NAME` lists them all).
    """
    from .common import refuse_host

    refuse_host("the fleet's list of hosts", "run tierdeck fleet without --host")
    if ctx.invoked_subcommand is not None:
        return
    from ..fleet.collect import DEFAULT_TIMEOUT, Fleet
    from ..fleet.render import fleet_dict, fleet_text

    entries = _load()
    wait = DEFAULT_TIMEOUT if timeout is None else timeout
    hosts = Fleet(entries, timeout=wait)
    try:
        statuses = hosts.collect()
    finally:
        hosts.close()
    if as_json:
        json.dump(fleet_dict(statuses, wait), sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif not entries:
        click.echo("No hosts yet: add one with `tierdeck fleet add NAME SSH`.")
    else:
        click.echo(fleet_text(statuses, output_width()))


@click.command("add")
@click.argument("name")
@click.argument("ssh")
@click.option(
    "--tag", "tags", multiple=True, metavar="TAG", help="A tag for the host (repeatable)."
)
def add(name: str, ssh: str, tags: tuple[str, ...]) -> None:
    """Add a host: NAME as tierdeck shows it, SSH an ssh config alias or user@host[:port]."""
    from ..fleet.config import FleetConfigError, FleetHost, add_host, hosts_path

    try:
        hosts = add_host(_load(), FleetHost(name, ssh, tags))
    except FleetConfigError as exc:
        fail(str(exc), EXIT_REFUSED)
    _save(hosts)
    click.echo(f"added {name} ({ssh}) to {hosts_path()}")


@click.command("remove")
@click.argument("name")
def remove(name: str) -> None:
    """Remove the host NAME from the fleet."""
    from ..fleet.config import FleetConfigError, hosts_path, remove_host

    try:
        hosts = remove_host(_load(), name)
    except FleetConfigError as exc:
        fail(str(exc), EXIT_REFUSED)
    _save(hosts)
    click.echo(f"removed {name} from {hosts_path()}")


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "no limit"
    if seconds < 120:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min" if seconds < 7200 else f"{seconds / 3600:.1f} h"


@click.command("keepers")
@click.argument("targets", nargs=-1, metavar="[SSH]...")
@click.option("--stop", is_flag=True, help="Close their connections and end them.")
@click.option("--json", "as_json", is_flag=True, help="Print them as JSON (tierdeck.keepers/1).")
def keepers(targets: tuple[str, ...], stop: bool, as_json: bool) -> None:
    """List the kept SSH connections of this user: one background process per host
    (pid, idle time and limit, requests served); --stop ends them (only those to the
    ssh targets named, if any). A keeper also ends when idle for its limit (hosts.toml's
    persist, or ssh's ControlPersist) or when its connection drops."""
    import time

    from ...backends.host.ssh.kept import keepers as live_keepers
    from ...backends.host.ssh.kept import stop_keeper

    found = [k for k in live_keepers() if not targets or k.target in targets]
    stopped = [k for k in found if stop and stop_keeper(k)]
    if as_json:
        rows = [{"target": k.target, "pid": k.pid, "idle_limit_s": k.idle_limit_s,
                 "idle_s": round(k.idle_s, 1), "started": k.started, "requests": k.requests,
                 "socket": k.socket, "stopped": k in stopped} for k in found]  # fmt: skip
        json.dump({"schema": "tierdeck.keepers/1", "keepers": rows}, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return
    if not found:
        click.echo("No kept SSH connections.")
        return
    for k in found:
        state = "stopped" if k in stopped else "stop failed" if stop else "kept"
        click.echo(f"{k.target}: {state}, pid {k.pid}, idle {_duration(k.idle_s)} of "
                   f"{_duration(k.idle_limit_s)}, up {_duration(time.time() - k.started)}, "
                   f"{k.requests} requests, {k.socket}")  # fmt: skip


fleet.add_command(add)
fleet.add_command(remove)
fleet.add_command(keepers)
