"""Files tierdeck made on a remote host and could not remove because the connection
was gone (a benchmark's test files): written down here, on this machine, and removed
first thing at the next connection to that host.
"""

from __future__ import annotations

import contextlib
import json
import urllib.parse
from pathlib import Path
from typing import TYPE_CHECKING

from ...localfiles import cache_folder, write_atomically
from . import remote_sh

if TYPE_CHECKING:
    from .host import SshHost


def _register(host: SshHost) -> Path:
    name = urllib.parse.quote(str(host.target), safe="") + ".json"
    return cache_folder() / "remote-leftovers" / name


def pending(host: SshHost) -> list[str]:
    try:
        paths = json.loads(_register(host).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [p for p in paths if isinstance(p, str)] if isinstance(paths, list) else []


def remember(host: SshHost, path: str) -> None:
    register = _register(host)
    register.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    paths = pending(host)
    if path not in paths:
        write_atomically(register, json.dumps([*paths, path]))


def clean(host: SshHost) -> None:
    """Remove what the last lost connection left (called once connected)."""
    paths = pending(host)
    if not paths:
        return
    kept = []
    for path in paths:
        try:
            result = host.link.shell(remote_sh.remove_line(path), timeout=20)
        except Exception:  # noqa: BLE001 - still out of reach: try again next time
            kept.append(path)
            continue
        if result.returncode not in (0, 2):  # 2: already gone
            kept.append(path)
    register = _register(host)
    if kept:
        write_atomically(register, json.dumps(kept))
    else:
        with contextlib.suppress(FileNotFoundError):
            register.unlink()
