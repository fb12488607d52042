"""core/mover.py: which cached files move (age, fill, exclusions) and where to."""

from __future__ import annotations

import dataclasses
import posixpath
import random

from hypothesis import example, given, settings
from hypothesis import strategies as st
from tierdeck.core.layout.destination import Destination, destination_of
from tierdeck.core.layout.model import AgeBasis, Branch, CreatePolicy, MoverPolicy, default_layout
from tierdeck.core.mergerfs_policy import CreateErrno
from tierdeck.core.models import BranchMode
from tierdeck.core.mover import (
    DAY,
    CachedFile,
    CacheUsage,
    MoveReason,
    Selected,
    SlowSpace,
    excluded,
    forecast_seconds,
    place,
    select_files,
)

NOW = 1_700_000_000.0
GIB = 1024**3


def cf(
    rel: str, days_old: float, size: int = 100, *, branch: str = "/cache", **kw: object
) -> CachedFile:
    t = NOW - days_old * DAY
    return CachedFile(branch, rel, size, atime=t, mtime=t, **kw)


def policy(**kw: object) -> MoverPolicy:
    return MoverPolicy(source=("/cache",), destination="/mnt/slow", **kw)


def rels(selected: tuple[Selected, ...]) -> list[tuple[str, MoveReason]]:
    return [(s.file.rel, s.reason) for s in selected]


def test_age_selects_files_older_than_min_age_oldest_first() -> None:
    files = [cf("new", 0.5), cf("old", 10), cf("older", 20), cf("edge", 3)]
    got = select_files(files, policy(min_age_days=3), {}, NOW)
    assert rels(got) == [
        ("older", MoveReason.AGE),
        ("old", MoveReason.AGE),
        ("edge", MoveReason.AGE),
    ]


def test_min_age_override_and_zero_moves_everything() -> None:
    files = [cf("a", 0.1), cf("b", 5)]
    assert len(select_files(files, policy(min_age_days=30), {}, NOW, min_age_days=0)) == 2
    assert select_files(files, policy(min_age_days=1), {}, NOW, min_age_days=30) == ()


def test_age_basis_mtime_ignores_atime() -> None:
    read_today = dataclasses.replace(cf("watched", 10), atime=NOW)
    p_atime, p_mtime = policy(min_age_days=1), policy(min_age_days=1, age_basis=AgeBasis.MTIME)
    assert select_files([read_today], p_atime, {}, NOW) == ()
    assert rels(select_files([read_today], p_mtime, {}, NOW)) == [("watched", MoveReason.AGE)]


def test_exclusion_globs_match_the_relative_path_and_directories() -> None:
    globs = ("*.partial", "incoming", "tmp/*")
    assert excluded("tv/a.partial", globs)
    assert excluded("incoming/x/y.mkv", globs)
    assert excluded("tmp/a/b", globs)
    assert not excluded("tv/incoming.mkv", globs)
    assert not excluded("tv/a.mkv", globs)
    files = [cf("tv/a.partial", 9), cf("tv/a.mkv", 9), cf("incoming/b", 9)]
    got = select_files(files, policy(exclude=globs), {}, NOW)
    assert rels(got) == [("tv/a.mkv", MoveReason.AGE)]


def test_fill_moves_oldest_until_below_low_watermark() -> None:
    # 90 % full of 1000 bytes: down to 60 % means 300 bytes go.
    use = {"/cache": CacheUsage("/cache", used_bytes=900, avail_bytes=100)}
    files = [cf(f"f{i}", days_old=0.5 - i * 0.01, size=100) for i in range(9)]
    got = select_files(files, policy(min_age_days=30), use, NOW)
    assert rels(got) == [("f0", MoveReason.FILL), ("f1", MoveReason.FILL), ("f2", MoveReason.FILL)]


def test_fill_counts_age_moves_and_ignores_hard_links() -> None:
    use = {"/cache": CacheUsage("/cache", used_bytes=900, avail_bytes=100)}
    files = [
        cf("aged", 40, size=200),
        cf("linked", 0.9, size=500, nlink=2),
        cf("young1", 0.8),
        cf("young2", 0.7),
    ]
    got = select_files(files, policy(min_age_days=30), use, NOW)
    # 300 to free: aged gives 200, the hard link frees nothing, young1 the last 100.
    assert rels(got) == [
        ("aged", MoveReason.AGE),
        ("linked", MoveReason.FILL),
        ("young1", MoveReason.FILL),
    ]


