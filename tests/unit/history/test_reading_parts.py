"""Reading a run only in the parts asked for (app/history/rows.py), and the v7 index the
history screen's first listing reads from, on a new file and on one a v6 tierdeck wrote.
"""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

from tierdeck.app.history.schema import MIGRATIONS
from tierdeck.app.history.store import HistoryStore, schema_version
from tierdeck.core.bench_models import RunStatus
from tierdeck.core.fio_models import EMPTY_SAMPLE_DIRECTION

from .older_files import older_history
from .test_history import recorded_result


def plan(path: Path, sql: str) -> str:
    with sqlite3.connect(path) as conn:
        return " / ".join(str(row[-1]) for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}"))


def indexes(path: Path) -> set[str]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'").fetchall()
    return {str(r[0]) for r in rows if not str(r[0]).startswith("sqlite_autoindex")}


def test_a_comparison_reads_the_fio_series_but_not_fio_s_document_nor_the_disks(
    tmp_path: Path,
) -> None:
    store = HistoryStore(tmp_path / "history.sqlite3")
    run_id = store.save(replace(recorded_result(), tags=("a", "b")))
    whole = store.get(run_id)
    light = store.get(run_id, fio=False, devices=False)
    assert whole is not None and light is not None
    assert whole.fio_json is not None and whole.device_series
    assert light.fio_json is None and light.device_series == ()
    assert light.series == whole.series and light.tags == ("a", "b")
    assert light == replace(whole, fio_json=None, device_series=())
    assert store.get(run_id, fio=False) == replace(whole, fio_json=None)


def test_a_direction_without_io_is_read_as_the_one_empty_direction(tmp_path: Path) -> None:
    store = HistoryStore(tmp_path / "history.sqlite3")
    run = recorded_result()
    run_id = store.save(run)
    stored = store.get(run_id)
    assert stored is not None and stored.series == run.series
    assert all(s.trim is EMPTY_SAMPLE_DIRECTION for s in stored.series)


def test_a_page_of_runs_keeps_each_run_s_own_tags_in_order(tmp_path: Path) -> None:
    store = HistoryStore(tmp_path / "history.sqlite3")
    base = recorded_result()
    tags = [("x",), (), ("z", "y"), ("y",)]
    for i, own in enumerate(tags):
        store.save(replace(base, name=f"run {i}", started_at=1e9 + i, tags=own))
    listed = store.list(series=False, limit=3)
    assert [(r.name, r.tags) for r in listed] == [
        ("run 3", ("y",)),
        ("run 2", ("z", "y")),
        ("run 1", ()),
    ]
    assert store.list(tag="y", series=False)[1].tags == ("z", "y")


def test_the_listing_and_the_target_menu_read_indexes_not_every_run(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    HistoryStore(path)
    listing = plan(
        path,
        "SELECT id FROM runs WHERE status IN ('ok') ORDER BY started_at DESC, id DESC LIMIT 101",
    )
    assert "runs_status_started" in listing and "TEMP B-TREE" not in listing
    menu = plan(path, "SELECT DISTINCT target_path, target_label FROM runs ORDER BY 1, 2")
    assert "COVERING INDEX runs_target_label" in menu
    by_target = plan(path, "SELECT id FROM runs WHERE target_path = '/srv'")
    assert "runs_target_label" in by_target or "runs_status_started" in by_target


def test_a_file_a_v6_tierdeck_wrote_gets_the_index_and_keeps_its_runs(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    run = recorded_result()
    (run_id,) = older_history(path, 6, [run])
    with sqlite3.connect(path) as conn:
        assert schema_version(conn) == 6
    assert "runs_target" in indexes(path) and "runs_target_label" not in indexes(path)

    reopened = HistoryStore(path)
    with sqlite3.connect(path) as conn:
        assert schema_version(conn) == len(MIGRATIONS) == 10
    assert "runs_target_label" in indexes(path) and "runs_target" not in indexes(path)
    assert reopened.get(run_id) == replace(run, id=run_id)
    assert reopened.filter_options() == ([(run.target.path, run.target.label)], [run.preset])
    assert [r.id for r in reopened.list(status=RunStatus.OK, series=False)] == [run_id]
