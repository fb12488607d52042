"""``tierdeck history list --json`` from the lines the history keeps
(app/history/run_lines.py), without click, the command's modules or the benchmark
model: with them the listing of 100 runs cost ~2.6x the bound it is held to (twice
``python -c pass`` plus the sqlite3 tool's time reading the same rows).

Narrow on purpose. The launcher asks here first for a command line that starts
``history list``, and this answers only what it is sure click would run without a word,
with the same output: the options of history/runs.py's ``list_cmd`` that need no
module beyond sqlite3 (``--json`` and ``--target``, ``--tag``, ``--host``,
``--status``; a preset's former names need the presets' table), each given once, each
value one that cannot be an option; and a history at this schema version whose listed
runs all have their line. Anything else (``--help``, a usage error, ``--preset``, a
missing or stale line, a file to migrate or refuse) returns None and click runs the
command as always, which also computes and keeps the missing lines.
"""

from __future__ import annotations

import os
import sys

# list_cmd's --status choices, as the stored statuses they list
STATUSES = {
    "ok": ("ok",),
    "failed": ("failed",),
    "cancelled": ("cancelled",),
    "all": ("ok", "failed", "cancelled"),
}
VALUED = ("--target", "--tag", "--host", "--status")
# What a listing is written in (json.dumps escapes everything else)
ASCII = bytes(range(32, 127)) + b"\n"


def list_options(args: list[str]) -> dict[str, str] | None:
    """The options of ``history list ARGS`` (the name without its dashes -> value)
    when they are ``--json`` and VALUED ones this path answers, else None."""
    given: dict[str, str] = {}
    as_json = False
    rest = iter(args)
    for arg in rest:
        if arg == "--json" and not as_json:
            as_json = True
            continue
        name, equals, value = arg.partition("=")
        if name not in VALUED or name[2:] in given:
            return None  # unknown, repeated, --help, "--": click says what it says
        if not equals:
            value = next(rest, "")
        if not value or value.startswith("-"):
            return None  # click would take "--json" as the value, or refuse
        given[name[2:]] = value
    if not as_json or given.get("status", "ok") not in STATUSES:
        return None
    return given


def writes_ascii_as_is() -> bool:
    """Whether stdout is a text stream over bytes that writes ASCII as itself (UTF-8,
    Latin-1, ...): click.echo's text then reaches the bytes as the stored lines are."""
    if getattr(sys.stdout, "buffer", None) is None:
        return False
    try:
        return ASCII.decode().encode(sys.stdout.encoding) == ASCII
    except (LookupError, TypeError, UnicodeError):
        return False


def stored_list_json(argv: list[str]) -> bytes | None:
    """The bytes ``tierdeck ARGV`` writes to stdout (click.echo's newline included) when
    ARGV is a ``history list --json`` this path answers from stored lines, else None."""
    if argv[:2] != ["history", "list"] or not writes_ascii_as_is():
        return None
    options = list_options(argv[2:])
    if options is None:
        return None
    from ..history.paths import default_history_path
    from ..history.run_lines import list_where, stored_listing

    target = options.get("target")
    where, params = list_where(
        STATUSES[options.get("status", "ok")],
        target=os.path.realpath(target) if target else None,
        tag=options.get("tag"),
        host=options.get("host"),
    )
    return stored_listing(default_history_path(), where, params)
