"""Whether a host's SSH connection is kept between commands (a keeper, ``keeper.py``),
for how long it may stay idle, and where keepers listen.

The setting is, first found: ``persist`` of the host's table in hosts.toml (``"10m"``,
``"no"``), then ``ControlPersist`` of ``~/.ssh/config`` for that alias (what an
OpenSSH user already set for ``ssh`` itself), else off (README "Several machines" says
why). Read without asyncssh: a command that uses a keeper never imports it.

Keepers listen on unix sockets in a folder only the user can enter (0700, theirs),
under ``$XDG_RUNTIME_DIR`` (a tmpfs that ends with the user's login) or else
tierdeck's cache folder. A socket's name is a hash of the target, the user's HOME and
the bytes of ~/.ssh/config: another config or HOME reaches another keeper, never one
connected where the config no longer points.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import stat
from pathlib import Path

from .ssh_config import ssh_config_value

DEFAULT_IDLE_S = 600.0  # "yes" without a time: ControlPersist's usual 10 minutes
OFF_WORDS = frozenset({"no", "false", "off"})
ON_WORDS = frozenset({"yes", "true", "on"})
_DURATION = re.compile(r"^(?:(\d+)([smhdw]?))+$", re.IGNORECASE)
_PART = re.compile(r"(\d+)([smhdw]?)", re.IGNORECASE)
_UNIT_S = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
SOCKET_SUFFIX = ".sock"
_MAX_SOCKET_PATH = 100  # sun_path holds 108 bytes


class BadPersist(ValueError):
    """Not a persist setting (the message says what is)."""


def parse_persist(text: str, *, yes_s: float = DEFAULT_IDLE_S) -> float | None:
    """Seconds a kept connection may stay idle (``math.inf``: no limit), or None: off.
    Takes ssh's time format (``600``, ``10m``, ``1h30m``), yes/no; 0 is ``yes_s``."""
    word = text.strip().lower()
    if word in OFF_WORDS:
        return None
    if word in ON_WORDS:
        return yes_s
    if not _DURATION.match(word):
        raise BadPersist(f"persist {text!r}: give no, yes, or a time such as 10m, 1h, 600")
    seconds = sum(int(n) * _UNIT_S[u.lower()] for n, u in _PART.findall(word))
    return float(seconds) if seconds > 0 else yes_s


def idle_limit(alias: str, fleet_value: str | None) -> float | None:
    """The idle limit of the keeper of ssh host ``alias`` (None: no keeper): hosts.toml's value when
    it has one, else ControlPersist of ~/.ssh/config for ``alias`` (ssh's "yes" and 0
    there mean no limit, as for ssh), else off. A setting that cannot be read is off."""
    try:
        if fleet_value is not None:
            return parse_persist(fleet_value)
        value = ssh_config_value(alias, "controlpersist")
        return None if value is None else parse_persist(value, yes_s=math.inf)
    except BadPersist:
        return None


# ------------------------------------------------------------------ where keepers listen


def keeper_folder() -> Path:
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isdir(runtime):
        return Path(runtime) / "tierdeck-keepers"
    from ...localfiles import cache_folder

    return cache_folder() / "keepers"


def private_folder(create: bool) -> Path | None:
    """The keepers' folder, made 0700 when ``create``; None unless it is a real folder
    owned by this user that no one else may enter (then nothing there is trusted)."""
    folder = keeper_folder()
    if create:
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError:
            return None
    try:
        info = folder.lstat()
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
        return None
    if info.st_mode & 0o077:
        return None
    return folder


def socket_name(target: str) -> str:
    """The socket's file name for ``target`` as seen from this HOME and ssh config."""
    digest = hashlib.sha256()
    home = os.path.expanduser("~")
    digest.update(f"{target}\0{home}\0".encode(errors="surrogateescape"))
    try:
        digest.update(Path(home, ".ssh", "config").read_bytes())
    except OSError:
        pass
    return digest.hexdigest()[:20] + SOCKET_SUFFIX


def socket_path(target: str, *, create: bool) -> Path | None:
    """Where ``target``'s keeper listens, or None when there is no safe place for it."""
    folder = private_folder(create)
    if folder is None:
        return None
    path = folder / socket_name(target)
    return path if len(os.fsencode(path)) <= _MAX_SOCKET_PATH else None
