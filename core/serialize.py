"""The stable JSON shape of the inventory: ``tierdeck inventory --json`` (see
docs/inventory-json.md). A job spec's dict form is core/spec_dict.py, so that reading
the history does not load the inventory's types.

Field names are the dataclass field names; enums are their string values; sizes are
bytes; unknown values are ``null``. Adding keys is allowed within a schema version;
renaming or removing one bumps ``schema``.
"""

from __future__ import annotations

import dataclasses
from enum import Enum
from typing import Any

from .health import find_problems
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
