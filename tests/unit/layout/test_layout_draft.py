"""The compose screen's draft (app/layout/draft): candidate branches from the demo NAS
(seed 000, recorded), picking tiers and modes, a draft from a live pool, and what
``evaluate`` says for a draft that is not a layout yet, a bad size, and a good one."""

from __future__ import annotations

import pytest
from tierdeck.app.layout.draft import Draft, candidates, draft_from_pool, evaluate
from tierdeck.app.machine.demo import load_demo_host
from tierdeck.app.machine.inventory import collect_inventory
from tierdeck.backends.host import RecordedHost
from tierdeck.core.layout.model import Branch, BranchMode, CacheFiles, CreatePolicy
from tierdeck.core.layout.rules import RuleId, RuleSeverity
from tierdeck.core.mergerfs_policy import CreatePolicy as SimPolicy
from tierdeck.core.models import Inventory

GIB = 1024**3


@pytest.fixture(scope="module")
def demo() -> tuple[Inventory, RecordedHost]:
    host = load_demo_host()
    return collect_inventory(host), host


def test_candidates_are_the_real_filesystems_with_their_disks(
    demo: tuple[Inventory, RecordedHost],
) -> None:
    inv, _ = demo
    found = {c.path: c for c in candidates(inv)}
    # tmpfs, snaps (squashfs) and the mergerfs pools themselves cannot be branches
    assert not {"/run", "/dev/shm", "/snap/core20/1634", "/mnt/cached"} & set(found)
    assert {"/cache", "/mnt/disk1", "/mnt/disk2", "/mnt/parity1"} <= set(found)
    cache = found["/cache"]
    assert (cache.fs_type, cache.disks, cache.size_bytes) == ("zfs", ("nvme0n1", "sdb"),
                                                              247562960384)  # fmt: skip
    assert cache.media == "mixed"  # the recording's sdb says rotational, nvme0n1 not
    assert found["/mnt/disk1"].media == "HDD"
    assert list(found) == sorted(found)


def test_tiers_move_a_path_and_modes_cycle() -> None:
    draft = Draft().add_slow("/a").add_cache("/b").add_slow("/c")
    assert draft.tier_of("/b") == "cache" and draft.tier_of("/x") == ""
    draft = draft.add_cache("/a")  # from slow to cache: never in both
    assert draft.cache == ("/b", "/a") and draft.slow == (Branch("/c"),)
    modes = []
    for _ in range(3):
        draft = draft.next_mode("/c")
        modes.append(draft.slow[0].mode)
    assert modes == [BranchMode.NC, BranchMode.RO, BranchMode.RW]
    assert draft.without("/a").without("/c").cache == ("/b",)
    assert draft.typed("minfreespace", "20G").minfreespace == "20G"
    with pytest.raises(KeyError):
        draft.typed("cache", "/x")


def test_a_draft_from_the_seed_pool_keeps_its_live_options(
    demo: tuple[Inventory, RecordedHost],
) -> None:
    inv, _ = demo
    pool = next(p for p in inv.mergerfs if p.mountpoint == "/mnt/slow-storage")
    draft = draft_from_pool(pool)
    assert draft.slow == (Branch("/mnt/disk1"), Branch("/mnt/disk2"))
    assert (draft.pool, draft.slow_pool) == ("/mnt/slow-storage", "/mnt/slow-storage-slow")
    assert (draft.create, draft.minfreespace) == (CreatePolicy.EPLUS, "300G")
    assert draft.base.moveonenospc is CreatePolicy.MFS
    assert (draft.base.cache_files, draft.base.dropcacheonclose) == (CacheFiles.OFF, True)
    assert draft.cache == ()


def test_evaluate_says_why_there_is_no_layout_yet(demo: tuple[Inventory, RecordedHost]) -> None:
    inv, host = demo
    empty = evaluate(Draft(), inv, host)
    assert empty.layout is None and empty.results == ()
    assert "at least one cache branch" in (empty.problem or "")
    typo = Draft(cache=("/cache",), slow=(Branch("/mnt/disk1"),), minfreespace="20 gigs")
    assert "not a size" in (evaluate(typo, inv, host).problem or "")


def test_evaluate_checks_simulates_and_writes_fstab(demo: tuple[Inventory, RecordedHost]) -> None:
    inv, host = demo
    draft = Draft(cache=("/cache",), slow=(Branch("/mnt/disk1"), Branch("/mnt/disk2")))
    ok = evaluate(draft.typed("minfreespace", "20G"), inv, host)
    assert ok.layout is not None and ok.problem is None
    assert not [r for r in ok.results if r.severity is RuleSeverity.ERROR]
    assert ok.chosen is SimPolicy.FF and ok.file_size == GIB
    assert ok.placements[SimPolicy.FF].lands_on == "/cache"
    assert ok.placements[SimPolicy.MFS].lands_on == "/mnt/disk2"  # the most free space
    assert len(ok.fstab) == 2 and ok.fstab[0].startswith("/cache=RW:/mnt/disk1=RW:/mnt/disk2=RW ")
    bad = evaluate(draft.typed("minfreespace", "300G"), inv, host)
    assert [r.severity for r in bad.results if r.rule is RuleId.MINFREESPACE] == [
        RuleSeverity.ERROR
    ]
    # over minfreespace the cache is skipped: ff's file goes to the first slow branch
    assert bad.placements[SimPolicy.FF].lands_on == "/mnt/disk1"
    huge = evaluate(draft.typed("file_size", "400G"), inv, host)
    assert huge.placements[SimPolicy.FF].too_small == ("/cache",)
    garbage = evaluate(draft.typed("file_size", "big"), inv, host)
    assert garbage.layout is not None and garbage.placements == {}
    assert "not a size" in (garbage.size_problem or "")
