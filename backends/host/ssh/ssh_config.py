"""What ``~/.ssh/config`` gives one host alias, read as ssh reads it, without asyncssh
(a command served by a keeper never imports it): ``ControlPersist`` (persist.py) and
``ConnectTimeout`` (how long a connection may take to answer)."""

from __future__ import annotations

import fnmatch
import glob
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

MAX_INCLUDE_DEPTH = 16  # ssh's own bound: a file that includes itself ends there
CONNECT_TIMEOUT_S = 10.0  # without a ConnectTimeout: an answer within this, or unreachable


def connect_timeout(alias: str, path: Path | None = None) -> float:
    """``ConnectTimeout`` (whole seconds, above 0) for ``alias``, else the default."""
    value = ssh_config_value(alias, "connecttimeout", path)
    if value is not None and value.isdigit() and int(value) > 0:
        return float(value)
    return CONNECT_TIMEOUT_S


def ssh_config_value(alias: str, keyword: str, path: Path | None = None) -> str | None:
    """The first value of ``keyword`` that ~/.ssh/config gives ``alias``, as ssh reads
    it: ``Host`` patterns with * ? and !negation, first value wins, ``Include`` followed
    where it stands (globs, ~, paths relative to ~/.ssh; inside a Host block that does
    not apply, nothing it includes applies). A ``Match`` block is not evaluated (its
    lines are skipped)."""
    path = path or Path(os.path.expanduser("~/.ssh/config"))
    # lines before the first Host apply to every host
    return _value_in(path, alias, keyword, _Scope(active=True, never=False), 0)


@dataclass
class _Scope:
    active: bool  # the lines read now apply to the alias
    never: bool  # inside an Include of a block that did not apply: nothing can


def _value_in(path: Path, alias: str, keyword: str, scope: _Scope, depth: int) -> str | None:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    for raw in lines:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        words = re.split(r"\s*=\s*|\s+", line, maxsplit=1)
        key = words[0].lower()
        rest = words[1].strip() if len(words) > 1 else ""
        if key == "host":
            scope.active = not scope.never and _host_matches(alias, rest.split())
        elif key == "match":
            scope.active = False
        elif key == "include" and depth < MAX_INCLUDE_DEPTH:
            # as ssh: the included lines start in this block's state, and the state
            # is this block's again after them
            before = scope.active
            inner = _Scope(active=before, never=scope.never or not before)
            for included in _included(rest):
                found = _value_in(included, alias, keyword, inner, depth + 1)
                if found is not None:
                    return found
            scope.active = before
        elif scope.active and key == keyword:
            return rest.strip('"')
    return None


def _included(patterns: str) -> list[Path]:
    """The files an Include names, each glob in lexical order."""
    try:
        words = shlex.split(patterns)
    except ValueError:
        return []  # an unbalanced quote: ssh refuses the line, nothing is included
    files: list[Path] = []
    for word in words:
        pattern = os.path.expanduser(word)
        if not os.path.isabs(pattern):
            pattern = os.path.join(os.path.expanduser("~/.ssh"), pattern)
        files += [Path(p) for p in sorted(glob.glob(pattern))]
    return files


def _host_matches(alias: str, patterns: list[str]) -> bool:
    matched = False
    for pattern in patterns:
        negated = pattern.startswith("!")
        if fnmatch.fnmatchcase(alias, pattern.removeprefix("!")):
            if negated:
                return False
            matched = True
    return matched
