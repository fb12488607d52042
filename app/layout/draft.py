"""The compose screen's half-made layout, and everything it shows about it.

A ``Draft`` may be incomplete (no cache yet, a minfreespace being typed): ``Layout``
refuses those, so the screen edits a Draft and ``evaluate`` turns it into what the
screen draws (the Layout or why there is none yet, the rule results, each create
policy's answer for a file size, the fstab lines of core/layout/outputs, the cache's fill
against the mover's watermarks). No Textual here: screens/layout/compose.py only draws.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from ...backends.host import Host
from ...core.errors import ParseError
from ...core.layout.model import (
    DEFAULT_PROMETHEUS_FILE,
    AgeBasis,
    Branch,
    BranchMode,
    CreatePolicy,
    HealthTimer,
    Layout,
    LayoutError,
    LayoutErrorKind,
    MoverPolicy,
    PoolOptions,
    PoolSpec,
    default_layout,
)
from ...core.layout.outputs import OutputError, layout_outputs, mergerfs_size
from ...core.layout.rules import RuleResult, check_layout
from ...core.mergerfs_policy import CreatePolicy as SimPolicy
from ...core.mergerfs_policy import Placement, simulate_all
from ...core.models import Disk, DiskKind, Inventory, MergerfsPool, Mount
from ...core.relations import relation_map
from ...core.units import parse_size
from .applied import AppliedTiers
from .facts import branch_facts
from .fill import CacheFill, cache_fills
from .plan import pool_options_of, simulation_branches, with_slow_minfreespace

# Filesystems that cannot hold a tier: read-only images, or pools themselves. ramfs has
# no size to show (statfs says 0) and mergerfs sees no free space on it. tmpfs can: the
# CLI takes it, and the rules warn that nothing on it survives a reboot.
_NOT_BRANCHES = frozenset({"ramfs", "devtmpfs", "squashfs", "fuse.mergerfs", "overlay"})
_RAM = frozenset({"tmpfs"})
# The system's own tmpfs mounts (/run, /dev/shm, /sys/fs/cgroup): never a branch.
_SYSTEM_TREES = ("/run", "/dev", "/sys", "/proc")
_MODES = (BranchMode.RW, BranchMode.NC, BranchMode.RO)
# The Draft's text fields, as the screen's Inputs are named (opt-NAME).
TEXT_FIELDS = ("pool", "slow_pool", "minfreespace", "slow_minfreespace", "file_size", "min_age",
               "fill_high", "fill_low", "exclude", "schedule", "health_schedule",
               "prometheus")  # fmt: skip
# The field to show a LayoutError under, by its key (LayoutError.key).
FIELD_OF_KEY = {
    "tiered_pool.mountpoint": "pool",
    "slow_pool.mountpoint": "slow_pool",
    "slow_pool": "slow_pool",
    "minfreespace": "minfreespace",
    "slow_minfreespace": "slow_minfreespace",
    "min_age_days": "min_age",
    "fill_high_pct": "fill_high",
    "fill_low_pct": "fill_low",
    "schedule": "schedule",
    "health.schedule": "health_schedule",
    "health.prometheus": "prometheus",
}


@dataclass(frozen=True)
class Candidate:
    """A mount the user may pick as a branch, with what decides the tier."""

    path: str
    fs_type: str
    size_bytes: int | None
    avail_bytes: int | None
    disks: tuple[str, ...]
    media: str  # "SSD", "HDD", "mixed", "?"


@dataclass(frozen=True)
class Draft:
    cache: tuple[str, ...] = ()
    slow: tuple[Branch, ...] = ()
    pool: str = "/mnt/tiered"
    slow_pool: str = "/mnt/slow"
    create: CreatePolicy = CreatePolicy.FF
    minfreespace: str = "4G"
    slow_minfreespace: str = "4G"  # the slow pool's; mergerfs's default
    file_size: str = "1G"
    # The mover (core/layout/model.MoverPolicy), as typed; its defaults are the model's.
    min_age: str = "1"
    age_basis: AgeBasis = AgeBasis.ATIME
    fill_high: str = "80"
    fill_low: str = "60"
    exclude: str = ""  # globs separated by spaces
    schedule: str = "hourly"
    # The health check's timer (core/layout/model.HealthTimer): its OnCalendar= value,
    # empty for none (a layout has none unless asked), and its textfile (empty: none).
    health_schedule: str = ""
    prometheus: str = DEFAULT_PROMETHEUS_FILE
    # The options the screen does not edit (moveonenospc, cache.files ...), kept from
    # the pool the draft started from.
    base: PoolOptions = field(default_factory=lambda: PoolOptions(fsname="tiered"))

    def tier_of(self, path: str) -> str:
        if path in self.cache:
            return "cache"
        mode = next((b.mode for b in self.slow if b.path == path), None)
        return "" if mode is None else f"slow {mode.value}"

    def add_cache(self, path: str) -> Draft:
        rest = self.without(path)
        return dataclasses.replace(rest, cache=(*rest.cache, path))

    def add_slow(self, path: str) -> Draft:
        rest = self.without(path)
        return dataclasses.replace(rest, slow=(*rest.slow, Branch(path)))

    def without(self, path: str) -> Draft:
        return dataclasses.replace(
            self,
            cache=tuple(p for p in self.cache if p != path),
            slow=tuple(b for b in self.slow if b.path != path),
        )

    def next_mode(self, path: str) -> Draft:
        """A slow branch's next mode: RW, NC (no new files), RO."""
        slow = tuple(
            Branch(b.path, _MODES[(_MODES.index(b.mode) + 1) % len(_MODES)])
            if b.path == path
            else b
            for b in self.slow
        )
        return dataclasses.replace(self, slow=slow)

    def typed(self, name: str, text: str) -> Draft:
        """The draft with one of its text fields (an Input's) set to ``text``."""
        if name not in TEXT_FIELDS:
            raise KeyError(name)
        changes: dict[str, object] = {name: text}
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    def mover(self, destination: str) -> MoverPolicy:
        """The mover as typed, from the cache branches to ``destination``. LayoutError
        (with the MoverPolicy key at fault) when a number or the schedule is wrong."""
        return MoverPolicy(
            source=self.cache,
            destination=destination,
            min_age_days=_whole(self.min_age, "min_age_days"),
            age_basis=self.age_basis,
            fill_high_pct=_whole(self.fill_high, "fill_high_pct"),
            fill_low_pct=_whole(self.fill_low, "fill_low_pct"),
            exclude=tuple(self.exclude.split()),
            schedule=self.schedule.strip(),
        )

    def health(self) -> HealthTimer | None:
        """The health check's timer as typed; None with no schedule. LayoutError keyed
        ``health.KEY`` (the mover has a schedule too)."""
        if not self.health_schedule.strip():
            return None
        try:
            return HealthTimer(self.health_schedule.strip(), self.prometheus.strip() or None)
        except LayoutError as exc:
            raise LayoutError(exc.kind, f"health.{exc.key}", exc.detail) from None

    def layout(self) -> Layout:
        """The Layout this draft stands for. LayoutError (or ParseError for a size)
        says what is missing or wrong."""
        minfree = parse_size(self.minfreespace.strip(), "minfreespace")
        slow_pool = self.slow_pool.strip() or None
        base = default_layout(self.cache, self.slow, self.pool.strip(), slow_pool)
        options = dataclasses.replace(self.base, create=self.create, minfreespace_bytes=minfree)
        layout = dataclasses.replace(
            base,
            tiered_pool=PoolSpec(base.tiered_pool.mountpoint, options),
            mover=self.mover(base.mover.destination),
            health=self.health(),
        )
        if layout.slow_pool is None:
            return layout  # the field applies to no pool then
        return with_slow_minfreespace(layout, self.slow_minfreespace)