def test_fill_below_high_watermark_moves_nothing() -> None:
    use = {"/cache": CacheUsage("/cache", used_bytes=800, avail_bytes=200)}  # 80 %: not above
    assert select_files([cf("a", 0.1)], policy(min_age_days=30), use, NOW) == ()


def test_fill_is_per_branch() -> None:
    use = {
        "/c1": CacheUsage("/c1", used_bytes=95, avail_bytes=5),
        "/c2": CacheUsage("/c2", used_bytes=10, avail_bytes=90),
    }
    files = [cf("a", 0.1, 50, branch="/c1"), cf("b", 0.2, 50, branch="/c2")]
    got = select_files(files, policy(min_age_days=30), use, NOW)
    assert [(s.file.branch, s.file.rel) for s in got] == [("/c1", "a")]


def dest(*paths: str, pol: CreatePolicy = CreatePolicy.MFS, mfs: int = 0) -> Destination:
    return Destination(paths, pol, mfs)


def sel(*files: CachedFile) -> list[Selected]:
    return [Selected(f, MoveReason.AGE) for f in files]


def test_place_mfs_spreads_and_tracks_space() -> None:
    space = {"/d1": SlowSpace("/d1", 250, 0), "/d2": SlowSpace("/d2", 200, 0)}
    plan = place(sel(cf("a", 9, 100), cf("b", 9, 100), cf("c", 9, 100)), dest("/d1", "/d2"), space)
    # mfs: d1 (250), then d2 (200 > 150), then d1 (150 vs 100)
    assert [m.destination for m in plan.moves] == ["/d1", "/d2", "/d1"]
    assert plan.unplaced == () and plan.bytes_total == 300


def test_place_minfreespace_and_full_tier() -> None:
    space = {"/d1": SlowSpace("/d1", 150, 0)}
    # a (120) would leave 30 bytes, below minfreespace: it stays; b (10) leaves 140.
    plan = place(sel(cf("a", 9, 120), cf("b", 9, 10)), dest("/d1", mfs=40), space)
    assert [m.file.rel for m in plan.moves] == ["b"]
    assert [(u.file.rel, u.error) for u in plan.unplaced] == [("a", None)]
    # Already below minfreespace: d1 refuses every file outright.
    low = place(sel(cf("c", 9, 1)), dest("/d1", mfs=200), space)
    assert [(u.file.rel, u.error) for u in low.unplaced] == [("c", CreateErrno.ENOSPC)]


def test_one_slow_branch_is_never_filled_below_minfreespace() -> None:
    # Three 600 MiB files, 5 GiB free, minfreespace 4 GiB: only one leaves 4 GiB free.
    mib = 1024**2
    files = sel(*(cf(f"f{i}", 9, 600 * mib) for i in range(3)))
    for branches in (("/d1",), ("/d1", "/d2")):
        space = {p: SlowSpace(p, 5 * GIB if p == "/d1" else 0, 0) for p in branches}
        for fast in (True, False):
            plan = place(files, dest(*branches, mfs=4 * GIB), space, fast=fast)
            assert [m.file.rel for m in plan.moves] == ["f0"], (branches, fast)


def test_forecast_counts_allocated_blocks_not_bytes() -> None:
    # 600 one-byte files (4 KiB each on disk) in 1 MiB: 256 fit, not 600.
    files = sel(*(cf(f"f{i}", 9, 1, allocated=4096) for i in range(600)))
    space = {"/d1": SlowSpace("/d1", 2**20, 0, block_size=4096)}
    for fast in (True, False):
        assert len(place(files, dest("/d1", mfs=0), space, fast=fast).moves) == 256
    # The destination's blocks round up what the source allocates: 1 KiB blocks
    # there, 4 KiB blocks here; a sparse file takes its data blocks, not its size.
    small = CachedFile("/c", "x", 1, 0.0, 0.0, allocated=1024)
    assert small.on_disk(4096) == 4096 and small.on_disk(1024) == 1024
    sparse = CachedFile("/c", "s", 10 * GIB, 0.0, 0.0, allocated=8192)
    assert sparse.on_disk(4096) == 8192
    inline = CachedFile("/c", "i", 10, 0.0, 0.0, allocated=0)  # btrfs keeps it in the inode
    assert inline.on_disk(4096) == 4096


