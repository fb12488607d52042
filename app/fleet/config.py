"""The fleet: the hosts tierdeck watches, one ``[[host]]`` table each in
``hosts.toml`` of the user's config folder (``platformdirs.user_config_dir``,
``$TIERDECK_CONFIG_DIR`` overrides it)::

    [[host]]
    name = "nas"
    ssh = "nas"                  # an ssh config alias, or user@host[:port]
    tags = ["home", "media"]
    persist = "10m"              # optional: keep its connection between commands ("no")

Every way a file can be wrong is a ``FleetConfigError`` naming the line and what is
wrong there: a hand-edited file is read by people, and "KeyError" helps none of them.
Written with tomli-w, atomically (``backends/localfiles.write_atomically``).
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ENV_CONFIG_DIR = "TIERDECK_CONFIG_DIR"
HOSTS_FILE = "hosts.toml"
# A name is typed on the command line (`fleet remove NAME`) and shown in an 80-column
# table: a word, not a sentence.
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$")
_KEYS = frozenset({"name", "ssh", "tags", "persist"})


class FleetConfigError(ValueError):
    """``hosts.toml`` cannot be used; the message says where and why."""


@dataclass(frozen=True)
class FleetHost:
    name: str
    ssh: str  # as the user wrote it: an alias of ~/.ssh/config or user@host[:port]
    tags: tuple[str, ...] = ()
    # how long a kept connection may stay idle ("10m", "no"; backends/host/ssh/persist.py);
    # None: not said here (ssh's ControlPersist for it, else off)
    persist: str | None = None


def config_folder() -> Path:
    folder = os.environ.get(ENV_CONFIG_DIR)
    if folder:
        return Path(folder)
    from platformdirs import user_config_dir

    return Path(user_config_dir("tierdeck"))


def hosts_path() -> Path:
    return config_folder() / HOSTS_FILE


def check_name(name: str) -> str | None:
    """Why ``name`` cannot name a host, or None."""
    if not _NAME.match(name):
        return (f"name {name!r} is not a host name: letters, digits, '.', '_' and '-', "
                "starting with a letter or digit, at most 40")  # fmt: skip
    return None


def check_ssh(ssh: str) -> str | None:
    """Why ``ssh`` is not something ssh connects to, or None."""
    # Imported here, when a file is read: the ssh package loads asyncssh, which the
    # modules importing this one (the CLI's) must not pay for at import.
    from ...backends.host.ssh.target import BadTarget, SshTarget

    try:
        SshTarget.parse(ssh)
    except BadTarget as exc:
        return str(exc)
    return None


def _table_lines(text: str) -> list[int]:
    """The line (1-based) of each ``[[host]]`` header, in order: where the i-th table's
    error is shown."""
    return [n for n, line in enumerate(text.split("\n"), 1)
            if re.match(r"^\s*\[\[\s*host\s*\]\]", line)]  # fmt: skip


def parse_fleet(text: str, source: str = HOSTS_FILE) -> tuple[FleetHost, ...]:
    """The hosts of a ``hosts.toml`` text; ``source`` names it in errors."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise FleetConfigError(f"{source}: not TOML: {exc}") from None
    except RecursionError:  # tomllib nests a call per bracket
        raise FleetConfigError(f"{source}: not TOML: nested too deeply") from None
    unknown = sorted(set(data) - {"host"})
    if unknown:
        raise FleetConfigError(
            f"{source}: unknown key {unknown[0]!r}: the file holds [[host]] tables only"
        )
    tables = data.get("host", [])
    if not isinstance(tables, list):
        raise FleetConfigError(f"{source}: 'host' must be [[host]] tables, one per host")
    lines = _table_lines(text)
    hosts: list[FleetHost] = []
    for index, table in enumerate(tables):
        where = f"{source} line {lines[index]}" if index < len(lines) else source
        host = _host(table, f"{where} (host #{index + 1})")
        if any(h.name == host.name for h in hosts):
            raise FleetConfigError(f"{where}: a second host named {host.name!r}")
        hosts.append(host)
    return tuple(hosts)


def _host(table: Any, where: str) -> FleetHost:
    if not isinstance(table, dict):
        raise FleetConfigError(f"{where}: a host is a table with name and ssh")
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise FleetConfigError(f"{where}: unknown key {unknown[0]!r} (name, ssh, tags, persist)")
    for key in ("name", "ssh"):
        if key not in table:
            raise FleetConfigError(f"{where}: no {key!r}")
        if not isinstance(table[key], str):
            raise FleetConfigError(f"{where}: {key!r} must be a string")
    tags = table.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise FleetConfigError(f"{where}: 'tags' must be a list of strings")
    why = check_name(table["name"]) or check_ssh(table["ssh"])
    if why:
        raise FleetConfigError(f"{where}: {why}")
    persist = table.get("persist")
    if persist is not None:
        from ...backends.host.ssh.persist import BadPersist, parse_persist

        if not isinstance(persist, str):
            raise FleetConfigError(f'{where}: \'persist\' must be a string ("10m", "no")')
        try:
            parse_persist(persist)
        except BadPersist as exc:
            raise FleetConfigError(f"{where}: {exc}") from None
    return FleetHost(table["name"], table["ssh"], tuple(tags), persist)


def load_fleet(path: Path | None = None) -> tuple[FleetHost, ...]:
    """The configured hosts; none when the file does not exist."""
    path = path or hosts_path()
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return ()
    except OSError as exc:
        raise FleetConfigError(f"{path}: {exc.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FleetConfigError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    return parse_fleet(text, str(path))


def fleet_toml(hosts: tuple[FleetHost, ...]) -> str:
    import tomli_w

    tables = []
    for host in hosts:
        table: dict[str, Any] = {"name": host.name, "ssh": host.ssh}
        if host.tags:
            table["tags"] = list(host.tags)
        if host.persist is not None:
            table["persist"] = host.persist
        tables.append(table)
    head = "# The hosts of `tierdeck fleet`: a [[host]] table each (name, ssh, tags).\n\n"
    return head + tomli_w.dumps({"host": tables})


def save_fleet(hosts: tuple[FleetHost, ...], path: Path | None = None) -> None:
    from ...backends.localfiles import write_atomically

    path = path or hosts_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, fleet_toml(hosts))


def add_host(hosts: tuple[FleetHost, ...], host: FleetHost) -> tuple[FleetHost, ...]:
    """``hosts`` and ``host``, refused (FleetConfigError) for a duplicate name or a bad
    name or target."""
    why = check_name(host.name) or check_ssh(host.ssh)
    if why:
        raise FleetConfigError(why)
    if any(h.name == host.name for h in hosts):
        raise FleetConfigError(f"a host named {host.name!r} is already in the fleet")
    return (*hosts, host)


def remove_host(hosts: tuple[FleetHost, ...], name: str) -> tuple[FleetHost, ...]:
    if not any(h.name == name for h in hosts):
        raise FleetConfigError(f"no host named {name!r} in the fleet")
    return tuple(h for h in hosts if h.name != name)
