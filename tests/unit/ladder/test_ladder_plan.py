"""What the ladder plans before anything runs (app/ladder/plan.plan_ladder), on the demo
machine with one pool made a classic tiered cache (ff: a cache branch, then two slow
ones): the default job lasts long enough to mean something, O_DIRECT or buffered as
the pool really answers (and the plan says which before running), and a tiered pool
gets a cache and a slow branch rung, the pool measured against the cache."""

from __future__ import annotations

import errno
from collections.abc import Iterator
from dataclasses import replace

import pytest
from tierdeck.app.ladder.plan import (
    BUFFERED_SYNC_EVERY,
    DEFAULT_RUNTIME,
    LadderPlan,
    default_job_text,
    plan_ladder,
)
from tierdeck.app.machine.demo import load_demo_host
from tierdeck.app.machine.inventory import collect_inventory
from tierdeck.backends.host import HostCapabilities, RecordedHost
from tierdeck.core.jobspec import with_overrides
from tierdeck.core.ladder.model import BranchRole, RungKind
from tierdeck.core.models import BranchMode, Inventory, MergerfsBranch

GIB = 1024**3
POOL = "/mnt/cached"
CACHE, HDD0, HDD1 = "/cache", "/mnt/disk1", "/mnt/disk2"


@pytest.fixture
def host(monkeypatch: pytest.MonkeyPatch) -> Iterator[RecordedHost]:
    monkeypatch.setattr(
        RecordedHost, "capabilities", property(lambda self: HostCapabilities(True, True, False))
    )
    yield load_demo_host()


def tiered(inventory: Inventory, policy: str = "ff") -> Inventory:
    """The demo's /mnt/cached as mergerfs's tiered-cache recipe: cache first, then HDDs."""
    pool = next(p for p in inventory.mergerfs if p.mountpoint == POOL)
    branches = (
        MergerfsBranch(CACHE, BranchMode.RW, None, 200 * GIB, 150 * GIB),
        MergerfsBranch(HDD0, BranchMode.RW, None, 8000 * GIB, 7000 * GIB),
        MergerfsBranch(HDD1, BranchMode.RW, None, 8000 * GIB, 6000 * GIB),
    )
    pool = replace(pool, branches=branches, create_policy=policy, minfreespace_bytes=4 * GIB)
    others = tuple(p for p in inventory.mergerfs if p.mountpoint != POOL)
    return replace(inventory, mergerfs=(pool, *others))


def refusing_direct(host: RecordedHost, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pool answers an O_DIRECT write with EINVAL, as FUSE does on many setups."""

    def probe(directory: str, name: str, *, direct: bool) -> OSError | None:
        return OSError(errno.EINVAL, "Invalid argument") if direct else None

    monkeypatch.setattr(host, "probe_write", probe)


def plan(host: RecordedHost, **kwargs: object) -> LadderPlan:
    inventory = tiered(collect_inventory(host))
    return plan_ladder(host, inventory, POOL, None, **kwargs)  # type: ignore[arg-type]


def test_the_default_job_is_time_based_and_direct(host: RecordedHost) -> None:
    planned = plan(host)
    (job,) = with_overrides(planned.jobs, planned.size, planned.runtime)
    assert job.direct and job.time_based and job.runtime == DEFAULT_RUNTIME >= 5
    assert planned.direct_refused is None and not planned.drop_caches
    assert planned.job_line.startswith("sequential 1 MiB writes, O_DIRECT, 10 s per rung")
    assert planned.definition()["runtime"] == DEFAULT_RUNTIME


def test_the_menu_says_how_the_default_file_is_sized(host: RecordedHost) -> None:
    # Before the plan, the menu cannot name the size; it must not promise a file that
    # fills the free space when the plan takes an eighth of it.
    menu = default_job_text(None, False)
    assert "a file of 1/8 of the smallest free space (8M to 1G)" in menu
    assert "sized to the free space" not in menu
    planned = plan(host)
    (job,) = planned.jobs
    assert f"on a file of {job.size}" in planned.job_line


def test_runtime_stays_configurable(host: RecordedHost) -> None:
    planned = plan(host, runtime=2)
    (job,) = with_overrides(planned.jobs, planned.size, planned.runtime)
    assert job.runtime == 2 and job.time_based
    assert "2 s per rung" in planned.job_line


def test_a_pool_refusing_o_direct_is_said_before_running_and_runs_like_for_like(
    host: RecordedHost, monkeypatch: pytest.MonkeyPatch
) -> None:
    refusing_direct(host, monkeypatch)
    planned = plan(host)
    (job,) = planned.jobs
    # every rung the same buffered job, synced as it goes, caches dropped (demo: root)
    assert not job.direct and job.fdatasync == BUFFERED_SYNC_EVERY and job.end_fsync
    assert planned.drop_caches
    assert planned.direct_refused == "EINVAL: Invalid argument"
    line = planned.job_line
    assert "buffered on every rung because the pool refuses O_DIRECT (EINVAL" in line
    assert "caches dropped before each rung" in line
    assert planned.definition()["direct_refused"] == "EINVAL: Invalid argument"


def test_buffered_without_root_says_caches_stay(
    host: RecordedHost, monkeypatch: pytest.MonkeyPatch
) -> None:
    refusing_direct(host, monkeypatch)
    monkeypatch.setattr(RecordedHost, "is_root", property(lambda self: False))
    planned = plan(host)
    assert not planned.drop_caches
    assert "caches not dropped (that needs root)" in planned.job_line


def test_a_tiered_pool_gets_a_cache_and_a_slow_branch_rung(host: RecordedHost) -> None:
    planned = plan(host)
    branches = [(r.path, r.role, r.label) for r in planned.rungs if r.kind is RungKind.BRANCH]
    # ff: new files land on the cache; once it is full, on the first slow branch
    assert branches == [(CACHE, BranchRole.CREATE, "branch"), (HDD0, BranchRole.SLOW, "slow")]
    assert [r.kind for r in planned.rungs][2:] == [RungKind.POOL, RungKind.TMPFS, RungKind.NULLRW]
    roles = planned.definition()["branch_roles"]
    assert roles == {CACHE: "create", HDD0: "slow"}


def test_a_pool_that_is_not_tiered_gets_one_branch_rung(host: RecordedHost) -> None:
    inventory = tiered(collect_inventory(host), policy="mfs")
    planned = plan_ladder(host, inventory, POOL, None)
    branches = [(r.path, r.role) for r in planned.rungs if r.kind is RungKind.BRANCH]
    assert branches == [(HDD0, BranchRole.CREATE)]  # the most free space


def test_every_branch_of_a_tiered_pool_has_its_role(host: RecordedHost) -> None:
    planned = plan(host, all_branches=True)
    branches = [(r.path, r.role) for r in planned.rungs if r.kind is RungKind.BRANCH]
    assert branches == [
        (CACHE, BranchRole.CREATE),
        (HDD0, BranchRole.SLOW),
        (HDD1, BranchRole.SLOW),
    ]