def test_place_skips_a_branch_too_small_for_the_file() -> None:
    # ff picks d1 first, but the file does not fit there: d2 takes it.
    space = {"/d1": SlowSpace("/d1", 50, 0), "/d2": SlowSpace("/d2", 500, 0)}
    plan = place(sel(cf("big", 9, 100)), dest("/d1", "/d2", pol=CreatePolicy.FF), space)
    assert [m.destination for m in plan.moves] == ["/d2"]
    one = place(sel(cf("big", 9, 100)), dest("/d1", pol=CreatePolicy.FF), {"/d1": space["/d1"]})
    assert [(u.file.rel, u.error) for u in one.unplaced] == [("big", None)]


def test_place_read_only_filesystem_refused() -> None:
    space = {"/d1": SlowSpace("/d1", 500, 0, readonly_fs=True)}
    plan = place(sel(cf("a", 9)), dest("/d1"), space)
    assert plan.unplaced[0].error is CreateErrno.EROFS


def test_place_existing_path_policy_follows_the_parent_and_what_the_plan_made() -> None:
    space = {"/d1": SlowSpace("/d1", 500, 0), "/d2": SlowSpace("/d2", 900, 0)}
    on_disk = {("/d1", "tv/show")}

    def missing(branch: str, parent: str) -> int:
        n, d = 0, parent
        while d and (branch, d) not in on_disk:
            n, d = n + 1, d.rpartition("/")[0]
        return n

    files = sel(cf("tv/show/e1", 9), cf("films/x/y", 9), cf("films/x/z", 9))
    plan = place(files, dest("/d1", "/d2", pol=CreatePolicy.EPMFS), space, missing_dirs=missing)
    # e1: only d1 has tv/show. films/x exists nowhere: climbing to the root, mfs picks
    # d2; z then follows y to d2 (its parent is now there).
    assert [m.destination for m in plan.moves] == ["/d1", "/d2", "/d2"]


def test_place_random_policy_is_repeatable_with_a_seed() -> None:
    space = {f"/d{i}": SlowSpace(f"/d{i}", 10_000, 0) for i in range(4)}
    files = sel(*(cf(f"f{i}", 9, 10) for i in range(20)))
    first = place(files, dest(*space, pol=CreatePolicy.PFRD), space, rng=random.Random(7))
    again = place(files, dest(*space, pol=CreatePolicy.PFRD), space, rng=random.Random(7))
    assert first == again
    assert len({m.destination for m in first.moves}) > 1


def test_destination_of_slow_pool_and_single_branch() -> None:
    lay = default_layout(
        ("/mnt/cache",),
        (Branch("/mnt/d1"), Branch("/mnt/d2", BranchMode.NC), Branch("/mnt/d3", BranchMode.RO)),
        "/mnt/pool",
        "/mnt/slow",
    )
    d = destination_of(lay)
    assert d.branches == ("/mnt/d1", "/mnt/d2") and d.policy is CreatePolicy.MFS
    sub = dataclasses.replace(
        lay, mover=dataclasses.replace(lay.mover, destination="/mnt/slow/media")
    )
    assert destination_of(sub).branches == ("/mnt/d1/media", "/mnt/d2/media")
    one = default_layout(("/mnt/cache",), (Branch("/mnt/d1"),), "/mnt/pool")
    # No slow pool to say otherwise: mergerfs's default minfreespace is kept free.
    assert destination_of(one) == Destination(("/mnt/d1",), CreatePolicy.FF, 4 * GIB)


def test_forecast() -> None:
    assert forecast_seconds(1000, 100.0) == 10.0
    assert forecast_seconds(1000, None) is None
    assert forecast_seconds(1000, 0.0) is None


files_st = st.lists(
    st.builds(
        lambda rel, age, size, nlink: cf(rel, age, size, nlink=nlink),
        st.text("ab/*.", min_size=1, max_size=6).filter(lambda r: not r.startswith("/")),
        st.floats(0, 60),
        st.integers(0, 500),
        st.integers(1, 2),
    ),
    max_size=25,
    unique_by=lambda f: f.rel,
)


