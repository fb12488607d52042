"""Every pool's minfreespace against its branches' free space, and slow branches the
mover cannot write: with slow branches smaller than the slow pool's minfreespace (4G by
mergerfs's default) every other rule said ok and the mover then placed nothing."""

from __future__ import annotations

from dataclasses import replace

from tierdeck.core.layout.branch_facts import BranchFacts
from tierdeck.core.layout.model import Layout
from tierdeck.core.layout.rules import RuleId, RuleSeverity, check_layout

from .test_layout_rules import GIB, demo_facts, good, worst  # noqa: F401  (a fixture)

MIB = 1024**2


def with_free(facts: dict[str, BranchFacts], **free: int) -> dict[str, BranchFacts]:
    """``disk1=...``: the demo facts with those slow branches' free space."""
    out = dict(facts)
    for name, value in free.items():
        path = f"/mnt/{name}"
        out[path] = replace(facts[path], free_bytes=value)
    return out


def slow_minfree(size: int) -> Layout:
    layout = good()
    assert layout.slow_pool is not None
    options = replace(layout.slow_pool.options, minfreespace_bytes=size)
    return replace(layout, slow_pool=replace(layout.slow_pool, options=options))


def results(layout: Layout, facts: dict[str, BranchFacts]) -> list[tuple[str, str]]:
    return [(r.severity.value, r.message) for r in check_layout(layout, facts)
            if r.rule is RuleId.POOL_FREE_SPACE]  # fmt: skip


def test_slow_branches_below_the_slow_pools_minfreespace_are_an_error(
    demo_facts: dict[str, BranchFacts],  # noqa: F811
) -> None:
    facts = with_free(demo_facts, disk1=900 * MIB, disk2=1 * GIB)
    found = results(slow_minfree(4 * GIB), facts)
    assert ("error", "no branch of the pool /mnt/slow-storage has its minfreespace 4.0G "
            "free: /mnt/disk1 (900M free), /mnt/disk2 (1.0G free)") in found  # fmt: skip
    # the tiered pool still has the cache: its slow branches are only a warning there
    assert [s for s, m in found if "/mnt/cached" in m] == ["warning"]
    found = results(slow_minfree(10 * MIB), facts)
    assert [s for s, m in found if "/mnt/slow-storage" in m] == ["ok"]


def test_some_slow_branches_below_it_are_a_warning_naming_them(
    demo_facts: dict[str, BranchFacts],  # noqa: F811
) -> None:
    facts = with_free(demo_facts, disk1=900 * MIB)
    found = results(slow_minfree(4 * GIB), facts)
    assert ("warning", "in the pool /mnt/slow-storage, /mnt/disk1 (900M free) cannot take "
            "new files (minfreespace 4.0G)") in found  # fmt: skip


def test_unknown_free_space_is_not_passed() -> None:
    assert worst(good(), RuleId.POOL_FREE_SPACE, None) == "warning"


def test_a_slow_branch_mounted_read_only_is_a_warning_all_of_them_an_error(
    demo_facts: dict[str, BranchFacts],  # noqa: F811
) -> None:
    facts = dict(demo_facts)
    facts["/mnt/disk1"] = replace(facts["/mnt/disk1"], read_only=True)
    assert worst(good(), RuleId.SLOW_WRITABLE, facts) == "warning"
    facts["/mnt/disk2"] = replace(facts["/mnt/disk2"], read_only=True)
    found = [r for r in check_layout(good(), facts) if r.rule is RuleId.SLOW_WRITABLE]
    assert [r.severity for r in found][-1] is RuleSeverity.ERROR
    assert "mounted read-only" in found[0].message and "EROFS" in found[0].reason
    assert worst(good(), RuleId.SLOW_WRITABLE, demo_facts) == "ok"
