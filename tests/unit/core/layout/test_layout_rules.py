"""Each layout rule passes the recipe's layout and fails on the layout it guards against;
the facts come from the demo NAS (seed 000's machine, recorded)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from tierdeck.app.layout.facts import branch_facts
from tierdeck.app.machine.demo import load_demo_host
from tierdeck.app.machine.inventory import collect_inventory
from tierdeck.core.layout.branch_facts import BranchFacts, Redundancy
from tierdeck.core.layout.model import (
    Branch,
    BranchMode,
    CreatePolicy,
    Layout,
    PoolOptions,
    PoolSpec,
)
from tierdeck.core.layout.rules import (
    RuleId,
    RuleResult,
    RuleSeverity,
    check_layout,
    create_policy_placement,
    has_errors,
)

from .test_layout_toml import seed_layout

GIB = 1024**3


@pytest.fixture(scope="module")
def demo_facts() -> dict[str, BranchFacts]:
    host = load_demo_host()
    inv = collect_inventory(host)
    return branch_facts(inv, host, ["/cache", "/mnt/disk1", "/mnt/disk2", "/srv/cache", "/boot"])


def good() -> Layout:
    """Seed 000's NAS laid out by the recipe: ff in front, the mover into the slow pool."""
    layout = seed_layout()
    return replace(
        layout, tiered_pool=replace(layout.tiered_pool, options=PoolOptions(create=CreatePolicy.FF))
    )


def of(results: tuple[RuleResult, ...], rule: RuleId) -> list[RuleSeverity]:
    return [r.severity for r in results if r.rule is rule]


def worst(layout: Layout, rule: RuleId, facts: dict[str, BranchFacts] | None = None) -> str:
    found = of(check_layout(layout, facts), rule)
    assert found, f"{rule} gave no result"
    for level in (RuleSeverity.ERROR, RuleSeverity.WARNING):
        if level in found:
            return level.value
    return "ok"


def test_the_recipe_layout_passes_every_rule(demo_facts: dict[str, BranchFacts]) -> None:
    results = check_layout(good(), demo_facts)
    assert {r.rule for r in results} == set(RuleId)
    assert all(r.severity is RuleSeverity.OK for r in results), [
        r for r in results if r.severity is not RuleSeverity.OK
    ]
    assert not has_errors(results)
    assert all(r.message and r.reason for r in results)


# -- mover source ----------------------------------------------------------------------
@pytest.mark.parametrize("source", ["/mnt/cached", "/mnt/cached/media", "/mnt/slow-storage"])
def test_mover_from_a_pool_is_an_error(source: str) -> None:
    layout = replace(good(), mover=replace(good().mover, source=(source,)))
    results = check_layout(layout)
    assert RuleSeverity.ERROR in of(results, RuleId.MOVER_SOURCE)
    assert any("pool" in r.message and "delete" in r.reason for r in results)


def test_mover_from_a_slow_branch_is_an_error() -> None:
    layout = replace(good(), mover=replace(good().mover, source=("/mnt/disk1",)))
    assert worst(layout, RuleId.MOVER_SOURCE) == "error"


def test_a_cache_branch_the_mover_never_empties_is_a_warning() -> None:
    layout = replace(good(), cache=("/cache", "/cache2"))
    assert worst(layout, RuleId.MOVER_SOURCE) == "warning"


# -- mover destination -----------------------------------------------------------------
@pytest.mark.parametrize(
    ("destination", "expected"),
    [
        ("/mnt/cached", "error"),  # the tiered pool: files come back to the cache
        ("/mnt/cached/archive", "error"),
        ("/cache", "error"),
        ("/srv/elsewhere", "error"),
        ("/mnt/slow-storage", "ok"),
        ("/mnt/disk2", "ok"),
    ],
)
def test_mover_destination(destination: str, expected: str) -> None:
    layout = replace(good(), mover=replace(good().mover, destination=destination))
    assert worst(layout, RuleId.MOVER_DESTINATION) == expected


