"""The checks of a layout, each with a message (what) and a reason (why it matters).

Rules that need the machine (does a branch exist, how big is the cache, what is under
it) take ``BranchFacts`` (branch_facts.py) per path, filled by app/layout/facts.py from
the inventory;
without facts for a path they say so as a warning instead of guessing.

``check_layout`` runs every rule; each ``check_*`` is public so the compose screen can
show one rule's results beside the field it is about.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from ..units import format_bytes
from .branch_facts import Facts, Redundancy
from .create_policies import CACHE_FIRST, SOMETIMES_CACHE, create_policy_why
from .model import Branch, BranchMode, CreatePolicy, Layout, PoolSpec


class RuleId(StrEnum):
    MOVER_SOURCE = "mover-source"
    MOVER_DESTINATION = "mover-destination"
    CREATE_CACHE_FIRST = "create-cache-first"
    MINFREESPACE = "minfreespace"
    BRANCH_PLACEMENT = "branch-placement"  # not the pool's mountpoint, not under it
    BRANCH_DUPLICATE = "branch-duplicate"
    SAME_FILESYSTEM = "same-filesystem"
    BRANCH_MOUNTED = "branch-mounted"
    CACHE_REDUNDANCY = "cache-redundancy"
    POOL_FREE_SPACE = "pool-free-space"  # each pool's minfreespace against its branches' free
    SLOW_WRITABLE = "slow-writable"  # the mover can create files on the slow branches


class RuleSeverity(StrEnum):
    ERROR = "error"  # the layout loses data or does not do what it is for
    WARNING = "warning"  # it works, with a risk or a cost the user should know
    OK = "ok"


@dataclass(frozen=True)
class RuleResult:
    rule: RuleId
    severity: RuleSeverity
    message: str  # what was found, naming the path or value
    reason: str  # why it matters


def create_policy_placement(policy: CreatePolicy) -> RuleSeverity:
    """OK: always the cache first; WARNING: the cache only under conditions; ERROR: not."""
    if policy in CACHE_FIRST:
        return RuleSeverity.OK
    if policy in SOMETIMES_CACHE:
        return RuleSeverity.WARNING
    return RuleSeverity.ERROR


def _norm(path: str) -> str:
    return posixpath.normpath(path) if path else path


def _within(path: str, top: str) -> bool:
    """``path`` is ``top`` or under it (by path, not by following links)."""
    path, top = _norm(path), _norm(top)
    return path == top or path.startswith(top.rstrip("/") + "/")


def _result(rule: RuleId, severity: RuleSeverity, message: str, reason: str) -> RuleResult:
    return RuleResult(rule, severity, message, reason)


def _found_or_ok(
    out: list[RuleResult], rule: RuleId, message: str, reason: str
) -> tuple[RuleResult, ...]:
    """What a rule found, or, where it found nothing, one OK result saying what holds."""
    return tuple(out) if out else (_result(rule, RuleSeverity.OK, message, reason),)


def _mountpoints(layout: Layout) -> tuple[str, ...]:
    return tuple(pool.mountpoint for pool, _ in layout.pools())


# -- the rules -------------------------------------------------------------------------
def check_mover_source(layout: Layout) -> tuple[RuleResult, ...]:
    rule = RuleId.MOVER_SOURCE
    out: list[RuleResult] = []
    cache = {_norm(p) for p in layout.cache}
    for source in layout.mover.source:
        pool = next((m for m in _mountpoints(layout) if _within(source, m)), None)
        if pool is not None:
            out.append(
                _result(
                    rule,
                    RuleSeverity.ERROR,
                    f"the mover moves from {source}, which is in the pool {pool}",
                    "a pool also shows the slow tier's copy of each file: moving a file from "
                    "the pool to the slow tier can copy it onto itself and then delete it",
                )
            )
        elif _norm(source) not in cache:
            out.append(
                _result(
                    rule,
                    RuleSeverity.ERROR,
                    f"the mover moves from {source}, which is not a cache branch",
                    "the mover empties the cache tier; from anywhere else it moves the wrong files",
                )
            )
    missed = [p for p in layout.cache if _norm(p) not in {_norm(s) for s in layout.mover.source}]
    for path in missed:
        out.append(
            _result(
                rule,
                RuleSeverity.WARNING,
                f"the mover never empties the cache branch {path}",
                "new files keep landing there until it is full; then they go to the slow tier "
                "directly",
            )
        )
    return _found_or_ok(
        out,
        rule,
        "the mover moves from the cache branches: " + ", ".join(layout.mover.source),
        "moving from the branches themselves, not through a pool, never touches the "
        "slow tier's copies",
    )


def check_mover_destination(layout: Layout) -> tuple[RuleResult, ...]:
    rule = RuleId.MOVER_DESTINATION
    dest = layout.mover.destination
    tiered = layout.tiered_pool.mountpoint
    if _within(dest, tiered):
        return (
            _result(
                rule,
                RuleSeverity.ERROR,
                f"the mover moves into {dest}, the tiered pool",
                "the tiered pool puts new files on the cache first: moved files would come "
                "straight back to the cache (or onto themselves)",
            ),
        )
    cache_hit = next((c for c in layout.cache if _within(dest, c) or _within(c, dest)), None)
    if cache_hit is not None:
        return (
            _result(
                rule,
                RuleSeverity.ERROR,
                f"the mover moves into {dest}, which holds the cache branch {cache_hit}",
                "files would stay on (or return to) the cache",
            ),
        )
    if layout.slow_pool is not None and _within(dest, layout.slow_pool.mountpoint):
        if all(b.mode is BranchMode.RO for b in layout.slow_branches()):
            return (
                _result(
                    rule,
                    RuleSeverity.ERROR,
                    f"every branch of the slow pool {layout.slow_pool.mountpoint} is read-only",
                    "the mover could not create a single file there",
                ),
            )
        return (
            _result(
                rule,
                RuleSeverity.OK,
                f"the mover moves into the slow pool {dest}",
                "the slow pool holds only slow branches: moved files stay on the slow tier",
            ),
        )
    slow = next((b for b in layout.slow if _within(dest, b.path)), None)
    if slow is not None:
        if slow.mode is BranchMode.RO:
            return (
                _result(
                    rule,
                    RuleSeverity.ERROR,
                    f"the mover moves into {dest}, read-only",
                    "the mover could not create a single file there",
                ),
            )
        return (
            _result(
                rule,
                RuleSeverity.OK,
                f"the mover moves into the slow branch {dest}",
                "moved files stay on the slow tier",
            ),
        )
    return (
        _result(
            rule,
            RuleSeverity.ERROR,
            f"the mover moves into {dest}, which is not on the slow tier",
            "the slow tier is where cached files belong; anywhere else they leave the pool",
        ),
    )


def check_create_policy(layout: Layout) -> tuple[RuleResult, ...]:
    rule = RuleId.CREATE_CACHE_FIRST
    policy = layout.tiered_pool.options.create
    if policy is CreatePolicy.EROFS:
        return (
            _result(
                rule,
                RuleSeverity.ERROR,
                "the tiered pool's create policy is erofs",
                create_policy_why(policy),
            ),
        )
    if all(b.mode is not BranchMode.RW for b in layout.slow):
        return (
            _result(
                rule,
                RuleSeverity.OK,
                f"{policy} with every slow branch NC or RO: new files can only go to the cache",
                "when the cache is full, writes fail with 'no space left' until the mover "
                "runs; that shows a mover that cannot keep up",
            ),
        )
    severity = create_policy_placement(policy)
    message = {
        RuleSeverity.OK: f"{policy} sends new files to the cache first",
        RuleSeverity.WARNING: f"{policy} sends new files to the cache only sometimes",
        RuleSeverity.ERROR: f"{policy} does not send new files to the cache first",
    }[severity]
    hint = "" if severity is RuleSeverity.OK else "; ff (or slow branches set NC) always does"
    return (_result(rule, severity, message, create_policy_why(policy) + hint),)


def check_minfreespace(layout: Layout, facts: Facts | None) -> tuple[RuleResult, ...]:
    rule = RuleId.MINFREESPACE
    minfree = layout.tiered_pool.options.minfreespace_bytes
    high = layout.mover.fill_high_pct
    out: list[RuleResult] = []
    for path in layout.cache:
        fact = (facts or {}).get(path)
        if fact is None or fact.size_bytes is None:
            out.append(
                _result(
                    rule,
                    RuleSeverity.WARNING,
                    f"not checked: the size of {path} is unknown",
                    "minfreespace at or above the cache's size keeps every file off it",
                )
            )
            continue
        size = fact.size_bytes
        if minfree >= size:
            out.append(
                _result(
                    rule,
                    RuleSeverity.ERROR,
                    f"minfreespace {format_bytes(minfree)} is not below the size of {path} "
                    f"({format_bytes(size)})",
                    "mergerfs skips a branch with less free space than minfreespace: no new "
                    "file would ever land on the cache",
                )
            )
        elif size * high // 100 > size - minfree:
            out.append(
                _result(
                    rule,
                    RuleSeverity.WARNING,
                    f"{path} stops taking files at {format_bytes(size - minfree)} used, before the "
                    f"mover's {high}% ({format_bytes(size * high // 100)})",
                    "new files overflow to the slow tier before the mover starts to make room; "
                    "lower fill_high_pct or minfreespace",
                )
            )
        else:
            out.append(
                _result(
                    rule,
                    RuleSeverity.OK,
                    f"{path} ({format_bytes(size)}): the mover starts at {high}%, before "
                    f"minfreespace {format_bytes(minfree)} is reached",
                    "the mover makes room before new files must overflow to the slow tier",
                )
            )
    return tuple(out)


def check_branch_placement(layout: Layout) -> tuple[RuleResult, ...]:
    rule = RuleId.BRANCH_PLACEMENT
    out: list[RuleResult] = []
    pools = layout.pools()
    for pool, _ in pools:
        for branch in (*layout.cache, *(b.path for b in layout.slow)):
            if _within(branch, pool.mountpoint):
                out.append(
                    _result(
                        rule,
                        RuleSeverity.ERROR,
                        f"the branch {branch} is in the pool {pool.mountpoint}",
                        "a pool cannot hold its own branches: the mount hides the branch, and "
                        "mergerfs would read through itself",
                    )
                )
            elif _within(pool.mountpoint, branch):
                out.append(
                    _result(
                        rule,
                        RuleSeverity.ERROR,
                        f"the pool {pool.mountpoint} is inside the branch {branch}",
                        "the pool would show itself inside itself: backups, du and the mover "
                        "walk it without end",
                    )
                )
    if len(pools) == 2 and (
        _within(pools[0][0].mountpoint, pools[1][0].mountpoint)
        or _within(pools[1][0].mountpoint, pools[0][0].mountpoint)
    ):
        out.append(
            _result(
                rule,
                RuleSeverity.ERROR,
                f"the pools {pools[0][0].mountpoint} and {pools[1][0].mountpoint} overlap",
                "one mount would hide the other",
            )
        )
    return _found_or_ok(
        out,
        rule,
        "no branch is in a pool or holds one",
        "each pool reads its branches directly",
    )


def check_branch_duplicates(layout: Layout) -> tuple[RuleResult, ...]:
    rule = RuleId.BRANCH_DUPLICATE
    paths = [*layout.cache, *(b.path for b in layout.slow)]
    out: list[RuleResult] = []
    for i, first in enumerate(paths):
        for second in paths[i + 1 :]:
            if _norm(first) == _norm(second):
                out.append(
                    _result(
                        rule,
                        RuleSeverity.ERROR,
                        f"the branch {first} is listed twice",
                        "each file would show twice, and a move between them deletes it",
                    )
                )
            elif _within(first, second) or _within(second, first):
                out.append(
                    _result(
                        rule,
                        RuleSeverity.ERROR,
                        f"the branches {first} and {second} are one inside the other",
                        "the files of the inner one would show twice, and moving between them "
                        "deletes them",
                    )
                )
    return _found_or_ok(
        out,
        rule,
        "every branch is listed once",
        "each file has one place in the pool",
    )


def check_same_filesystem(layout: Layout, facts: Facts | None) -> tuple[RuleResult, ...]:
    rule = RuleId.SAME_FILESYSTEM
    paths = [*layout.cache, *(b.path for b in layout.slow)]
    seen: dict[str, str] = {}
    out: list[RuleResult] = []
    for path in paths:
        fact = (facts or {}).get(path)
        if fact is None or fact.fs_id is None:
            continue
        other = seen.setdefault(fact.fs_id, path)
        if other != path:
            out.append(
                _result(
                    rule,
                    RuleSeverity.WARNING,
                    f"the branches {other} and {path} are on the same filesystem ({fact.fs_id})",
                    "mergerfs counts its free space twice, and moving between them gains nothing",
                )
            )
    return _found_or_ok(
        out,
        rule,
        "each branch is a filesystem of its own",
        "free space and speed are per filesystem",
    )


def check_branches_mounted(layout: Layout, facts: Facts | None) -> tuple[RuleResult, ...]:
    rule = RuleId.BRANCH_MOUNTED
    out: list[RuleResult] = []
    for path in (*layout.cache, *(b.path for b in layout.slow)):
        fact = (facts or {}).get(path)
        if fact is None:
            out.append(
                _result(
                    rule,
                    RuleSeverity.WARNING,
                    f"not checked: nothing known of {path}",
                    "a branch that is not mounted takes files onto the disk underneath",
                )
            )
        elif fact.exists is False:
            out.append(
                _result(
                    rule,
                    RuleSeverity.ERROR,
                    f"{path} does not exist",
                    "mergerfs skips a missing branch: the pool would lack it silently",
                )
            )
        elif fact.mount_point is None or (fact.mount_point == "/" and _norm(path) != "/"):
            out.append(
                _result(
                    rule,
                    RuleSeverity.ERROR,
                    f"{path} is on the root filesystem, not on a filesystem of its own",
                    "its disk is not mounted (or not in fstab): files would fill the system "
                    "disk and vanish behind the mount when the disk comes back",
                )
            )
        elif fact.fs_type == "fuse.mergerfs":
            out.append(
                _result(
                    rule,
                    RuleSeverity.WARNING,
                    f"{path} is itself a mergerfs pool",
                    "mergerfs advises against nesting pools: each level adds latency",
                )
            )
        elif fact.exists is None:
            out.append(
                _result(
                    rule,
                    RuleSeverity.WARNING,
                    f"{path} is on {fact.mount_point}; whether the folder exists is unknown",
                    "a recorded host holds mounts, not folders",
                )
            )
    return _found_or_ok(
        out,
        rule,
        "every branch is on a mounted filesystem",
        "files land on the disks meant for them",
    )


def check_cache_redundancy(layout: Layout, facts: Facts | None) -> tuple[RuleResult, ...]:
    rule = RuleId.CACHE_REDUNDANCY
    reason = (
        "new files exist only on the cache until the mover runs: without redundancy one "
        "failed cache device loses them"
    )
    out: list[RuleResult] = []
    for path in layout.cache:
        fact = (facts or {}).get(path)
        level = fact.redundancy if fact is not None else Redundancy.UNKNOWN
        if level is Redundancy.NONE:
            out.append(
                _result(
                    rule, RuleSeverity.WARNING, f"the cache branch {path} has no redundancy", reason
                )
            )
        elif level is Redundancy.UNKNOWN:
            out.append(
                _result(
                    rule,
                    RuleSeverity.WARNING,
                    f"the redundancy of the cache branch {path} is unknown",
                    reason,
                )
            )
        else:
            out.append(
                _result(
                    rule,
                    RuleSeverity.OK,
                    f"the cache branch {path} is on a {level} ({', '.join(fact.devices) if fact else ''})",
                    "one failed cache device loses nothing",
                )
            )
    return tuple(out)


def _pool_free_space(
    pool: PoolSpec, branches: tuple[Branch, ...], facts: Facts | None
) -> RuleResult:
    rule, mp = RuleId.POOL_FREE_SPACE, pool.mountpoint
    minfree = pool.options.minfreespace_bytes
    writable = [b.path for b in branches if b.mode is BranchMode.RW]
    free = {p: f.free_bytes for p in writable if (f := (facts or {}).get(p)) is not None}
    unknown = [p for p in writable if free.get(p) is None]
    short = [p for p in writable if (n := free.get(p)) is not None and n < minfree]
    setting = f"minfreespace {format_bytes(minfree)}"
    skips = "mergerfs creates no file on a branch with less free space than minfreespace"
    listed = ", ".join(f"{p} ({format_bytes(free[p] or 0)} free)" for p in short)
    if writable and len(short) == len(writable):
        return _result(rule, RuleSeverity.ERROR,
                       f"no branch of the pool {mp} has its {setting} free: {listed}",
                       f"{skips}: every new file there fails with 'no space left' (ENOSPC) "
                       "and a mover into it places nothing; lower the pool's minfreespace "
                       "or make room")  # fmt: skip
    if short:
        return _result(rule, RuleSeverity.WARNING,
                       f"in the pool {mp}, {listed} cannot take new files ({setting})",
                       f"{skips}: new files go to the pool's other branches only")  # fmt: skip
    if unknown:
        return _result(rule, RuleSeverity.WARNING,
                       f"not checked: the free space of {', '.join(unknown)} is unknown "
                       f"(pool {mp}, {setting})", skips)  # fmt: skip
    return _result(rule, RuleSeverity.OK,
                   f"every writable branch of the pool {mp} has more than its {setting} free",
                   "each can take new files now")  # fmt: skip


def check_pool_free_space(layout: Layout, facts: Facts | None) -> tuple[RuleResult, ...]:
    """Each pool's minfreespace against its writable branches' free space now."""
    return tuple(_pool_free_space(pool, branches, facts) for pool, branches in layout.pools())


def check_slow_writable(layout: Layout, facts: Facts | None) -> tuple[RuleResult, ...]:
    """The mover creates files on the slow branches: one set RO, or on a filesystem
    mounted read-only, takes none (EROFS); none writable at all is an error."""
    rule = RuleId.SLOW_WRITABLE
    out: list[RuleResult] = []
    for branch in layout.slow_branches():
        fact = (facts or {}).get(branch.path)
        if fact is not None and fact.read_only:
            what = f"the slow branch {branch.path} is on a filesystem mounted read-only"
        elif branch.mode is BranchMode.RO:
            what = f"the slow branch {branch.path} is RO in the layout"
        else:
            continue
        out.append(_result(rule, RuleSeverity.WARNING, what,
                           "the mover places no file there (EROFS, read-only file system); "
                           "remount it rw or drop it from the slow tier"))  # fmt: skip
    # All of them RO in the layout is mover-destination's error already.
    mounted_ro = any(f.read_only for b in layout.slow if (f := (facts or {}).get(b.path)))
    if mounted_ro and len(out) == len(layout.slow_branches()):
        out.append(_result(rule, RuleSeverity.ERROR, "no slow branch can take a file",
                           "the mover can move nothing off the cache"))  # fmt: skip
    return _found_or_ok(out, rule, "every slow branch takes files",
                        "none is RO or mounted read-only")  # fmt: skip


_STATIC: tuple[Callable[[Layout], tuple[RuleResult, ...]], ...] = (
    check_mover_source,
    check_mover_destination,
    check_create_policy,
    check_branch_placement,
    check_branch_duplicates,
)
_WITH_FACTS: tuple[Callable[[Layout, Facts | None], tuple[RuleResult, ...]], ...] = (
    check_minfreespace,
    check_same_filesystem,
    check_branches_mounted,
    check_cache_redundancy,
    check_pool_free_space,
    check_slow_writable,
)


def check_layout(layout: Layout, facts: Facts | None = None) -> tuple[RuleResult, ...]:
    """Every rule's results, in RuleId order. ``facts`` by branch path."""
    results = [r for check in _STATIC for r in check(layout)]
    results += [r for check in _WITH_FACTS for r in check(layout, facts)]
    order = list(RuleId)
    return tuple(sorted(results, key=lambda r: order.index(r.rule)))


def has_errors(results: tuple[RuleResult, ...]) -> bool:
    return any(r.severity is RuleSeverity.ERROR for r in results)
