"""The history's sets of runs (schema v5): sweeps and ladders, their cells and tags."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from tierdeck.app.history.run_sets import RunSetKind, RunSetStore, set_tag
from tierdeck.app.history.schema import MIGRATIONS
from tierdeck.app.history.store import HistoryError, schema_version
from tierdeck.core.bench_models import BenchTarget, RunResult, RunStatus, TargetKind


def _run(tags: tuple[str, ...] = ()) -> RunResult:
    target = BenchTarget(path="/mnt/x", kind=TargetKind.PATH, label="x", disks=())
    return RunResult(None, "r", RunStatus.OK, target, (), 1.0, 2.0, tags=tags)


def test_a_set_keeps_its_definition_and_cells_in_order(tmp_path: Path) -> None:
    store = RunSetStore(tmp_path / "h.sqlite3")
    set_id = store.create(RunSetKind.SWEEP, "seed 003", {"axes": {"numjobs": [1, 2]}})
    tag = set_tag(RunSetKind.SWEEP, set_id)
    first = store.save(_run((tag,)))
    second = store.save(_run((tag,)))
    store.add_cell(set_id, "b", second, position=1)
    store.add_cell(set_id, "a", first, position=0)
    assert list(store.cells(set_id).items()) == [("a", first), ("b", second)]
    found = store.get_set(set_id)
    assert found is not None and found.definition == {"axes": {"numjobs": [1, 2]}}
    assert found.tag == f"sweep:{set_id}" and found.kind is RunSetKind.SWEEP
    assert [r.id for r in store.list(tag=tag)] == [second, first]


def test_a_cell_run_again_replaces_its_run_and_a_deleted_run_empties_it(tmp_path: Path) -> None:
    store = RunSetStore(tmp_path / "h.sqlite3")
    set_id = store.create(RunSetKind.LADDER, "pool", {})
    old, new = store.save(_run()), store.save(_run())
    store.add_cell(set_id, "pool", old, position=0)
    store.add_cell(set_id, "pool", new, position=0)
    assert store.cells(set_id) == {"pool": new}
    store.delete(new)
    assert store.cells(set_id) == {}


def test_sets_are_listed_newest_first_by_kind_and_unknown_sets_refused(tmp_path: Path) -> None:
    store = RunSetStore(tmp_path / "h.sqlite3")
    a = store.create(RunSetKind.SWEEP, "a", {})
    b = store.create(RunSetKind.LADDER, "b", {})
    c = store.create(RunSetKind.SWEEP, "c", {})
    assert [s.id for s in store.list_sets()] == [c, b, a]
    assert [s.id for s in store.list_sets(RunSetKind.SWEEP, limit=1)] == [c]
    assert store.get_set(999) is None
    with pytest.raises(HistoryError):
        store.add_cell(999, "k", None, position=0)
    store.delete_set(a)
    assert store.get_set(a) is None


def test_the_schema_is_at_the_newest_version(tmp_path: Path) -> None:
    RunSetStore(tmp_path / "h.sqlite3")
    with sqlite3.connect(tmp_path / "h.sqlite3") as conn:
        assert schema_version(conn) == len(MIGRATIONS) == 10
