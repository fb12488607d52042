"""Stable JSON shapes of the core's types: ``tierdeck inventory --json`` (see
docs/inventory-json.md), and a job spec as the history stores it and ``--json`` prints it.

Field names are the dataclass field names; enums are their string values; sizes are
bytes; unknown values are ``null``. Adding keys is allowed within a schema version;
renaming or removing one bumps ``schema``.
"""

from __future__ import annotations

import dataclasses
from enum import Enum
from typing import Any

from .health import find_problems
from .jobspec import SPEC_OPTIONS, JobSpec
from .models import Disk, Inventory
from .relations import relation_map

SCHEMA = "tierdeck.inventory/1"


def to_jsonable(value: Any) -> Any:
    """Dataclasses, enums, tuples and dicts to plain JSON types."""
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
        if isinstance(value, Disk):
            out["virtual"] = value.virtual  # a property, but scripts filter on it
        return out
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    return value


def inventory_to_dict(inv: Inventory) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "host": {"hostname": inv.hostname, "kernel": inv.kernel, "is_root": inv.is_root},
        "disks": to_jsonable(inv.disks),
        "mounts": to_jsonable(inv.mounts),
        "mergerfs": to_jsonable(inv.mergerfs),
        "zfs": to_jsonable(inv.zfs),
        "btrfs": to_jsonable(inv.btrfs),
        "md": to_jsonable(inv.md),
        "relations": relation_map(inv),
        "problems": to_jsonable(find_problems(inv)),
        "notes": to_jsonable(inv.notes),
    }


def spec_to_dict(job: JobSpec) -> dict[str, Any]:
    """A job as JSON; an option its imported file did not state is null, never fio's
    default ("stated" lists the ones it did; null: all are known)."""
    out = {f.name: getattr(job, f.name) for f in dataclasses.fields(job)}
    out["extra"] = dict(job.extra)
    out["stated"] = None if job.stated is None else sorted(job.stated)
    for option in SPEC_OPTIONS:
        if not job.states(option):
            out[option] = None
    return out


def spec_from_dict(data: dict[str, Any]) -> JobSpec:
    """The inverse of spec_to_dict, also for runs stored before "stated" existed."""
    stated = data.get("stated")
    known = {k: v for k, v in data.items() if v is not None and k != "stated"}
    # rw is the one option JobSpec cannot be without: an imported job whose rw was not
    # understood was built with fio's default and stored as null (unknown); it comes back
    # the same way, still unknown because "stated" leaves it out.
    known.setdefault("rw", "read")
    return JobSpec(**known, stated=None if stated is None else frozenset(stated))
