"""Each run's line of ``history list --json``, kept in the history (schema v9's
``run_lines``): the run's ``tierdeck.run/1`` object without fio's document, as
``json.dumps`` writes it, so that the listing joins stored text instead of reading and
encoding every run's series again (a 100-run listing: ~110 of ~170 ms). Kept
compressed (zlib): a line as text weighs more than the run's rows (~37 KB for a 60 s
run, 100 runs' file 2.6 -> 6.4 MB), compressed a tenth of that (2.6 -> 3.0 MB), and
decompressing a listing's lines costs a few ms.

A line is a copy, never the truth. The store writes it from the run's rows as they read
back (the computed listing's own code, store.run_line) when a run is saved, renamed or
retagged; schema v9's triggers drop it whenever its rows change, whoever changes them;
a line of another ``LINE_VERSION`` is not read; a missing one is computed by the store
when a listing asks for it, and kept when the file is writable.

Light on purpose: the launcher's fast path (app/cli/fast_list.py) answers
``tierdeck history list --json`` with this module and sqlite3 alone, without click or
the benchmark model; anything it is not sure of goes to the store.
"""

from __future__ import annotations

import sqlite3
import zlib
from collections.abc import Sequence
from pathlib import Path

from ... import __version__
from .read_only import open_read_only

TYPE_CHECKING = False  # typing's own flag, without importing typing (~2 ms) to read it
if TYPE_CHECKING:
    from typing import Any

# What wrote a line: tierdeck's version (an upgrade recomputes every line) and the
# serializer's revision within it. Bump REVISION whenever what a stored run's line holds
# changes (run_json.result_to_json, what it calls, how the line is encoded):
# tests/unit/history/test_run_lines.py holds a digest of known runs' lines and fails
# until it is bumped.
REVISION = 1
LINE_VERSION = f"{__version__}/{REVISION}"

# Newest first, as HistoryStore.list.
ORDER = "ORDER BY started_at DESC, id DESC"


def list_where(
    statuses: Sequence[str],
    target: str | None = None,
    preset_names: Sequence[str] | None = None,
    tag: str | None = None,
    host: str | None = None,
) -> tuple[str, list[Any]]:
    """The WHERE of a listing of runs (without the word) and its parameters:
    ``statuses`` as stored ("ok" ...), ``target`` a path as given (a trailing "/"
    ignored), ``preset_names`` a preset's names (its former ones too), ``tag``, and
    ``host`` a name (any case), an id or the machine id in it ("ssh:ID", "ID")."""
    where = [f"status IN ({', '.join('?' * len(statuses))})"]
    params: list[Any] = list(statuses)
    if target is not None:
        where.append("target_path = ?")
        params.append(target.rstrip("/") or "/")
    if preset_names is not None:
        where.append(f"preset IN ({', '.join('?' * len(preset_names))})")
        params += preset_names
    if tag is not None:
        where.append("id IN (SELECT run_id FROM run_tags WHERE tag = ?)")
        params.append(tag)
    if host is not None:
        # RunHost.machine: the id after its "local:"/"ssh:"
        where.append(
            "((host_name != '' AND host_name = ? COLLATE NOCASE) OR (host_id != ''"
            " AND (host_id = ? OR substr(host_id, instr(host_id, ':') + 1) = ?)))"
        )
        params += [host, host, host]
    return " AND ".join(where), params


def pack(line: str) -> bytes:
    """A line as the history keeps it: compressed, in ASCII (json.dumps escapes the
    rest)."""
    return zlib.compress(line.encode("ascii"))


def unpack(kept: object) -> bytes | None:
    """A kept line's ASCII bytes; None for none, or one that is not a compressed ASCII
    line (a file damaged or edited by hand: the line is written again)."""
    if not isinstance(kept, bytes):
        return None
    try:
        line = zlib.decompress(kept)
    except zlib.error:
        return None
    return line if line.isascii() else None


def stored_lines(
    conn: sqlite3.Connection, where: str, params: Sequence[Any]
) -> list[tuple[int, bytes | None]]:
    """Each listed run's id and its stored line (``unpack``'s bytes), newest first;
    None where no line of this ``LINE_VERSION`` is kept."""
    cursor = conn.cursor()
    cursor.row_factory = None
    rows = cursor.execute(
        "SELECT id, line FROM runs LEFT JOIN run_lines ON run_id = id AND version = ?"
        f" WHERE {where} {ORDER}",
        (LINE_VERSION, *params),
    ).fetchall()
    return [(run_id, unpack(kept)) for run_id, kept in rows]


def json_array(lines: Sequence[str]) -> str:
    """The JSON array of ``history list --json``, one run to a line: lines written by
    json's C encoder, where indenting (Python's encoder) took 0.5 s of the 0.6 s a
    listing of 100 runs with their series spent printing (bench/history.py)."""
    if not lines:
        return "[]"
    return "[\n" + ",\n".join(lines) + "\n]"


def stored_listing(path: Path, where: str, params: Sequence[Any]) -> bytes | None:
    """``json_array`` of the lines kept in the history at ``path``, and the newline
    ``click.echo`` adds, as ASCII bytes; None when any listed run has none of this
    version, or the file is not one this module is sure of (missing, another schema
    version, unreadable): the store answers then."""
    conn = open_read_only(path)
    if conn is None:
        return None
    try:
        found = stored_lines(conn, where, params)
    except sqlite3.Error:
        return None
    finally:
        conn.close()
    lines = [line for _, line in found if line is not None]
    if len(lines) != len(found):
        return None
    if not lines:
        return b"[]\n"
    # json_array's text, joined once: each copy of a listing's megabytes counts here
    pieces = [b"[\n"]
    for line in lines:
        pieces += (line, b",\n")
    pieces[-1] = b"\n]\n"
    return b"".join(pieces)
