"""A cache/slow tier layout: what tierdeck plans, checks, simulates and applies.

The shape is the mergerfs documentation's "tiered cache" recipe (extended usage
patterns): two pools and a mover.

- the **tiered pool** lists the cache branches first, then the slow branches; programs
  use it, so new files land on the cache while it has room;
- the **slow pool** holds only the slow branches; the mover copies into it, so files
  leave the cache and never come back through the tiered pool;
- the **mover** empties the cache *branches* (never a pool: moving from a pool that also
  shows the destination's files can delete the only copy) into the slow pool, by age and
  by how full the cache is, on a systemd timer;
- optionally a **health check** on a timer of its own (``HealthTimer``): `tierdeck check`
  keeping each collection's readings (the cache SSD's wear forecast needs them over
  time) and writing node_exporter's textfile.

Pure data: no I/O, no Textual. Files go through core/layout/toml_format.py, checks through
core/layout/rules.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from ..errors import ParseError, TierdeckError
from ..mergerfs_policy import CreatePolicy  # the simulator's: one list of mergerfs's policies
from ..models import BranchMode
from ..units import parse_size

__all__ = [
    "AgeBasis",
    "Branch",
    "BranchMode",
    "CacheFiles",
    "CreatePolicy",
    "DEFAULT_PROMETHEUS_FILE",
    "HealthTimer",
    "Layout",
    "LayoutError",
    "LayoutErrorKind",
    "MoverPolicy",
    "PoolOptions",
    "PoolSpec",
    "TYPED_OPTION_KEYS",
    "default_layout",
    "parse_pool_options",
]

GIB = 1024**3


class LayoutErrorKind(StrEnum):
    SYNTAX = "syntax"  # not TOML at all
    FORMAT = "format"  # TOML, but not tierdeck.layout/1
    MISSING = "missing"  # a required key is absent
    WRONG_TYPE = "wrong-type"  # a string where a number belongs ...
    BAD_VALUE = "bad-value"  # right type, impossible value (an unknown policy, 120 %)
    UNKNOWN_KEY = "unknown-key"  # a typo would otherwise be ignored silently


class LayoutError(TierdeckError):
    """A layout that cannot be built or read. ``key`` is the dotted key at fault
    ("tiered_pool.options.create"), None when the whole file is."""

    def __init__(self, kind: LayoutErrorKind, key: str | None, detail: str) -> None:
        where = f"{key}: " if key else ""
        super().__init__(f"layout: {where}{detail}")
        self.kind = kind
        self.key = key
        self.detail = detail


class CacheFiles(StrEnum):
    """mergerfs ``cache.files`` (2.33.5's README)."""

    LIBFUSE = "libfuse"
    OFF = "off"
    PARTIAL = "partial"
    FULL = "full"
    AUTO_FULL = "auto-full"


class AgeBasis(StrEnum):
    """Which timestamp makes a cached file old: the mergerfs movers use atime (last
    read), which keeps what is still being watched on the cache; mtime suits mounts
    with noatime, where atime never moves."""

    ATIME = "atime"
    MTIME = "mtime"


# The options PoolOptions types; `other` must not repeat them (a second value would
# silently win or lose depending on mergerfs's parsing order).
TYPED_OPTION_KEYS = frozenset(
    {
        "category.create",
        "func.create",
        "minfreespace",
        "moveonenospc",
        "cache.files",
        "dropcacheonclose",
        "fsname",
    }
)


@dataclass(frozen=True)
class Branch:
    """One mergerfs branch: a directory and its mode in a pool."""

    path: str
    mode: BranchMode = BranchMode.RW


@dataclass(frozen=True)
class PoolOptions:
    """The mergerfs options tierdeck understands, and the rest as text.

    ``moveonenospc`` is a bool or the policy that picks the new branch (mergerfs:
    ``true`` means mfs). ``other`` holds every further option as written in fstab
    ("allow_other", "inodecalc=path-hash"), in order.
    """

    create: CreatePolicy = CreatePolicy.FF
    minfreespace_bytes: int = 4 * GIB  # mergerfs's own default
    moveonenospc: bool | CreatePolicy = True
    cache_files: CacheFiles = CacheFiles.OFF
    dropcacheonclose: bool = True
    fsname: str = "mergerfs"
    other: tuple[str, ...] = ("allow_other",)

    def __post_init__(self) -> None:
        if self.minfreespace_bytes < 0:
            raise LayoutError(LayoutErrorKind.BAD_VALUE, "minfreespace", "must not be negative")
        if not self.fsname or any(c in self.fsname for c in ", \t\n="):
            raise LayoutError(
                LayoutErrorKind.BAD_VALUE, "fsname", f"{self.fsname!r} cannot go in a mount option"
            )
        for option in self.other:
            key = option.split("=", 1)[0].strip()
            if not key or any(c in option for c in ", \t\n"):
                raise LayoutError(LayoutErrorKind.BAD_VALUE, "other", f"not one option: {option!r}")
            if key in TYPED_OPTION_KEYS:
                raise LayoutError(
                    LayoutErrorKind.BAD_VALUE, "other", f"{key} has its own setting; set it there"
                )


@dataclass(frozen=True)
class PoolSpec:
    mountpoint: str
    options: PoolOptions = field(default_factory=PoolOptions)


@dataclass(frozen=True)
class MoverPolicy:
    """What the mover moves, from where to where, and when.

    A file moves when it is older than ``min_age_days`` (by ``age_basis``); while a cache
    branch is fuller than ``fill_high_pct`` the oldest files move, whatever their age,
    until it is down to ``fill_low_pct``. ``schedule`` is a systemd OnCalendar= value.
    """

    source: tuple[str, ...]  # cache branches it empties
    destination: str  # where their files go: the slow pool (or a slow branch)
    min_age_days: int = 1
    age_basis: AgeBasis = AgeBasis.ATIME
    fill_high_pct: int = 80
    fill_low_pct: int = 60
    exclude: tuple[str, ...] = ()  # globs relative to a cache branch: "*.partial", "incoming/*"
    schedule: str = "hourly"

    def __post_init__(self) -> None:
        if self.min_age_days < 0:
            raise LayoutError(LayoutErrorKind.BAD_VALUE, "min_age_days", "must not be negative")
        if not 0 < self.fill_high_pct <= 100:
            raise LayoutError(LayoutErrorKind.BAD_VALUE, "fill_high_pct", "must be 1..100")
        if not 0 <= self.fill_low_pct < self.fill_high_pct:
            raise LayoutError(
                LayoutErrorKind.BAD_VALUE, "fill_low_pct", "must be 0..fill_high_pct-1"
            )
        if not self.schedule.strip() or "\n" in self.schedule:
            raise LayoutError(LayoutErrorKind.BAD_VALUE, "schedule", "one OnCalendar= line")


# node_exporter's textfile folder as Debian's and Ubuntu's prometheus-node-exporter
# package starts it (--collector.textfile.directory in /etc/default/prometheus-node-exporter);
# the collector reads the *.prom files there
DEFAULT_PROMETHEUS_FILE = "/var/lib/prometheus/node-exporter/tierdeck.prom"


@dataclass(frozen=True)
class HealthTimer:
    """The health check's timer: on ``schedule`` (a systemd OnCalendar= value), `tierdeck
    check` over the layout, keeping the readings as `tierdeck health` does, and writing
    the figures to ``prometheus`` for node_exporter's textfile collector (None: no file).
    """

    schedule: str = "hourly"
    prometheus: str | None = DEFAULT_PROMETHEUS_FILE

    def __post_init__(self) -> None:
        if not self.schedule.strip() or "\n" in self.schedule:
            raise LayoutError(LayoutErrorKind.BAD_VALUE, "schedule", "one OnCalendar= line")
        path = self.prometheus
        if path is None:
            return
        if not path.startswith("/") or any(ord(c) < 0x20 for c in path):
            raise LayoutError(LayoutErrorKind.BAD_VALUE, "prometheus",
                              f"{path!r} is not an absolute path")  # fmt: skip
        if not path.endswith(".prom") or path.endswith("/.prom"):
            raise LayoutError(LayoutErrorKind.BAD_VALUE, "prometheus",
                              "node_exporter's textfile collector reads only *.prom files")  # fmt: skip


@dataclass(frozen=True)
class Layout:
    """A cache tier, a slow tier, their two pools and the mover (and, if asked, a health
    check timer: ``health``, None without one).

    The slow branches' modes are their modes in the tiered pool: NC there keeps new
    files off the slow tier entirely (the recipe's option). In the slow pool NC becomes
    RW, because the mover must create files there; RO stays RO.
    """

    cache: tuple[str, ...]
    slow: tuple[Branch, ...]
    tiered_pool: PoolSpec
    slow_pool: PoolSpec | None
    mover: MoverPolicy
    health: HealthTimer | None = None

    def __post_init__(self) -> None:
        if not self.cache:
            raise LayoutError(LayoutErrorKind.MISSING, "cache", "at least one cache branch")
        if not self.slow:
            raise LayoutError(LayoutErrorKind.MISSING, "slow", "at least one slow branch")
        named = [("cache", p) for p in self.cache] + [("slow", b.path) for b in self.slow]
        named.append(("tiered_pool.mountpoint", self.tiered_pool.mountpoint))
        if self.slow_pool is not None:
            named.append(("slow_pool.mountpoint", self.slow_pool.mountpoint))
        for key, path in named:
            # fstab and unit files are line-based: a control character would split one.
            if not path.startswith("/") or any(ord(c) < 0x20 for c in path):
                raise LayoutError(
                    LayoutErrorKind.BAD_VALUE, key, f"{path!r} is not an absolute path"
                )

    def tiered_branches(self) -> tuple[Branch, ...]:
        """The tiered pool's branches in mergerfs order: cache first (always RW)."""
        return (*(Branch(p, BranchMode.RW) for p in self.cache), *self.slow)

    def slow_branches(self) -> tuple[Branch, ...]:
        """The slow pool's branches: the slow tier with NC lifted (see the class doc)."""
        return tuple(
            Branch(b.path, BranchMode.RW if b.mode is BranchMode.NC else b.mode) for b in self.slow
        )

    def pools(self) -> tuple[tuple[PoolSpec, tuple[Branch, ...]], ...]:
        """Each pool with its branches: the tiered pool, then the slow pool if any."""
        tiered = ((self.tiered_pool, self.tiered_branches()),)
        if self.slow_pool is None:
            return tiered
        return (*tiered, (self.slow_pool, self.slow_branches()))


def default_layout(
    cache: tuple[str, ...],
    slow: tuple[Branch, ...],
    pool: str,
    slow_pool: str | None = None,
) -> Layout:
    """The recipe's layout for these branches: ff on the tiered pool (first found, so the
    cache branches listed first take new files while they have minfreespace free), mfs on
    the slow pool (spreads what the mover brings), and a mover from every cache branch
    to the slow pool, or to the one slow branch when there is no slow pool."""
    if slow_pool is not None:
        destination = slow_pool
    elif len(slow) == 1:
        destination = slow[0].path
    else:
        raise LayoutError(
            LayoutErrorKind.MISSING, "slow_pool", "several slow branches need a slow pool"
        )
    return Layout(
        cache=cache,
        slow=slow,
        tiered_pool=PoolSpec(pool, PoolOptions(fsname="tiered")),
        slow_pool=(
            PoolSpec(slow_pool, PoolOptions(create=CreatePolicy.MFS, fsname="slow"))
            if slow_pool
            else None
        ),
        mover=MoverPolicy(source=cache, destination=destination),
    )


def _flag(key: str, value: str) -> bool:
    if value in ("true", "1", ""):
        return True
    if value in ("false", "0"):
        return False
    raise LayoutError(LayoutErrorKind.BAD_VALUE, key, f"{value!r} is not true or false")


def _policy(key: str, value: str) -> CreatePolicy:
    try:
        return CreatePolicy(value)
    except ValueError:
        raise LayoutError(LayoutErrorKind.BAD_VALUE, key, f"no create policy {value!r}") from None


def parse_pool_options(text: str) -> PoolOptions:
    """The options field of a mergerfs fstab line (or ``-o``) as PoolOptions: the typed
    ones parsed, every other option kept as written, in order. Options not given take
    mergerfs's defaults (minfreespace 4G, moveonenospc off, cache.files libfuse,
    dropcacheonclose off, fsname "mergerfs"), not tierdeck's, so an existing pool reads
    as what it does."""
    create = CreatePolicy.EPMFS  # mergerfs's default category.create
    minfreespace = 4 * GIB
    moveonenospc: bool | CreatePolicy = False
    cache_files = CacheFiles.LIBFUSE
    dropcacheonclose = False
    fsname = "mergerfs"
    other: list[str] = []
    for option in (o.strip() for o in text.split(",")):
        if not option:
            continue
        key, _, value = option.partition("=")
        if key in ("category.create", "func.create"):
            create = _policy(key, value)
        elif key == "minfreespace":
            try:
                minfreespace = parse_size(value, key)
            except ParseError as exc:
                raise LayoutError(LayoutErrorKind.BAD_VALUE, key, exc.detail) from None
        elif key == "moveonenospc":
            is_flag = value in ("true", "false", "1", "0", "")
            moveonenospc = _flag(key, value) if is_flag else _policy(key, value)
        elif key == "cache.files":
            try:
                cache_files = CacheFiles(value)
            except ValueError:
                raise LayoutError(LayoutErrorKind.BAD_VALUE, key, f"{value!r}") from None
        elif key == "dropcacheonclose":
            dropcacheonclose = _flag(key, value)
        elif key == "fsname":
            fsname = value
        else:
            other.append(option)
    return PoolOptions(
        create, minfreespace, moveonenospc, cache_files, dropcacheonclose, fsname, tuple(other)
    )
