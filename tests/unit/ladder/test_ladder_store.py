"""A stored ladder rebuilt from the history (app/ladder/store): its rungs in ladder
order from the run set's cells, the penalties computed again, rungs without a run
skipped with what the store can say, failed and cancelled runs skipped by status."""

from __future__ import annotations

from pathlib import Path

import pytest
from tierdeck.app.history.run_sets import RunSetKind, RunSetStore, set_tag
from tierdeck.app.ladder.store import NOT_STORED, LadderNotFound, load_ladder, rung_of_key
from tierdeck.core.bench_models import (
    BenchTarget,
    DirectionSummary,
    RunResult,
    RunStatus,
    TargetKind,
)
from tierdeck.core.ladder.model import BranchRole, RungKind

MiB = 1024 * 1024


def _run(
    path: str, mib_s: float, tag: str, status: RunStatus = RunStatus.OK, error: str | None = None
) -> RunResult:
    target = BenchTarget(path=path, kind=TargetKind.PATH, label=path, disks=())
    summary = {"write": DirectionSummary(int(mib_s * MiB), mib_s, 1e6, 2_000_000)}
    return RunResult(
        None, "ladder", status, target, (), 1.0, 2.0, error=error, summary=summary, tags=(tag,)
    )


def _ladder(store: RunSetStore, definition: dict[str, object]) -> tuple[int, str]:
    set_id = store.create(RunSetKind.LADDER, "ladder of /mnt/pool", definition)
    return set_id, set_tag(RunSetKind.LADDER, set_id)


def test_the_four_layers_come_back_in_order_with_penalties(tmp_path: Path) -> None:
    store = RunSetStore(tmp_path / "h.sqlite3")
    set_id, tag = _ladder(store, {"pool": "/mnt/pool", "option": None})
    cells = [
        ("branch:/mnt/cache", _run("/mnt/cache", 1000.0, tag)),
        ("pool", _run("/mnt/pool", 300.0, tag)),
        # tmpfs: skipped before fio ran (no RAM): no cell run
        ("nullrw", _run("/run/tierdeck/t/pool-nullrw", 0.0, tag, RunStatus.FAILED, "EIO")),
    ]
    for position, (key, run) in enumerate(cells):
        store.add_cell(set_id, key, store.save(run), position)
    store.add_cell(set_id, "tmpfs", None, 2)
    result = load_ladder(store, set_id)
    assert result.id == set_id and result.pool == "/mnt/pool"
    assert [r.kind for r in result.rungs] == [
        RungKind.BRANCH,
        RungKind.POOL,
        RungKind.TMPFS,
        RungKind.NULLRW,
    ]
    branch, pool, tmpfs, nullrw = result.rungs
    assert branch.path == "/mnt/cache" and branch.skipped is None
    assert pool.penalty_pct == pytest.approx(70.0)
    assert tmpfs.skipped == NOT_STORED and tmpfs.run_id is None
    assert nullrw.skipped == "fio failed: EIO" and nullrw.run_id is not None
    assert nullrw.path == "/run/tierdeck/t/pool-nullrw"


def test_an_option_sweep_and_a_deleted_run(tmp_path: Path) -> None:
    store = RunSetStore(tmp_path / "h.sqlite3")
    definition = {"pool": "/mnt/pool", "option": {"name": "cache.files", "values": ["off", "full"]}}
    set_id, tag = _ladder(store, definition)
    pool = store.save(_run("/mnt/pool", 300.0, tag))
    off = store.save(_run("/run/tierdeck/t/option-0", 330.0, tag, RunStatus.CANCELLED))
    full = store.save(_run("/run/tierdeck/t/option-1", 600.0, tag))
    for position, (key, run_id) in enumerate(
        [("pool", pool), ("cache.files=off", off), ("cache.files=full", full)]
    ):
        store.add_cell(set_id, key, run_id, position)
    store.delete(pool)
    result = load_ladder(store, set_id)
    assert [r.label for r in result.rungs] == ["pool", "cache.files=off", "cache.files=full"]
    assert result.rungs[0].skipped == NOT_STORED  # its run deleted from the history
    assert result.rungs[1].skipped == "cancelled"
    assert result.rungs[2].option == ("cache.files", "full")
    assert result.rungs[2].penalty_pct is None  # nothing left to compare it with


def test_a_sweep_or_an_unknown_id_is_no_ladder(tmp_path: Path) -> None:
    store = RunSetStore(tmp_path / "h.sqlite3")
    sweep = store.create(RunSetKind.SWEEP, "s", {})
    with pytest.raises(LadderNotFound):
        load_ladder(store, sweep)
    with pytest.raises(LadderNotFound):
        load_ladder(store, 99)


def test_cell_keys_name_their_rungs() -> None:
    assert rung_of_key("branch:/mnt/a:b") == (RungKind.BRANCH, "/mnt/a:b", None)
    assert rung_of_key("tmpfs") == (RungKind.TMPFS, None, None)
    assert rung_of_key("threads=4") == (RungKind.OPTION, None, ("threads", "4"))


def test_rungs_skipped_before_fio_come_back_with_their_reason(tmp_path: Path) -> None:
    store = RunSetStore(tmp_path / "h.sqlite3")
    set_id, tag = _ladder(store, {"pool": "/mnt/pool", "option": None})
    store.add_cell(set_id, "branch:-", None, 0, "no RW branch has room for the job")
    store.add_cell(set_id, "pool", store.save(_run("/mnt/pool", 300.0, tag)), 1)
    store.add_cell(set_id, "tmpfs", None, 2, "a tmpfs of 2.0 GiB does not fit in RAM")
    store.add_cell(set_id, "nullrw", None, 3, "a tmpfs of 2.0 GiB does not fit in RAM")
    branch, pool, tmpfs, nullrw = load_ladder(store, set_id).rungs
    assert (branch.kind, branch.path) == (RungKind.BRANCH, "-")
    assert branch.skipped == "no RW branch has room for the job"
    assert pool.skipped is None and pool.penalty_pct is None  # nothing to compare with
    assert tmpfs.skipped == nullrw.skipped == "a tmpfs of 2.0 GiB does not fit in RAM"
    # a cell run later keeps no stale note
    store.add_cell(set_id, "tmpfs", store.save(_run("/run/t/pool-tmpfs", 900.0, tag)), 2)
    assert "tmpfs" not in store.notes(set_id)


def test_a_tiered_ladder_keeps_its_roles_and_its_job(tmp_path: Path) -> None:
    store = RunSetStore(tmp_path / "h.sqlite3")
    job = "sequential 1 MiB writes, buffered on every rung because ..."
    definition = {
        "pool": "/mnt/pool",
        "option": None,
        "job": job,
        "direct_refused": "EINVAL: Invalid argument",
        "branch_roles": {"/mnt/cache": "create", "/mnt/hdd0": "slow"},
    }
    set_id, tag = _ladder(store, definition)
    cells = [
        ("branch:/mnt/cache", _run("/mnt/cache", 400.0, tag)),
        ("branch:/mnt/hdd0", _run("/mnt/hdd0", 1000.0, tag)),
        ("pool", _run("/mnt/pool", 300.0, tag)),
    ]
    for position, (key, run) in enumerate(cells):
        store.add_cell(set_id, key, store.save(run), position)
    result = load_ladder(store, set_id)
    cache, slow, pool = result.rungs[:3]
    assert (cache.role, slow.role, slow.label) == (BranchRole.CREATE, BranchRole.SLOW, "slow")
    assert pool.penalty_pct == pytest.approx(25.0)  # against the cache, not the faster disk
    assert result.job == job and result.direct_refused == "EINVAL: Invalid argument"