def test_a_read_only_slow_tier_cannot_take_the_movers_files() -> None:
    slow = (Branch("/mnt/disk1", BranchMode.RO), Branch("/mnt/disk2", BranchMode.RO))
    assert worst(replace(good(), slow=slow), RuleId.MOVER_DESTINATION) == "error"
    # NC is lifted in the slow pool: the mover can still create there.
    slow = (Branch("/mnt/disk1", BranchMode.NC), Branch("/mnt/disk2", BranchMode.NC))
    assert worst(replace(good(), slow=slow), RuleId.MOVER_DESTINATION) == "ok"


# -- create policy ---------------------------------------------------------------------
def with_create(policy: CreatePolicy, layout: Layout | None = None) -> Layout:
    layout = layout or good()
    options = replace(layout.tiered_pool.options, create=policy)
    return replace(layout, tiered_pool=replace(layout.tiered_pool, options=options))


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        (CreatePolicy.FF, "ok"),
        (CreatePolicy.ALL, "ok"),
        (CreatePolicy.LFS, "warning"),  # seed 000's cache pool: only while the cache is emptiest
        (CreatePolicy.LUS, "warning"),
        (CreatePolicy.EPFF, "warning"),
        (CreatePolicy.MFS, "error"),
        (CreatePolicy.EPLUS, "error"),  # seed 000's slow pool policy
        (CreatePolicy.PFRD, "error"),
        (CreatePolicy.RAND, "error"),
        (CreatePolicy.EROFS, "error"),
    ],
)
def test_create_policy_sends_new_files_to_the_cache_first(
    policy: CreatePolicy, expected: str
) -> None:
    assert worst(with_create(policy), RuleId.CREATE_CACHE_FIRST) == expected


def test_every_policy_is_classified_with_a_reason() -> None:
    for policy in CreatePolicy:
        results = [
            r for r in check_layout(with_create(policy)) if r.rule is RuleId.CREATE_CACHE_FIRST
        ]
        assert results[0].reason
        assert create_policy_placement(policy) in RuleSeverity


def test_nc_slow_branches_keep_any_policy_on_the_cache() -> None:
    nc = (Branch("/mnt/disk1", BranchMode.NC), Branch("/mnt/disk2", BranchMode.NC))
    layout = with_create(CreatePolicy.MFS, replace(good(), slow=nc))
    assert worst(layout, RuleId.CREATE_CACHE_FIRST) == "ok"


# -- minfreespace and watermarks -------------------------------------------------------
def with_minfree(size: int, layout: Layout | None = None) -> Layout:
    layout = layout or good()
    options = replace(layout.tiered_pool.options, minfreespace_bytes=size)
    return replace(layout, tiered_pool=replace(layout.tiered_pool, options=options))


def test_minfreespace_as_large_as_the_cache_is_an_error(demo_facts: dict) -> None:
    # Seed 000's slow pool used 300G; its ZFS cache is 231G: nothing would land on it.
    assert worst(with_minfree(300 * GIB), RuleId.MINFREESPACE, demo_facts) == "error"


def test_watermarks_that_start_the_mover_too_late_are_a_warning(demo_facts: dict) -> None:
    # 231G cache, minfreespace 100G: full at 131G used (57%), the mover waits for 80%.
    assert worst(with_minfree(100 * GIB), RuleId.MINFREESPACE, demo_facts) == "warning"
    layout = with_minfree(100 * GIB)
    layout = replace(layout, mover=replace(layout.mover, fill_high_pct=50, fill_low_pct=30))
    assert worst(layout, RuleId.MINFREESPACE, demo_facts) == "ok"


def test_minfreespace_unknown_cache_size_is_not_passed() -> None:
    assert worst(good(), RuleId.MINFREESPACE, None) == "warning"


# -- branch placement and duplicates ---------------------------------------------------
@pytest.mark.parametrize(
    ("cache", "pool"),
    [
        ("/mnt/cached", "/mnt/cached"),  # the branch is the mountpoint
        ("/mnt/cached/ssd", "/mnt/cached"),  # under it
        ("/mnt", "/mnt/cached"),  # the pool inside the branch
    ],
)
def test_a_branch_at_or_around_the_pool_is_an_error(cache: str, pool: str) -> None:
    layout = replace(
        good(),
        cache=(cache,),
        tiered_pool=replace(good().tiered_pool, mountpoint=pool),
        mover=replace(good().mover, source=(cache,)),
    )
    assert worst(layout, RuleId.BRANCH_PLACEMENT) == "error"


