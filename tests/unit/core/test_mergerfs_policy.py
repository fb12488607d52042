"""The create-policy simulator against mergerfs 2.33.5's policy sources (src/policy_*.cpp)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tierdeck.core.mergerfs_policy import (
    DEFAULT_MINFREESPACE,
    CreateErrno,
    CreatePolicy,
    PolicyBranch,
    Refusal,
    simulate,
    simulate_all,
)
from tierdeck.core.models import BranchMode

MIB = 1024**2
GIB = 1024**3
P = CreatePolicy
RW, RO, NC = BranchMode.RW, BranchMode.RO, BranchMode.NC


def br(path: str, avail: int, used: int = 0, mode: BranchMode = RW, **kw: object) -> PolicyBranch:
    return PolicyBranch(path, mode, avail * GIB, used * GIB, **kw)  # type: ignore[arg-type]


# a: little free, little used; b: most free, most used; c: between on both
POOL = (br("/a", 10, 5), br("/b", 50, 200), br("/c", 30, 20))


def lands(policy: CreatePolicy, branches: tuple[PolicyBranch, ...], **kw: int) -> str | None:
    return simulate(policy, branches, minfreespace=kw.pop("minfreespace", GIB), **kw).lands_on


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        (P.FF, "/a"),
        (P.EPFF, "/a"),
        (P.MFS, "/b"),
        (P.EPMFS, "/b"),
        (P.MSPMFS, "/b"),
        (P.LFS, "/a"),
        (P.EPLFS, "/a"),
        (P.MSPLFS, "/a"),
        (P.LUS, "/a"),
        (P.EPLUS, "/a"),
        (P.MSPLUS, "/a"),
        (P.ALL, "/a"),
        (P.EPALL, "/a"),
    ],
)
def test_deterministic_policies(policy: CreatePolicy, expected: str) -> None:
    assert lands(policy, POOL) == expected


def test_lus_and_lfs_differ_when_the_big_branch_is_fuller() -> None:
    pool = (br("/a", 10, 50), br("/b", 100, 10))
    assert (lands(P.LFS, pool), lands(P.LUS, pool), lands(P.MFS, pool)) == ("/a", "/b", "/b")


def test_ties_last_wins_for_mfs_lfs_newest_first_for_lus() -> None:
    pool = (
        br("/a", 20, 5, parent_mtime=7),
        br("/b", 20, 5, parent_mtime=7),
        br("/c", 20, 5, parent_mtime=7),
    )
    for policy in (P.MFS, P.EPMFS, P.MSPMFS, P.LFS, P.EPLFS, P.MSPLFS, P.NEWEST):
        assert lands(policy, pool) == "/c", policy
    for policy in (P.LUS, P.EPLUS, P.MSPLUS, P.FF, P.EPFF):
        assert lands(policy, pool) == "/a", policy


def test_newest_takes_the_newest_parent_among_eligible() -> None:
    pool = (
        br("/a", 20, parent_mtime=100),
        br("/b", 20, parent_mtime=300, mode=NC),
        br("/c", 20, parent_mtime=200),
        br("/d", 20, parent_mtime=50),
    )
    assert lands(P.NEWEST, pool) == "/c"
    pool_missing = (pool[0], pool[1], br("/c", 20, parent_mtime=200, missing_dirs=1), pool[3])
    assert lands(P.NEWEST, pool_missing) == "/a"


def test_all_returns_every_eligible_branch_and_the_file_goes_to_the_first() -> None:
    pool = (br("/a", 20, mode=RO), br("/b", 20), br("/c", 0), br("/d", 5))
    placement = simulate(P.ALL, pool, minfreespace=GIB)
    assert placement.branches == ("/b", "/d")
    assert (placement.lands_on, placement.candidates, placement.random) == ("/b", ("/b",), False)


def test_minfreespace_global_and_per_branch() -> None:
    pool = (br("/a", 3), br("/b", 8, minfreespace_bytes=10 * GIB), br("/c", 6))
    assert lands(P.FF, pool, minfreespace=4 * GIB) == "/c"
    assert lands(P.FF, pool, minfreespace=2 * GIB) == "/a"
    # a branch's own value overrides the pool's, also downwards
    assert (
        lands(P.MFS, (br("/a", 3, minfreespace_bytes=0), br("/b", 8)), minfreespace=9 * GIB) == "/a"
    )
    # equal to minfreespace is enough (mergerfs refuses only spaceavail < minfreespace)
    assert lands(P.FF, (br("/a", 4),), minfreespace=4 * GIB) == "/a"


def test_default_minfreespace_is_mergerfs_4g_less_one_byte() -> None:
    just = PolicyBranch("/a", RW, DEFAULT_MINFREESPACE, 0)
    assert simulate(P.FF, (just,)).lands_on == "/a"
    short = PolicyBranch("/a", RW, DEFAULT_MINFREESPACE - 1, 0)
    assert simulate(P.FF, (short,)).error is CreateErrno.ENOSPC


def test_ro_nc_and_readonly_filesystems_never_take_new_files() -> None:
    pool = (
        br("/a", 90, mode=RO),
        br("/b", 80, mode=NC),
        br("/c", 70, readonly_fs=True),
        br("/d", 5),
    )
    for policy in set(CreatePolicy) - {P.EROFS}:
        placement = simulate(policy, pool, minfreespace=GIB)
        assert placement.branches == ("/d",), policy
    verdicts = simulate(P.MFS, pool, minfreespace=GIB).verdicts
    assert [v.refusal for v in verdicts] == [Refusal.MODE, Refusal.MODE, Refusal.READONLY_FS, None]


@pytest.mark.parametrize(
    ("pool", "expected"),
    [
        ((), CreateErrno.ENOENT),
        ((br("/a", 0), br("/b", 0)), CreateErrno.ENOSPC),
        ((br("/a", 0), br("/b", 50, mode=NC)), CreateErrno.EROFS),
        ((br("/a", 50, mode=RO), br("/b", 0)), CreateErrno.EROFS),
        ((br("/a", 50, readonly_fs=True), br("/b", 0)), CreateErrno.EROFS),
    ],
)
def test_no_eligible_branch_gives_the_most_serious_errno(
    pool: tuple[PolicyBranch, ...], expected: CreateErrno
) -> None:
    for policy in set(CreatePolicy) - {P.EROFS}:
        placement = simulate(policy, pool, minfreespace=GIB)
        assert (placement.branches, placement.error) == ((), expected), policy
        assert placement.lands_on is None and placement.candidates == ()


def test_ep_policies_need_the_parent_and_say_enoent_before_enospc() -> None:
    pool = (br("/a", 50, missing_dirs=1), br("/b", 0), br("/c", 20, missing_dirs=2))
    assert lands(P.MFS, pool) == "/a"
    for policy in (P.EPFF, P.EPMFS, P.EPLFS, P.EPLUS, P.EPALL, P.NEWEST, P.EPRAND, P.EPPFRD):
        assert simulate(policy, pool, minfreespace=GIB).error is CreateErrno.ENOSPC, policy
    # the parent check comes before the free-space one: a missing parent says ENOENT
    missing_everywhere = (br("/a", 0, missing_dirs=1), br("/b", 50, missing_dirs=1))
    assert simulate(P.EPMFS, missing_everywhere, minfreespace=GIB).error is CreateErrno.ENOENT
    assert CreateErrno.ENOENT.number == 2 and CreateErrno.ENOSPC.number == 28


def test_msp_policies_climb_to_the_closest_existing_directory() -> None:
    pool = (
        br("/a", 50, 10, missing_dirs=2),
        br("/b", 10, 1, missing_dirs=1),
        br("/c", 20, 5, missing_dirs=1),
    )
    mfs = simulate(P.MSPMFS, pool, minfreespace=GIB)
    assert (mfs.lands_on, mfs.levels_up) == ("/c", 1)
    assert lands(P.MSPLFS, pool) == "/b"
    assert lands(P.MSPLUS, pool) == "/b"
    assert simulate(P.MSPPFRD, pool, minfreespace=GIB).branches == ("/b", "/c")
    assert simulate(P.EPMFS, pool, minfreespace=GIB).error is CreateErrno.ENOENT
    # no branch with free space one level up: it climbs again
    full = (br("/a", 50, missing_dirs=2), br("/b", 0, missing_dirs=1))
    assert simulate(P.MSPMFS, full, minfreespace=GIB).levels_up == 2


def test_msppfrd_stops_at_a_level_whose_branches_have_no_free_space() -> None:
    # minfreespace 0 lets a full branch qualify; pfrd then has nothing to draw from
    pool = (br("/a", 50, missing_dirs=1), br("/b", 0))
    placement = simulate(P.MSPPFRD, pool, minfreespace=0)
    assert (placement.branches, placement.error, placement.levels_up) == ((), CreateErrno.ENOENT, 0)


def test_pfrd_shares_follow_free_space() -> None:
    pool = (br("/a", 10), br("/b", 30, mode=NC), br("/c", 30))
    placement = simulate(P.PFRD, pool, minfreespace=GIB)
    assert placement.random and placement.lands_on is None
    assert placement.branches == ("/a", "/c")
    assert placement.shares == pytest.approx((0.25, 0.75))


def test_pfrd_never_picks_what_no_threshold_reaches() -> None:
    # t in [0, sum): a last branch of one byte is never reached; a first empty one is, at t=0
    pool = (
        PolicyBranch("/a", RW, 0, 0),
        PolicyBranch("/b", RW, 5, 0),
        PolicyBranch("/c", RW, 1, 0),
    )
    placement = simulate(P.PFRD, pool, minfreespace=0)
    assert placement.branches == ("/a", "/b")
    assert placement.shares == pytest.approx((1 / 6, 5 / 6))
    assert simulate(P.PFRD, pool[:1], minfreespace=0).error is CreateErrno.ENOENT


def test_rand_picks_any_eligible_branch() -> None:
    pool = (br("/a", 10), br("/b", 0), br("/c", 30))
    placement = simulate(P.RAND, pool, minfreespace=GIB)
    assert (placement.candidates, placement.shares) == (("/a", "/c"), (0.5, 0.5))


def test_erofs_refuses_everything() -> None:
    placement = simulate(P.EROFS, POOL, minfreespace=0)
    assert (placement.branches, placement.error) == ((), CreateErrno.EROFS)


def test_size_is_not_a_criterion_but_too_small_is_reported() -> None:
    placement = simulate(P.LFS, POOL, size_bytes=20 * GIB, minfreespace=GIB)
    assert (placement.lands_on, placement.too_small) == ("/a", ("/a",))
    assert simulate(P.RAND, POOL, size_bytes=20 * GIB, minfreespace=GIB).too_small == ("/a",)
    assert simulate(P.MFS, POOL, size_bytes=20 * GIB, minfreespace=GIB).too_small == ()


def test_simulate_all_answers_every_policy() -> None:
    answers = simulate_all(POOL, 100 * MIB, minfreespace=GIB)
    assert set(answers) == set(CreatePolicy)
    assert {p.value for p in CreatePolicy} >= {
        "ff",
        "mfs",
        "lfs",
        "lus",
        "eplfs",
        "epmfs",
        "eplus",
        "epff",
        "pfrd",
        "rand",
        "newest",
        "all",
    }
    assert all(a.policy is p for p, a in answers.items())


_modes = st.sampled_from(list(BranchMode))
_bytes = st.integers(min_value=0, max_value=2**62)
_branch = st.builds(
    PolicyBranch,
    path=st.text(min_size=1, max_size=8),
    mode=_modes,
    avail_bytes=_bytes,
    used_bytes=_bytes,
    readonly_fs=st.booleans(),
    minfreespace_bytes=st.none() | _bytes,
    missing_dirs=st.integers(min_value=0, max_value=4),
    parent_mtime=st.integers(min_value=-(2**40), max_value=2**40),
)


@settings(max_examples=300, deadline=None)
@given(branches=st.lists(_branch, max_size=8), size=_bytes, minfreespace=_bytes)
def test_any_pool_gives_eligible_branches_or_a_typed_none(
    branches: list[PolicyBranch], size: int, minfreespace: int
) -> None:
    for policy, placement in simulate_all(branches, size, minfreespace).items():
        if not placement.branches:
            assert isinstance(placement.error, CreateErrno)
            assert placement.lands_on is None
            continue
        assert placement.error is None
        eligible = {v.path for v in placement.verdicts if v.refusal is None}
        assert set(placement.branches) <= eligible, policy
        if placement.random:
            assert sum(placement.shares) == pytest.approx(1.0)
        else:
            assert placement.lands_on == placement.branches[0]
