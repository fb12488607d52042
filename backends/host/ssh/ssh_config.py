"""What ``~/.ssh/config`` gives one host alias, read as ssh reads it, without asyncssh
(a command served by a keeper never imports it): ``ControlPersist`` (persist.py) and
``ConnectTimeout`` (how long a connection may take to answer)."""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path

CONNECT_TIMEOUT_S = 10.0  # without a ConnectTimeout: an answer within this, or unreachable


def connect_timeout(alias: str, path: Path | None = None) -> float:
    """``ConnectTimeout`` (whole seconds, above 0) for ``alias``, else the default."""
    value = ssh_config_value(alias, "connecttimeout", path)
    if value is not None and value.isdigit() and int(value) > 0:
        return float(value)
    return CONNECT_TIMEOUT_S


def ssh_config_value(alias: str, keyword: str, path: Path | None = None) -> str | None:
    """The first value of ``keyword`` that ~/.ssh/config gives ``alias``, as ssh reads
    it: ``Host`` patterns with * ? and !negation, first value wins. A ``Match`` block is
    not evaluated (its lines are skipped) and ``Include`` is not followed."""
    path = path or Path(os.path.expanduser("~/.ssh/config"))
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    applies = True  # lines before the first Host apply to every host
    for raw in lines:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        words = re.split(r"\s*=\s*|\s+", line, maxsplit=1)
        key = words[0].lower()
        rest = words[1].strip() if len(words) > 1 else ""
        if key == "host":
            applies = _host_matches(alias, rest.split())
        elif key == "match":
            applies = False
        elif applies and key == keyword:
            return rest.strip('"')
    return None


def _host_matches(alias: str, patterns: list[str]) -> bool:
    matched = False
    for pattern in patterns:
        negated = pattern.startswith("!")
        if fnmatch.fnmatchcase(alias, pattern.removeprefix("!")):
            if negated:
                return False
            matched = True
    return matched
