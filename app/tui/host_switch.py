"""The host switcher: ``o`` on a dashboard lists this machine and the hosts of
hosts.toml (``tierdeck fleet add``); the one picked is connected in a worker (a password
or passphrase asked in the masked modal, kept in that link's memory only) and its
dashboard replaces the one shown (``TierdeckApp._switch_to``)."""

from __future__ import annotations

import socket
from collections.abc import Callable

from ...backends.host import Host, LiveHost

# The key of this machine among the choices: no name in hosts.toml holds a NUL.
THIS_MACHINE = "\0this-machine"
NO_HOSTS = "more machines: tierdeck fleet add NAME SSH (an ssh alias or user@host[:port])"


def host_choices() -> tuple[list[tuple[str, str]], str]:
    """(key, label) pairs, this machine first, then hosts.toml's in its order; and a
    note for the list: how to add hosts, or why hosts.toml could not be read."""
    from ..fleet.config import FleetConfigError, hosts_path, load_fleet

    choices = [(THIS_MACHINE, f"this machine ({socket.gethostname()})")]
    try:
        entries = load_fleet()
    except FleetConfigError as exc:
        return choices, f"{exc} (this machine only, until it is fixed)"
    choices += [(e.name, f"{e.name}  ({e.ssh})") for e in entries]
    return choices, NO_HOSTS if not entries else f"hosts from {hosts_path()}"


def open_choice(key: str, prompt: Callable[[str], str | None]) -> Host:
    """The machine picked, connected and logged in (blocks: call from a worker).
    ``TierdeckError`` (``HostUnreachable`` and its kinds) when it cannot be."""
    if key == THIS_MACHINE:
        return LiveHost()
    from ...backends.host.ssh import SshHost, SshTarget
    from ...backends.host.ssh.persist import idle_limit
    from ..fleet.config import load_fleet

    entry = next(e for e in load_fleet() if e.name == key)
    target = SshTarget.parse(entry.ssh)
    # a kept connection's keeper serves the dashboard's reads, as for tierdeck --host
    host = SshHost(target, prompt=prompt, keep_idle_s=idle_limit(target.host, entry.persist))
    try:
        host.facts  # noqa: B018 - log in now: a refusal is said before the dashboard goes
    except BaseException:
        host.close()
        raise
    return host
