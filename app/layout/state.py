"""The record of the applies `layout undo` can still undo, kept beside fstab
(``fstab.tierdeck-state.json``): a stack, newest on top.

The newest apply's record is the document itself (as it always was: ``backup``,
``units``, ``created``, ``mounted``, ``runtime``, ``disabled`` (the timers it stopped),
and ``applied``, its time stamp); the
applies before it, still undoable once it is undone, are its ``earlier`` list, oldest
first, each a record of the same shape. Undo takes the top one off; the next undo puts
back what the one before it changed, down to the machine before the first apply.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ...core.errors import TierdeckError

STATE_FORMAT = "tierdeck.apply-state/1"

Record = dict[str, Any]


class BadState(TierdeckError):
    """The file beside fstab is not tierdeck's record of its applies."""


def _text_or_none(value: Any) -> bool:
    return value is None or isinstance(value, str)


def _checked(record: Any) -> Record:
    """``record`` with its defaults, when every value has the type undo relies on."""
    if not isinstance(record, dict):
        raise ValueError("a record is not an object")
    units = record["units"]
    if not isinstance(units, dict) or not all(map(_text_or_none, units.values())):
        raise ValueError("units: not an object of texts")
    for key in ("backup", "applied", "layout", "fstab", "fstab_written"):
        if not _text_or_none(record.setdefault(key, None)):
            raise ValueError(f"{key}: not a text")
    for key in ("created", "mounted", "disabled"):
        found = record.setdefault(key, [])
        if not isinstance(found, list) or not all(isinstance(p, str) for p in found):
            raise ValueError(f"{key}: not a list of paths or names")
    runtime = record.setdefault("runtime", {})
    if not isinstance(runtime, dict) or not all(
        isinstance(v, dict) and all(map(_text_or_none, v.values())) for v in runtime.values()
    ):
        raise ValueError("runtime: not an object of options")
    return record


def text_digest(text: str) -> str:
    """The sha256 of a text, to know later whether a file is still what was written."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def parse_stack(text: str, state_path: str) -> list[Record]:
    """The records, oldest first (the last is the one the next undo takes)."""
    try:
        state = json.loads(text)
        if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
            raise ValueError(f"not {STATE_FORMAT}")
        earlier = state.pop("earlier", [])
        if not isinstance(earlier, list):
            raise ValueError("earlier: not a list")
        return [*(_checked(r) for r in earlier), _checked(state)]
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise BadState(f"{state_path}: not tierdeck's record of an apply ({exc}); "
                       "nothing was changed") from exc  # fmt: skip


def stack_text(records: list[Record]) -> str:
    """The file's text for ``records`` (oldest first, at least one)."""
    *earlier, top = records
    strip = [{k: v for k, v in r.items() if k not in ("format", "earlier")} for r in earlier]
    document = {**{k: v for k, v in top.items() if k != "earlier"}, "format": STATE_FORMAT,
                "earlier": strip}  # fmt: skip
    return json.dumps(document, indent=2) + "\n"


def describe(record: Record) -> str:
    """One line: when the apply ran and what undoing it puts back."""
    fstab = record.get("fstab") or "fstab"
    backup = record.get("backup")
    parts = [f"fstab from {backup}" if backup else f"no {fstab} (there was none)"]
    units = record["units"]
    if units:
        back = sum(1 for text in units.values() if text is not None)
        parts.append(f"{len(units)} unit files ({back} put back as they were, "
                     f"{len(units) - back} removed)")  # fmt: skip
    if record["runtime"]:
        parts.append("the options it set on a running pool")
    if record["mounted"]:
        parts.append("unmounts " + ", ".join(record["mounted"]))
    if record["created"]:
        parts.append("removes the mountpoints " + ", ".join(record["created"]) + " if empty")
    when = record.get("applied") or "at a time not recorded"
    return f"apply of {when} (layout {record.get('layout', '?')}): " + "; ".join(parts)