@settings(max_examples=200, deadline=None)
@given(
    files_st,
    st.integers(0, 1000),
    st.integers(0, 1000),
    st.integers(0, 40),
    st.lists(st.sampled_from(["a*", "*b", "a/*", "?"]), max_size=2),
)
def test_selection_properties(
    files: list[CachedFile], used: int, avail: int, days: int, globs: list[str]
) -> None:
    pol = policy(min_age_days=days, exclude=tuple(globs))
    use = CacheUsage("/cache", used, avail)
    got = select_files(files, pol, {"/cache": use}, NOW)
    stamps = [s.file.atime for s in got]
    assert stamps == sorted(stamps)
    assert len({s.file.rel for s in got}) == len(got)
    for s in got:
        assert not excluded(s.file.rel, pol.exclude)
        if s.reason is MoveReason.AGE:
            assert s.file.atime <= NOW - days * DAY
    if use.fill_pct > pol.fill_high_pct:
        freed = sum(s.file.size for s in got if s.file.nlink == 1)
        left = [
            f for f in files if not excluded(f.rel, pol.exclude) and f not in {s.file for s in got}
        ]
        assert freed >= use.bytes_above(pol.fill_low_pct) or all(
            f.nlink > 1 or f.size == 0 for f in left
        )


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(0, 300), max_size=20),
    st.lists(st.integers(0, 600), min_size=1, max_size=4),
    st.sampled_from(list(CreatePolicy)),
    st.integers(0, 100),
)
def test_place_properties(sizes: list[int], avails: list[int], pol: CreatePolicy, mfs: int) -> None:
    space = {f"/d{i}": SlowSpace(f"/d{i}", a, 0) for i, a in enumerate(avails)}
    files = sel(*(cf(f"f{i}", 9, s) for i, s in enumerate(sizes)))
    plan = place(files, dest(*space, pol=pol, mfs=mfs), space)
    placed = [m.file.rel for m in plan.moves] + [u.file.rel for u in plan.unplaced]
    assert sorted(placed) == sorted(s.file.rel for s in files)
    for path, sp in space.items():
        taken = sum(m.file.size for m in plan.moves if m.destination == path)
        assert taken == 0 or taken <= sp.avail_bytes - mfs
    if pol is CreatePolicy.EROFS:
        assert plan.moves == ()


_DIRS = st.sampled_from(["", "a", "a/b", "a/b/c", "x", "x/y"])
_SMALL = st.sampled_from([0, 1, 2])  # the edges: no free space, empty files


@settings(max_examples=400, deadline=None)
# The edges random draws seldom reach: pfrd on one branch with no free space at all,
# and path-preserving policies on the one branch that has the parent.
@example([("", 0)], [(0, 0, False, 1)], CreatePolicy.PFRD, 0, frozenset(), 0)
@example([("", 0)], [(0, 0, False, 1)], CreatePolicy.MSPPFRD, 0, frozenset(), 0)
@example(
    [("a", 1)], [(9, 0, False, 1), (9, 0, False, 1)], CreatePolicy.EPFF, 0, frozenset({(1, "a")}), 0
)
@example(
    [("a", 1)],
    [(9, 0, False, 1), (9, 0, False, 1)],
    CreatePolicy.NEWEST,
    0,
    frozenset({(0, "a")}),
    0,
)
@given(
    st.lists(st.tuples(_DIRS, _SMALL | st.integers(0, 300)), max_size=25),
    st.lists(
        st.tuples(
            _SMALL | st.integers(0, 600),
            st.integers(0, 500),
            st.booleans(),
            st.sampled_from([1, 1, 8, 64]),
        ),
        min_size=1,
        max_size=4,
    ),  # fmt: skip
    st.sampled_from(list(CreatePolicy)),
    _SMALL | st.integers(0, 100),
    st.frozensets(st.tuples(st.integers(0, 3), _DIRS)),
    st.integers(0, 2**32),
)
def test_place_fast_paths_answer_as_the_simulator(
    files: list[tuple[str, int]],
    branches: list[tuple[int, int, bool, int]],
    pol: CreatePolicy,
    mfs: int,
    on_disk: frozenset[tuple[int, str]],
    seed: int,
) -> None:
    # The shortcuts (one branch decided without the simulator; no missing-directory
    # counts for path-free policies; PolicyBranch kept across files) change nothing.
    space = {f"/d{i}": SlowSpace(f"/d{i}", a, u, readonly_fs=ro, block_size=blk)
             for i, (a, u, ro, blk) in enumerate(branches)}  # fmt: skip
    present = {(f"/d{i}", d) for i, d in on_disk}

    def missing(branch: str, parent: str) -> int:
        n, d = 0, parent
        while d and (branch, d) not in present:
            n, d = n + 1, posixpath.dirname(d)
        return n

    selected = sel(*(cf(posixpath.join(d, f"f{i}"), 9, size) for i, (d, size) in enumerate(files)))
    where = dest(*space, pol=pol, mfs=mfs)
    slow = place(selected, where, space, missing_dirs=missing, rng=random.Random(seed), fast=False)
    quick = place(selected, where, space, missing_dirs=missing, rng=random.Random(seed))
    assert quick == slow
