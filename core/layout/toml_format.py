"""Layouts as TOML files, format ``tierdeck.layout/1``.

Read with the standard library's tomllib, written with tomli-w (its writer, same
author). Every failure to read is a LayoutError naming the key at fault; nothing else
escapes, whatever the bytes (tests/unit/core/layout/test_layout_toml.py feeds it garbage).

The file, with the defaults a hand-written one may leave out::

    format = "tierdeck.layout/1"
    cache = ["/mnt/ssd/cache00"]            # cache branches, in order

    [[slow]]                                # slow branches, in order
    path = "/mnt/disk1"
    mode = "RW"                             # RW | RO | NC (its mode in the tiered pool)

    [tiered_pool]
    mountpoint = "/mnt/cached"
    [tiered_pool.options]
    create = "ff"                           # a mergerfs create policy
    minfreespace = 4294967296               # bytes; "300G" is read too
    moveonenospc = true                     # or a create policy
    cache_files = "off"
    dropcacheonclose = true
    fsname = "mergerfs"
    other = ["allow_other"]                 # any further option, as in fstab

    [slow_pool]                             # optional with one slow branch
    mountpoint = "/mnt/slow-storage"

    [mover]                                 # defaults: every cache branch -> slow pool
    source = ["/mnt/ssd/cache00"]
    destination = "/mnt/slow-storage"
    min_age_days = 1
    age_basis = "atime"                     # atime | mtime
    fill_high_pct = 80
    fill_low_pct = 60
    exclude = []
    schedule = "hourly"                     # systemd OnCalendar=

    [health]                                # optional: a health check timer
    schedule = "hourly"                     # systemd OnCalendar=
    prometheus = "/var/lib/prometheus/node-exporter/tierdeck.prom"  # "": no textfile
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import Any, TypeVar

from ..errors import ParseError
from ..units import parse_size
from .model import (
    AgeBasis,
    Branch,
    BranchMode,
    CacheFiles,
    CreatePolicy,
    HealthTimer,
    Layout,
    LayoutError,
    LayoutErrorKind,
    MoverPolicy,
    PoolOptions,
    PoolSpec,
)

FORMAT = "tierdeck.layout/1"

_E = TypeVar("_E", bound=StrEnum)
_T = TypeVar("_T")

_TOP_KEYS = {"format", "cache", "slow", "tiered_pool", "slow_pool", "mover", "health"}
_HEALTH_KEYS = {"schedule", "prometheus"}
_POOL_KEYS = {"mountpoint", "options"}
_OPTION_KEYS = {
    "create",
    "minfreespace",
    "moveonenospc",
    "cache_files",
    "dropcacheonclose",
    "fsname",
    "other",
}
_BRANCH_KEYS = {"path", "mode"}
_MOVER_KEYS = {
    "source",
    "destination",
    "min_age_days",
    "age_basis",
    "fill_high_pct",
    "fill_low_pct",
    "exclude",
    "schedule",
}


# -- writing ---------------------------------------------------------------------------
def _options_table(options: PoolOptions) -> dict[str, Any]:
    moveonenospc: bool | str = (
        options.moveonenospc
        if isinstance(options.moveonenospc, bool)
        else str(options.moveonenospc)
    )
    return {
        "create": str(options.create),
        "minfreespace": options.minfreespace_bytes,
        "moveonenospc": moveonenospc,
        "cache_files": str(options.cache_files),
        "dropcacheonclose": options.dropcacheonclose,
        "fsname": options.fsname,
        "other": list(options.other),
    }


def _pool_table(pool: PoolSpec) -> dict[str, Any]:
    return {"mountpoint": pool.mountpoint, "options": _options_table(pool.options)}


def layout_to_toml(layout: Layout) -> str:
    """The whole layout, every default written out, so a file says what it does."""
    doc: dict[str, Any] = {
        "format": FORMAT,
        "cache": list(layout.cache),
        "slow": [{"path": b.path, "mode": str(b.mode)} for b in layout.slow],
        "tiered_pool": _pool_table(layout.tiered_pool),
    }
    if layout.slow_pool is not None:
        doc["slow_pool"] = _pool_table(layout.slow_pool)
    mover = layout.mover
    doc["mover"] = {
        "source": list(mover.source),
        "destination": mover.destination,
        "min_age_days": mover.min_age_days,
        "age_basis": str(mover.age_basis),
        "fill_high_pct": mover.fill_high_pct,
        "fill_low_pct": mover.fill_low_pct,
        "exclude": list(mover.exclude),
        "schedule": mover.schedule,
    }
    if layout.health is not None:
        # TOML has no null: an empty path is "no textfile"
        doc["health"] = {"schedule": layout.health.schedule,
                         "prometheus": layout.health.prometheus or ""}  # fmt: skip
    import tomli_w  # here: reading a layout (every mover run) never writes one

    return tomli_w.dumps(doc)


# -- reading ---------------------------------------------------------------------------
def _wrong(key: str, want: str, value: object) -> LayoutError:
    return LayoutError(LayoutErrorKind.WRONG_TYPE, key, f"want {want}, got {type(value).__name__}")


def _table(parent: Mapping[str, Any], key: str, path: str, allowed: set[str]) -> Mapping[str, Any]:
    value = parent.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _wrong(path, "a table", value)
    unknown = sorted(set(value) - allowed)
    if unknown:
        raise LayoutError(LayoutErrorKind.UNKNOWN_KEY, f"{path}.{unknown[0]}", "unknown key")
    return value


def _get(
    table: Mapping[str, Any], key: str, path: str, kind: type[_T], default: _T | None = None
) -> _T:
    full = f"{path}.{key}" if path else key
    if key not in table:
        if default is None:
            raise LayoutError(LayoutErrorKind.MISSING, full, "required")
        return default
    value = table[key]
    # bool is an int to Python; a `true` where a number belongs is a mistake.
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise _wrong(full, kind.__name__, value)
    return value


def _strings(
    table: Mapping[str, Any], key: str, path: str, default: tuple[str, ...] | None = None
) -> tuple[str, ...]:
    full = f"{path}.{key}" if path else key
    items = _get(table, key, path, list, None if default is None else list(default))
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise _wrong(f"{full}[{i}]", "a string", item)
    return tuple(items)


def _enum(enum: type[_E], table: Mapping[str, Any], key: str, path: str, default: _E) -> _E:
    text = _get(table, key, path, str, str(default))
    try:
        return enum(text)
    except ValueError:
        choices = ", ".join(e.value for e in enum)
        raise LayoutError(
            LayoutErrorKind.BAD_VALUE, f"{path}.{key}", f"{text!r} is not one of {choices}"
        ) from None


def _size(table: Mapping[str, Any], key: str, path: str, default: int) -> int:
    value = table.get(key, default)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        try:
            return parse_size(value, f"{path}.{key}")
        except ParseError as exc:
            raise LayoutError(LayoutErrorKind.BAD_VALUE, f"{path}.{key}", exc.detail) from None
    raise _wrong(f"{path}.{key}", "bytes or a size such as 300G", value)


def _options(pool: Mapping[str, Any], path: str) -> PoolOptions:
    table = _table(pool, "options", f"{path}.options", _OPTION_KEYS)
    where = f"{path}.options"
    base = PoolOptions()
    raw_move = table.get("moveonenospc", base.moveonenospc)
    moveonenospc: bool | CreatePolicy
    if isinstance(raw_move, bool):
        moveonenospc = raw_move
    else:
        moveonenospc = _enum(CreatePolicy, table, "moveonenospc", where, CreatePolicy.MFS)
    return _guarded(
        where,
        lambda: PoolOptions(
            create=_enum(CreatePolicy, table, "create", where, base.create),
            minfreespace_bytes=_size(table, "minfreespace", where, base.minfreespace_bytes),
            moveonenospc=moveonenospc,
            cache_files=_enum(CacheFiles, table, "cache_files", where, base.cache_files),
            dropcacheonclose=_get(table, "dropcacheonclose", where, bool, base.dropcacheonclose),
            fsname=_get(table, "fsname", where, str, base.fsname),
            other=_strings(table, "other", where, base.other),
        ),
    )


def _pool(doc: Mapping[str, Any], key: str) -> PoolSpec | None:
    if key not in doc:
        return None
    table = _table(doc, key, key, _POOL_KEYS)
    return PoolSpec(_get(table, "mountpoint", key, str), _options(table, key))


def _branch(item: object, i: int) -> Branch:
    path = f"slow[{i}]"
    if not isinstance(item, dict):
        raise _wrong(path, "a table", item)
    unknown = sorted(set(item) - _BRANCH_KEYS)
    if unknown:
        raise LayoutError(LayoutErrorKind.UNKNOWN_KEY, f"{path}.{unknown[0]}", "unknown key")
    return Branch(
        _get(item, "path", path, str), _enum(BranchMode, item, "mode", path, BranchMode.RW)
    )


def _guarded(path: str, build: Callable[[], _T]) -> _T:
    """Build a dataclass whose own checks raise LayoutError with a key relative to it."""
    try:
        return build()
    except LayoutError as exc:
        if exc.key is None or exc.key.startswith(path):
            raise
        raise LayoutError(exc.kind, f"{path}.{exc.key}", exc.detail) from None


def layout_from_toml(text: str) -> Layout:
    """A Layout from a file's text; LayoutError (kind, key) on anything wrong."""
    # Windows editors (Notepad) start a UTF-8 file with a byte order mark; tomllib
    # would call it an invalid statement at line 1.
    text = text.removeprefix("\ufeff")
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise LayoutError(LayoutErrorKind.SYNTAX, None, f"not TOML: {exc}") from None
    except RecursionError:  # tomllib recurses per nested array/table: "a=[[[[..."
        raise LayoutError(LayoutErrorKind.SYNTAX, None, "not TOML: nested too deeply") from None
    if not doc:  # nothing, blank lines or comments only
        raise LayoutError(
            LayoutErrorKind.MISSING, None, f"the file is empty (want format = {FORMAT!r} ...)"
        )
    unknown = sorted(set(doc) - _TOP_KEYS)
    if unknown:
        raise LayoutError(LayoutErrorKind.UNKNOWN_KEY, unknown[0], "unknown key")
    fmt = doc.get("format")
    if fmt != FORMAT:
        got = "it is missing" if fmt is None else f"got {fmt!r}"
        raise LayoutError(LayoutErrorKind.FORMAT, "format", f"want {FORMAT!r}, {got}")
    cache = _strings(doc, "cache", "")
    slow_items = _get(doc, "slow", "", list)
    slow = tuple(_branch(item, i) for i, item in enumerate(slow_items))
    tiered = _pool(doc, "tiered_pool")
    if tiered is None:
        raise LayoutError(LayoutErrorKind.MISSING, "tiered_pool", "required")
    slow_pool = _pool(doc, "slow_pool")
    mover_table = _table(doc, "mover", "mover", _MOVER_KEYS)
    default_destination = (
        slow_pool.mountpoint if slow_pool else slow[0].path if len(slow) == 1 else None
    )
    base = MoverPolicy(source=(), destination="")
    mover = _guarded(
        "mover",
        lambda: MoverPolicy(
            source=_strings(mover_table, "source", "mover", cache),
            destination=_get(mover_table, "destination", "mover", str, default_destination),
            min_age_days=_get(mover_table, "min_age_days", "mover", int, base.min_age_days),
            age_basis=_enum(AgeBasis, mover_table, "age_basis", "mover", base.age_basis),
            fill_high_pct=_get(mover_table, "fill_high_pct", "mover", int, base.fill_high_pct),
            fill_low_pct=_get(mover_table, "fill_low_pct", "mover", int, base.fill_low_pct),
            exclude=_strings(mover_table, "exclude", "mover", base.exclude),
            schedule=_get(mover_table, "schedule", "mover", str, base.schedule),
        ),
    )
    return Layout(cache=cache, slow=slow, tiered_pool=tiered, slow_pool=slow_pool, mover=mover,
                  health=_health(doc))  # fmt: skip


def _health(doc: Mapping[str, Any]) -> HealthTimer | None:
    """The [health] table's timer; None when the file has none."""
    if "health" not in doc:
        return None
    table = _table(doc, "health", "health", _HEALTH_KEYS)
    base = HealthTimer()
    return _guarded("health", lambda: HealthTimer(
        schedule=_get(table, "schedule", "health", str, base.schedule),
        prometheus=_get(table, "prometheus", "health", str, base.prometheus) or None,
    ))  # fmt: skip
