"""A layout from what the user gave (branches, mountpoints, options, a live pool to start
from), its rule results and outputs as one JSON object (docs/layout-json.md), and the
simulator's branch facts from the inventory. No click, no Textual: the CLI uses it now,
the compose screen can later."""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...core.layout.model import (
    Branch,
    BranchMode,
    HealthTimer,
    Layout,
    LayoutError,
    LayoutErrorKind,
    PoolOptions,
    default_layout,
    parse_pool_options,
)
from ...core.layout.outputs import LayoutOutputs, pool_options_text
from ...core.layout.rules import RuleResult
from ...core.layout.toml_format import layout_to_toml
from ...core.mergerfs_policy import PolicyBranch as SimBranch
from ...core.models import Inventory, MergerfsPool
from ...core.units import parse_size

PLAN_SCHEMA = "tierdeck.layout-plan/1"

# The xattr keys (as the inventory spells them) of the options PoolOptions types.
_TYPED_XATTRS = ("category.create", "minfreespace", "moveonenospc", "cache.files",
                 "dropcacheonclose", "fsname")  # fmt: skip


@dataclass(frozen=True)
class PlanRequest:
    """``tierdeck layout plan``'s options, as given (None/empty: not given)."""

    cache: tuple[str, ...]
    slow: tuple[str, ...]  # DIR or DIR=MODE
    pool: str | None
    slow_pool: str | None
    create: str | None
    minfreespace: str | None
    options: tuple[str, ...]  # K=V
    from_pool: str | None
    slow_minfreespace: str | None = None  # the slow pool's (the others are the tiered's)
    health_timer: bool = False  # the health check's timer, with its defaults


def parse_slow(text: str) -> Branch:
    """``/mnt/disk1`` or ``/mnt/disk1=NC``: the mode after the last ``=`` if it is one."""
    path, sep, mode = text.rpartition("=")
    if sep and mode.upper() in BranchMode.__members__:
        return Branch(path, BranchMode(mode.upper()))
    return Branch(text)


def find_pool(inv: Inventory, mountpoint: str) -> MergerfsPool:
    pool = next((p for p in inv.mergerfs if p.mountpoint == mountpoint.rstrip("/") or
                 p.mountpoint == mountpoint), None)  # fmt: skip
    if pool is None:
        raise LayoutError(LayoutErrorKind.BAD_VALUE, "from_pool",
                          f"no mergerfs pool is mounted at {mountpoint}")  # fmt: skip
    if pool.error:
        raise LayoutError(LayoutErrorKind.BAD_VALUE, "from_pool",
                          f"{mountpoint}: its settings cannot be read ({pool.error})")  # fmt: skip
    return pool


def pool_options_of(pool: MergerfsPool) -> PoolOptions:
    """A live pool's typed options from its xattrs; the mount-only ones (allow_other)
    are not visible there, so tierdeck's defaults stand for them."""
    text = ",".join(f"{k}={pool.options[k]}" for k in _TYPED_XATTRS if k in pool.options)
    return dataclasses.replace(parse_pool_options(text), other=PoolOptions().other)


def _with_overrides(base: PoolOptions, request: PlanRequest) -> PoolOptions:
    extra = list(request.options)
    if request.create is not None:
        extra.append(f"category.create={request.create}")
    if request.minfreespace is not None:
        extra.append(f"minfreespace={request.minfreespace}")
    # Later options win in parse_pool_options; an untyped option given again replaces
    # the earlier one of the same key rather than appearing twice.
    parsed = parse_pool_options(",".join([pool_options_text(base), *extra]))
    seen: dict[str, str] = {}
    for option in parsed.other:
        seen[option.split("=", 1)[0]] = option
    return dataclasses.replace(parsed, other=tuple(seen.values()))


def build_layout(request: PlanRequest, inv: Inventory | None) -> Layout:
    """The layout the request describes. LayoutError (key: the option at fault)."""
    cache, slow, pool = request.cache, tuple(map(parse_slow, request.slow)), request.pool
    base: PoolOptions | None = None
    if request.from_pool is not None:
        if inv is None:
            raise LayoutError(LayoutErrorKind.MISSING, "from_pool", "no inventory")
        live = find_pool(inv, request.from_pool)
        base = pool_options_of(live)
        if not cache:
            raise LayoutError(LayoutErrorKind.MISSING, "cache",
                              "say which branch is the cache (--cache DIR)")  # fmt: skip
        if not slow:
            slow = tuple(Branch(b.path, b.mode) for b in live.branches if b.path not in cache)
        pool = pool or live.mountpoint
    if pool is None:
        raise LayoutError(LayoutErrorKind.MISSING, "pool", "the tiered pool's mountpoint")
    layout = default_layout(cache, slow, pool, request.slow_pool)
    options = _with_overrides(base or layout.tiered_pool.options, request)
    tiered = dataclasses.replace(layout.tiered_pool, options=options)
    health = HealthTimer() if request.health_timer else None
    return with_slow_minfreespace(
        dataclasses.replace(layout, tiered_pool=tiered, health=health), request.slow_minfreespace
    )


def with_slow_minfreespace(layout: Layout, text: str | None) -> Layout:
    """``layout`` with its slow pool's minfreespace (``10M``) set; None leaves
    mergerfs's 4G. LayoutError without a slow pool, ParseError for a bad size."""
    if text is None:
        return layout
    if layout.slow_pool is None:
        raise LayoutError(LayoutErrorKind.MISSING, "slow_minfreespace",
                          "there is no slow pool to set it on (--slow-pool)")  # fmt: skip
    options = dataclasses.replace(
        layout.slow_pool.options, minfreespace_bytes=parse_size(text.strip(), "slow_minfreespace")
    )
    return dataclasses.replace(
        layout, slow_pool=dataclasses.replace(layout.slow_pool, options=options)
    )


def _rule_dict(r: RuleResult) -> dict[str, str]:
    return {"rule": str(r.rule), "severity": str(r.severity), "message": r.message,
            "reason": r.reason}  # fmt: skip


def plan_to_dict(
    layout: Layout, results: Sequence[RuleResult], outputs: LayoutOutputs
) -> dict[str, Any]:
    """docs/layout-json.md: ``layout`` is the TOML file's document, key for key."""
    return {
        "schema": PLAN_SCHEMA,
        "layout": tomllib.loads(layout_to_toml(layout)),
        "rules": [_rule_dict(r) for r in results],
        "outputs": {
            "fstab": list(outputs.fstab),
            "units": dict(outputs.units),
            "mover": {"service": outputs.mover_service, "timer": outputs.mover_timer},
            "health": (
                None
                if outputs.health_timer is None
                else {"service": outputs.health_service, "timer": outputs.health_timer}
            ),
        },
    }


def simulation_branches(
    layout: Layout, free: Mapping[str, tuple[int, int] | None]
) -> tuple[tuple[SimBranch, ...], tuple[str, ...]]:
    """The tiered pool's branches for the simulator, from (size, avail) per path; and
    the paths whose free space is unknown (left out)."""
    branches: list[SimBranch] = []
    unknown: list[str] = []
    for b in layout.tiered_branches():
        known = free.get(b.path)
        if known is None:
            unknown.append(b.path)
            continue
        size, avail = known
        branches.append(SimBranch(b.path, b.mode, avail, max(size - avail, 0)))
    return tuple(branches), tuple(unknown)


def parse_file_size(text: str) -> int:
    return parse_size(text, "--size")
