"""The history keeps imported runs: where they came from round-trips, and the same
file's bytes (sha256) are found again, and cannot be stored twice."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest
from tierdeck.app.history.fio_import import import_runs
from tierdeck.app.history.run_json import result_to_json
from tierdeck.app.history.store import HistoryError, HistoryStore, migrate
from tierdeck.core.bench_models import DirectionSummary, RunResult
from tierdeck.core.imports import ImportFormat, ImportNotice, ImportSource, RunOrigin

from ...paths import FIXTURES as ALL_FIXTURES
from .test_history import recorded_result

FIXTURES = ALL_FIXTURES / "fio_import"

SOURCE = ImportSource(
    file_name="raw-pool.txt",
    content_hash="ab" * 32,
    format=ImportFormat.FIO_TEXT,
    notices=(ImportNotice.GROUP_STATUS_ONLY,),
)


@pytest.fixture
def store(tmp_path: Path) -> HistoryStore:
    return HistoryStore(tmp_path / "history.sqlite3")


def test_imported_run_round_trips_with_its_source(store: HistoryStore) -> None:
    original = recorded_result(
        imported=SOURCE, series=(), device_series=(),
        summary={"write": DirectionSummary(1300234240, None, None, None)},
    )  # fmt: skip
    run_id = store.save(original)
    loaded = store.get(run_id)
    assert loaded == replace(original, id=run_id)
    assert loaded.origin is RunOrigin.IMPORTED
    listed = store.list(series=False)
    assert [r.imported for r in listed] == [SOURCE]
    as_json = result_to_json(loaded)
    assert as_json["origin"] == "imported"
    assert as_json["imported"]["notices"] == ["group-status-only"]
    assert as_json["summary"]["write"]["iops"] is None


def test_a_run_of_tierdeck_has_no_source(store: HistoryStore) -> None:
    loaded = store.get(store.save(recorded_result()))
    assert loaded is not None and loaded.imported is None
    assert loaded.origin is RunOrigin.TIERDECK
    assert result_to_json(loaded)["imported"] is None


def test_find_import_by_content_hash(store: HistoryStore) -> None:
    assert store.find_import(SOURCE.content_hash) is None
    run_id = store.save(recorded_result(imported=SOURCE))
    store.save(recorded_result())  # runs of tierdeck (no hash) never collide
    assert store.find_import(SOURCE.content_hash) == run_id


def test_the_same_bytes_cannot_be_stored_twice(store: HistoryStore) -> None:
    store.save(recorded_result(imported=SOURCE))
    with pytest.raises(HistoryError):
        store.save(recorded_result(imported=replace(SOURCE, file_name="copy.txt")))
    assert len(store.list()) == 1


def test_a_version_3_file_gains_the_import_columns(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path, isolation_level=None)
    migrate(conn, path, upto=3)
    conn.close()
    store = HistoryStore(path)
    run_id = store.save(recorded_result(imported=SOURCE))
    assert store.find_import(SOURCE.content_hash) == run_id


class _FailsSecondSave(HistoryStore):
    """A history whose second save fails (a full disk, another writer)."""

    saves = 0

    def save(self, result: RunResult) -> int:
        self.saves += 1
        if self.saves == 2:
            raise HistoryError("disk full")
        return super().save(result)


def test_a_file_of_several_runs_is_stored_whole_or_not_at_all(tmp_path: Path) -> None:
    notes = ALL_FIXTURES / "fio_import" / "fio31_dyu_write_read_notes.txt"
    store = _FailsSecondSave(tmp_path / "history.sqlite3")
    with pytest.raises(HistoryError):
        import_runs(store, notes, now=0.0)
    assert store.list(status=None) == []
    first, second = import_runs(store, notes, now=0.0)  # the third and fourth saves
    assert first.id and second.id and len(store.list()) == 2


def test_a_spec_stored_before_stated_existed_loads_as_all_known(store: HistoryStore) -> None:
    run_id = store.save(recorded_result(imported=SOURCE))
    conn = sqlite3.connect(store.path)
    (spec_text,) = conn.execute("SELECT spec FROM runs WHERE id = ?", (run_id,)).fetchone()
    old = [{k: v for k, v in job.items() if k != "stated"} for job in json.loads(spec_text)]
    with conn:
        conn.execute("UPDATE runs SET spec = ? WHERE id = ?", (json.dumps(old), run_id))
    conn.close()
    loaded = store.get(run_id)
    assert loaded is not None and all(job.stated is None for job in loaded.jobs)
    assert result_to_json(loaded)["spec"]["jobs"][0]["stated"] is None


def test_a_job_whose_rw_was_not_understood_does_not_break_the_history(tmp_path: Path) -> None:
    # A real report with its rw spelt as fio would refuse to read it ("Write"): the job is
    # kept with rw unknown (null), and the history still lists and shows every run.
    doc = json.loads((FIXTURES / "fio333_seqwrite_group.json").read_text())
    doc["jobs"][0]["job options"]["rw"] = "Write"
    path = tmp_path / "odd-rw.json"
    path.write_text(json.dumps(doc))
    store = HistoryStore(tmp_path / "history.sqlite3")
    (run,) = import_runs(store, path, now=0.0)
    (listed,) = store.list()
    assert listed.id == run.id
    loaded = store.get(run.id)
    assert loaded is not None and not loaded.jobs[0].states("rw")
    assert result_to_json(loaded)["spec"]["jobs"][0]["rw"] is None