def test_overlapping_pools_are_an_error() -> None:
    layout = replace(good(), slow_pool=PoolSpec("/mnt/cached/slow"))
    assert worst(layout, RuleId.BRANCH_PLACEMENT) == "error"


@pytest.mark.parametrize(
    "slow",
    [
        (Branch("/mnt/disk1"), Branch("/mnt/disk1/")),
        (Branch("/cache"), Branch("/mnt/disk2")),  # the cache listed as slow too
        (Branch("/mnt/disk1"), Branch("/mnt/disk1/sub")),
    ],
)
def test_a_branch_listed_twice_is_an_error(slow: tuple[Branch, ...]) -> None:
    assert worst(replace(good(), slow=slow), RuleId.BRANCH_DUPLICATE) == "error"


def test_two_branches_on_one_filesystem_are_a_warning(demo_facts: dict) -> None:
    # The demo's two data disks, with /mnt/disk2 said to be on disk1's filesystem.
    facts = dict(demo_facts)
    facts["/mnt/disk2"] = replace(facts["/mnt/disk2"], fs_id=facts["/mnt/disk1"].fs_id)
    assert worst(good(), RuleId.SAME_FILESYSTEM, facts) == "warning"
    assert worst(good(), RuleId.SAME_FILESYSTEM, demo_facts) == "ok"


# -- mounted, existing -----------------------------------------------------------------
def test_a_branch_on_the_root_filesystem_is_an_error(demo_facts: dict) -> None:
    # /srv/cache on the demo NAS is a folder of / : its disk is not mounted.
    layout = replace(
        good(), cache=("/srv/cache",), mover=replace(good().mover, source=("/srv/cache",))
    )
    results = [r for r in check_layout(layout, demo_facts) if r.rule is RuleId.BRANCH_MOUNTED]
    assert [r.severity for r in results] == [RuleSeverity.ERROR]
    assert "/srv/cache" in results[0].message


def test_a_missing_branch_is_an_error(demo_facts: dict) -> None:
    facts = dict(demo_facts)
    facts["/mnt/disk1"] = replace(facts["/mnt/disk1"], exists=False)
    assert worst(good(), RuleId.BRANCH_MOUNTED, facts) == "error"


def test_without_facts_the_branches_are_not_passed() -> None:
    assert worst(good(), RuleId.BRANCH_MOUNTED, None) == "warning"


# -- redundancy ------------------------------------------------------------------------
def test_a_cache_without_redundancy_is_a_warning_not_an_error(demo_facts: dict) -> None:
    # /mnt/disk1 is one ext4 disk: as a cache it holds the only copy of new files.
    layout = replace(
        good(),
        cache=("/mnt/disk1",),
        slow=(Branch("/mnt/disk2"),),
        mover=replace(good().mover, source=("/mnt/disk1",)),
    )
    assert worst(layout, RuleId.CACHE_REDUNDANCY, demo_facts) == "warning"
    assert worst(good(), RuleId.CACHE_REDUNDANCY, demo_facts) == "ok"  # the ZFS mirror


# -- facts from the recorded demo NAS --------------------------------------------------
def test_facts_of_the_demo_nas(demo_facts: dict[str, BranchFacts]) -> None:
    cache = demo_facts["/cache"]
    assert (cache.exists, cache.mount_point, cache.fs_type) == (True, "/cache", "zfs")
    assert cache.redundancy is Redundancy.MIRROR
    assert cache.devices == ("nvme0n1", "sdb")
    assert cache.size_bytes == 247562960384
    disk1 = demo_facts["/mnt/disk1"]
    assert (disk1.fs_type, disk1.fs_id, disk1.devices) == ("ext4", "8:64", ("sde",))
    assert disk1.redundancy is Redundancy.NONE
    # a recording holds mounts, not folders: a plain folder is unknown, not missing
    assert demo_facts["/srv/cache"].exists is None
    assert demo_facts["/srv/cache"].mount_point == "/"