def _whole(text: str, key: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise LayoutError(
            LayoutErrorKind.BAD_VALUE, key, f"{text!r} is not a whole number"
        ) from None


def draft_from_pool(pool: MergerfsPool, applied: AppliedTiers | None = None) -> Draft:
    """A draft that starts from a live pool: its branches as the slow tier (the user
    adds the cache), its mountpoint kept for the tiered pool (programs already use it)
    and its options as mergerfs reports them now (xattrs), not as fstab says. A pool
    tierdeck applied (``applied``, app/layout/applied) keeps its cache and slow pool."""
    try:
        options = pool_options_of(pool)
    except LayoutError:  # an option this mergerfs spells in a way tierdeck cannot read
        options = PoolOptions()
    slow_pool = pool.mountpoint.rstrip("/") + "-slow"
    if applied is not None:
        slow_pool = applied.slow_pool or ""
    mover = applied.mover if applied and applied.mover else MoverPolicy((), "")
    health = applied.health if applied else None
    return Draft(
        cache=applied.cache if applied else (),
        slow=applied.slow if applied else tuple(Branch(b.path, b.mode) for b in pool.branches),
        pool=pool.mountpoint,
        slow_pool=slow_pool,
        create=options.create,
        minfreespace=mergerfs_size(options.minfreespace_bytes),
        min_age=str(mover.min_age_days),
        age_basis=mover.age_basis,
        fill_high=str(mover.fill_high_pct),
        fill_low=str(mover.fill_low_pct),
        exclude=" ".join(mover.exclude),
        schedule=mover.schedule,
        health_schedule=health.schedule if health else "",
        prometheus=(health.prometheus or "") if health else DEFAULT_PROMETHEUS_FILE,
        base=options,
    )


def _media(disks: list[Disk | None]) -> str:
    kinds = set()
    for disk in disks:
        if disk is None or disk.rotational is None or disk.kind is DiskKind.VIRTUAL:
            kinds.add("?")
        else:
            kinds.add("HDD" if disk.rotational else "SSD")
    if not kinds:
        return "?"
    return kinds.pop() if len(kinds) == 1 else "mixed"


def _is_candidate(mount: Mount) -> bool:
    if mount.fs_type in _RAM and any(
        mount.mountpoint == top or mount.mountpoint.startswith(top + "/") for top in _SYSTEM_TREES
    ):
        return False
    return mount.fs_type not in _NOT_BRANCHES and bool(mount.size_bytes)


def candidates(inv: Inventory) -> tuple[Candidate, ...]:
    """The inventory's mounts that could be branches, by path."""
    # One walk for every mount (relation_map), not one per mount: 6 ms instead of 38 on
    # the 240-disk host, before the screen's first paint.
    under = relation_map(inv)["mounts"]
    disks_by_name = {d.name: d for d in inv.disks}
    out = []
    for mount in sorted(inv.mounts, key=lambda m: m.mountpoint):
        if not _is_candidate(mount):
            continue
        disks = tuple(under.get(mount.mountpoint, ()))
        out.append(
            Candidate(
                mount.mountpoint,
                mount.fs_type,
                mount.size_bytes,
                mount.avail_bytes,
                disks,
                "RAM"
                if mount.fs_type in _RAM
                else _media([disks_by_name.get(name) for name in disks]),
            )
        )
    return tuple(out)


@dataclass(frozen=True)
class Evaluation:
    """What the screen shows for a draft: ``problem`` when there is no Layout yet."""

    layout: Layout | None
    problem: str | None
    problem_field: str | None = None  # the Draft field at fault, for an inline error
    results: tuple[RuleResult, ...] = ()
    placements: dict[SimPolicy, Placement] = field(default_factory=dict)
    chosen: SimPolicy | None = None
    file_size: int | None = None
    size_problem: str | None = None  # the file size typed is not a size
    fstab: tuple[str, ...] = ()
    fstab_problem: str | None = None  # a path fstab or systemd cannot hold
    fills: tuple[CacheFill, ...] = ()  # the cache branches' fill now
    mover: MoverPolicy | None = None  # the mover as typed, even without a layout yet


def _mover_as_typed(draft: Draft) -> MoverPolicy | None:
    try:
        return draft.mover(destination="")
    except LayoutError:
        return None


def evaluate(draft: Draft, inv: Inventory, host: Host) -> Evaluation:
    fills = cache_fills(inv, draft.cache)
    try:
        layout = draft.layout()
    except LayoutError as exc:
        field_ = FIELD_OF_KEY.get(exc.key or "")
        return Evaluation(None, str(exc), field_, fills=fills, mover=_mover_as_typed(draft))
    except ParseError as exc:  # a size: minfreespace or slow_minfreespace (its source)
        field_ = exc.source if exc.source in TEXT_FIELDS else "minfreespace"
        return Evaluation(None, str(exc), field_, fills=fills, mover=_mover_as_typed(draft))
    facts = branch_facts(inv, host, [b.path for b in layout.tiered_branches()])
    results = check_layout(layout, facts)
    try:
        fstab, fstab_problem = layout_outputs(layout).fstab, None
    except OutputError as exc:
        fstab, fstab_problem = (), str(exc)
    out = Evaluation(layout, None, None, results, fstab=fstab, fstab_problem=fstab_problem,
                     fills=fills, mover=layout.mover)  # fmt: skip
    try:
        size = parse_size(draft.file_size.strip(), "file size")
    except ParseError as exc:
        return dataclasses.replace(out, size_problem=str(exc))
    options = layout.tiered_pool.options
    free = {p: (f.size_bytes, f.free_bytes) if f.size_bytes is not None and
            f.free_bytes is not None else None for p, f in facts.items()}  # fmt: skip
    # A branch of unknown free space is left out, as `layout simulate` does; the
    # branch-mounted rule already says which.
    branches, _ = simulation_branches(layout, free)
    placements = simulate_all(branches, size, options.minfreespace_bytes)
    # The two enums spell the same mergerfs names; the simulator's is 2.33's own list.
    chosen = SimPolicy(options.create.value)
    return dataclasses.replace(out, placements=placements, chosen=chosen, file_size=size)
