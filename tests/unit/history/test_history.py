"""The benchmark history store: round trips, schema versions, filters, edits.

Runs are built from recorded fio output (tests/fixtures/fio, see its SOURCES.md) put
through the real stream parser, so the series stored are what a real run produces.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from tierdeck.app.history import store as history_mod
from tierdeck.app.history.run_json import SCHEMA, result_to_json
from tierdeck.app.history.schema import MIGRATIONS
from tierdeck.app.history.store import (
    HistoryError,
    HistoryStore,
    RunNotFound,
    default_history_path,
    migrate,
    schema_version,
)
from tierdeck.backends.fio.json_documents import split_documents
from tierdeck.backends.fio.sampling import IntervalSampler
from tierdeck.backends.fio.stream import job_summaries, parse_report
from tierdeck.core.bench_models import (
    BenchTarget,
    DeviceSample,
    DirectionSummary,
    EnvFingerprint,
    FileLayout,
    RunResult,
    RunStatus,
    RunWarning,
    TargetKind,
    WarningKind,
)
from tierdeck.core.jobspec import JobSpec
from tierdeck.core.presets import preset

from ...paths import FIXTURES

FIO = FIXTURES / "fio"


def recorded_result(fixture: str = "fio333_status_randrw.json", **changes: Any) -> RunResult:
    """A finished run as the runner would return it, from a recorded fio stream."""
    docs, _ = split_documents((FIO / fixture).read_text(encoding="utf-8"))
    sampler = IntervalSampler()
    series = tuple(s for s in (sampler.add(parse_report(d)) for d in docs) if s is not None)
    final = parse_report(docs[-1])
    jobs = preset("seed000-seqwrite").jobs
    summary = {
        name: DirectionSummary(d.bw_bytes, d.iops, d.lat_mean_ns, d.lat_p99_ns)
        for name, d in (("read", final.read), ("write", final.write))
        if d.has_io
    }
    devices = tuple(
        DeviceSample(
            t=float(t),
            device=dev,
            read_bytes_per_s=rb,
            write_bytes_per_s=wb,
            read_iops=rb / 4096,
            write_iops=wb / 4096,
            util_pct=util,
        )  # fmt: skip
        for t in (1, 2, 3, 4)
        for dev, rb, wb, util in (("loop3", 40e6, 20e6, 97.5), ("loop4", 0.0, 0.0, 0.0))
    )
    result = RunResult(
        id=None,
        name="seed000-seqwrite on cache",
        status=RunStatus.OK,
        target=BenchTarget(
            path="/srv/lab/mnt/cache",
            kind=TargetKind.MOUNT,
            label="btrfs /srv/lab/mnt/cache",
            disks=("loop3", "loop4"),
            fs_type="btrfs",
            mountpoint="/srv/lab/mnt/cache",
        ),
        jobs=jobs,
        job_summaries=job_summaries(final, jobs),
        started_at=1_795_000_000.25,
        finished_at=1_795_000_004.5,
        preset="seed000-seqwrite",
        fio_json=json.loads(docs[-1]),
        summary=summary,
        series=series,
        device_series=devices,
        env=EnvFingerprint(
            kernel="6.18.0",
            fio_version="fio-3.33",
            fs_type="btrfs",
            mount_options=("rw", "relatime", "space_cache=v2"),
            mergerfs_version="2.33.5",
            mergerfs_options={"category.create": "mfs", "minfreespace": "4294967296"},
            disk_models={"loop3": "Loopback device", "loop4": "Loopback device"},
        ),
        tags=("baseline", "btrfs"),
        warnings=(
            RunWarning(WarningKind.BUFFERED, "direct=0: the page cache may inflate results"),
        ),
    )
    return replace(result, **changes)


@pytest.fixture
def store(tmp_path: Path) -> HistoryStore:
    return HistoryStore(tmp_path / "h" / "history.sqlite3")


def test_round_trip_keeps_every_field(store: HistoryStore) -> None:
    original = recorded_result()
    assert len(original.series) == 5 and original.fio_json is not None
    run_id = store.save(original)
    assert run_id == 1
    assert store.get(run_id) == replace(original, id=1)


def test_round_trip_of_jsonplus_series_keeps_interval_p99(store: HistoryStore) -> None:
    original = recorded_result("fio333_status_jsonplus_randread.json", tags=())
    p99s = [s.read.lat_p99_ns for s in original.series]
    assert all(isinstance(p, int) for p in p99s)
    loaded = store.get(store.save(original))
    assert loaded is not None
    assert [s.read.lat_p99_ns for s in loaded.series] == p99s
    assert loaded == replace(original, id=loaded.id)


def test_job_extra_options_keep_their_order_and_bare_flags(store: HistoryStore) -> None:
    jobs = preset("kdiskmark-standard").jobs
    loaded = store.get(store.save(recorded_result(jobs=jobs)))
    assert loaded is not None
    assert loaded.jobs == jobs
    assert list(loaded.jobs[0].extra.items()) == [
        ("randrepeat", "0"),
        ("refill_buffers", None),
        ("zero_buffers", "0"),
    ]


def test_failed_run_without_fio_json_or_series(store: HistoryStore) -> None:
    failed = recorded_result(
        status=RunStatus.FAILED,
        error="fio job failed: odirect (err=22: Invalid argument); destination does not "
        "support O_DIRECT",
        fio_json=None,
        summary={},
        series=(),
        device_series=(),
        finished_at=None,
    )
    assert store.get(store.save(failed)) == replace(failed, id=1)


def test_get_missing_run_is_none(store: HistoryStore) -> None:
    assert store.get(42) is None


# ------------------------------------------------------------------ list and filters


def test_list_returns_only_ok_runs_unless_asked(store: HistoryStore) -> None:
    ok = store.save(recorded_result())
    failed = store.save(recorded_result(status=RunStatus.FAILED, error="boom"))
    cancelled = store.save(recorded_result(status=RunStatus.CANCELLED))
    assert [r.id for r in store.list()] == [ok]
    assert [r.id for r in store.list(status=RunStatus.FAILED)] == [failed]
    assert [r.id for r in store.list(status=RunStatus.CANCELLED)] == [cancelled]
    assert sorted(r.id or 0 for r in store.list(status=tuple(RunStatus))) == [1, 2, 3]


def test_list_is_newest_first_and_light_unless_full(store: HistoryStore) -> None:
    older = store.save(recorded_result(started_at=100.0))
    newer = store.save(recorded_result(started_at=200.0))
    light = store.list()
    assert [r.id for r in light] == [newer, older]
    assert all(r.fio_json is None for r in light)
    assert all(len(r.series) == 5 and len(r.device_series) == 8 for r in light)
    assert all(r.fio_json is not None for r in store.list(full=True))


def test_list_filters_by_target_preset_and_tag(store: HistoryStore) -> None:
    other_target = replace(recorded_result().target, path="/srv/lab/pool/slow")
    a = store.save(recorded_result())
    b = store.save(recorded_result(target=other_target, tags=("slow",)))
    c = store.save(recorded_result(preset=None, tags=()))
    assert [r.id for r in store.list(target="/srv/lab/pool/slow/")] == [b]
    assert sorted(r.id or 0 for r in store.list(target="/srv/lab/mnt/cache")) == [a, c]
    assert sorted(r.id or 0 for r in store.list(preset="seed000-seqwrite")) == [a, b]
    assert [r.id for r in store.list(tag="baseline")] == [a]
    assert [r.id for r in store.list(tag="slow", preset="seed000-seqwrite")] == [b]
    assert store.list(tag="slow", target="/srv/lab/mnt/cache") == []


def test_list_without_series_keeps_summaries(store: HistoryStore) -> None:
    run_id = store.save(recorded_result())
    (bare,) = store.list(series=False)
    (whole,) = store.list()
    assert bare.id == run_id and bare.series == () and bare.device_series == ()
    assert bare.summary == whole.summary and bare.warnings == whole.warnings
    assert len(whole.series) == 5


def test_list_json_writes_what_result_to_json_of_the_listed_runs_writes(
    store: HistoryStore,
) -> None:
    """``list_json`` writes the series from the rows, not from Sample objects: the same
    bytes, for every filter and a run without series."""
    store.save(recorded_result())
    store.save(recorded_result(started_at=5.0, tags=("slow",), target=replace(
        recorded_result().target, path="/srv/lab/pool/slow")))  # fmt: skip
    store.save(recorded_result(status=RunStatus.FAILED, series=(), device_series=()))
    filters: list[dict[str, Any]] = [
        {},
        {"status": tuple(RunStatus)},
        {"status": RunStatus.FAILED},
        {"tag": "slow"},
        {"target": "/srv/lab/mnt/cache", "preset": "seed000-seqwrite"},
    ]
    for where in filters:
        typed = [result_to_json(r) for r in store.list(**where)]
        assert store.list_json(**where) == [json.dumps(run) for run in typed], where
    assert store.list_json(tag="none") == []


def test_a_stored_empty_direction_reads_back_as_the_shared_one(store: HistoryStore) -> None:
    """Why the rows can stand for Samples: SQLite's REAL columns turn -0.0 and integers
    into 0.0, so a direction without I/O always reads as EMPTY_SAMPLE_DIRECTION's values."""
    store.save(recorded_result())
    with sqlite3.connect(store.path) as conn:
        conn.execute("UPDATE samples SET t_bw = -0.0, t_iops = 0")
        rows = conn.execute("SELECT t_bw, t_iops, t_lat_mean, t_lat_p99 FROM samples").fetchall()
    assert rows and {(repr(bw), repr(iops), mean, p99) for bw, iops, mean, p99 in rows} == {
        ("0.0", "0.0", None, None)
    }


def test_filter_options_cover_every_status_without_loading_runs(store: HistoryStore) -> None:
    other = replace(recorded_result().target, path="/srv/lab/pool/slow", label="mergerfs slow")
    store.save(recorded_result())
    store.save(recorded_result(target=other, status=RunStatus.FAILED, error="boom"))
    store.save(recorded_result(preset=None))
    targets, presets = store.filter_options()
    cache = recorded_result().target
    assert targets == sorted([(cache.path, cache.label), ("/srv/lab/pool/slow", "mergerfs slow")])
    assert presets == ["seed000-seqwrite"]


# ------------------------------------------------------------------ edits


def test_rename_tag_and_delete(store: HistoryStore) -> None:
    run_id = store.save(recorded_result())
    keep = store.save(recorded_result())
    store.rename(run_id, "  before the firmware update ")
    store.set_tags(run_id, ["fw", "ssd", "fw", " ", "zfs"])
    loaded = store.get(run_id)
    assert loaded is not None
    assert loaded.name == "before the firmware update"
    assert loaded.tags == ("fw", "ssd", "zfs")
    store.set_tags(run_id, [])
    assert store.get(run_id).tags == ()  # type: ignore[union-attr]

    store.delete(run_id)
    assert store.get(run_id) is None
    with sqlite3.connect(store.path) as conn:
        # the series went with the run (ON DELETE CASCADE), the other run's stayed
        assert conn.execute("SELECT DISTINCT run_id FROM samples").fetchall() == [(keep,)]
        assert conn.execute("SELECT DISTINCT run_id FROM device_samples").fetchall() == [(keep,)]
        assert conn.execute("SELECT DISTINCT run_id FROM run_tags").fetchall() == [(keep,)]


@pytest.mark.parametrize(
    "edit",
    [
        lambda s: s.rename(9, "x"),
        lambda s: s.set_tags(9, ["x"]),
        lambda s: s.delete(9),
    ],
)
def test_edits_of_a_missing_run_raise_run_not_found(store: HistoryStore, edit: Any) -> None:
    with pytest.raises(RunNotFound, match="no run #9"):
        edit(store)


def test_empty_name_is_refused(store: HistoryStore) -> None:
    run_id = store.save(recorded_result())
    with pytest.raises(HistoryError, match="cannot be empty"):
        store.rename(run_id, "   ")


# ------------------------------------------------------------------ schema versions


def test_new_file_gets_the_newest_schema(store: HistoryStore) -> None:
    with sqlite3.connect(store.path) as conn:
        assert schema_version(conn) == len(MIGRATIONS)
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"runs", "run_tags", "samples", "device_samples"} <= tables


def test_older_schema_is_migrated_in_order_keeping_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "history.sqlite3"
    old = HistoryStore(path)
    run_id = old.save(recorded_result())
    # A future version that adds a column and fills it from existing data.
    future = (
        "ALTER TABLE runs ADD COLUMN sample_count INTEGER NOT NULL DEFAULT 0",
        "UPDATE runs SET sample_count = (SELECT count(*) FROM samples WHERE run_id = runs.id)",
    )
    monkeypatch.setattr(history_mod, "MIGRATIONS", [*MIGRATIONS, future])
    new = HistoryStore(path)
    with sqlite3.connect(path) as conn:
        assert schema_version(conn) == len(MIGRATIONS) + 1
        assert conn.execute("SELECT sample_count FROM runs").fetchall() == [(5,)]
    assert new.get(run_id) == replace(recorded_result(), id=run_id)


def test_migration_from_version_zero_applies_every_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "history.sqlite3"
    steps = [("CREATE TABLE a (x)",), ("CREATE TABLE b (x)",), ("INSERT INTO b SELECT 1",)]
    monkeypatch.setattr(history_mod, "MIGRATIONS", steps)
    conn = sqlite3.connect(path, isolation_level=None)

    def tables() -> list[str]:
        return [r[0] for r in conn.execute("SELECT name FROM sqlite_master ORDER BY name")]

    assert migrate(conn, path, upto=1) == 1
    assert tables() == ["a"]
    assert migrate(conn, path) == 3
    assert tables() == ["a", "b"]
    assert conn.execute("SELECT x FROM b").fetchall() == [(1,)]
    conn.close()


def test_a_failing_migration_leaves_the_file_at_the_old_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "history.sqlite3"
    run_id = HistoryStore(path).save(recorded_result())
    broken = ("ALTER TABLE runs ADD COLUMN half_done TEXT", "CREATE TABLE runs (oops)")
    monkeypatch.setattr(history_mod, "MIGRATIONS", [*MIGRATIONS, broken])
    now = len(MIGRATIONS)
    with pytest.raises(
        HistoryError, match=f"from version {now} to {now + 1}.*left at version {now}"
    ):
        HistoryStore(path)
    with sqlite3.connect(path) as conn:
        assert schema_version(conn) == now
        columns = [r[1] for r in conn.execute("PRAGMA table_info(runs)")]
    assert "half_done" not in columns
    monkeypatch.setattr(history_mod, "MIGRATIONS", MIGRATIONS)
    assert HistoryStore(path).get(run_id) is not None


def test_newer_schema_is_refused_and_not_modified(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    HistoryStore(path).save(recorded_result())
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    newer = len(MIGRATIONS) + 1
    with pytest.raises(HistoryError, match=f"newer tierdeck .* version {newer}.*not changed"):
        HistoryStore(path)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["history.sqlite3"]


def _v1_store_with_run(path: Path, spec: list[JobSpec], fio_json: dict[str, Any]) -> None:
    """A history file as tierdeck 0.1 wrote it (schema 1), holding one run."""
    conn = sqlite3.connect(path, isolation_level=None)
    migrate(conn, path, upto=1)
    from tierdeck.core.spec_dict import spec_to_dict

    conn.execute(
        "INSERT INTO runs (name, status, target_path, target_kind, target_label,"
        " target_disks, started_at, spec, fio_json, env, summary, warnings) VALUES"
        " ('old', 'ok', '/mnt/t', 'mount', 'ext4 /mnt/t', '[]', 1.0, ?, ?, '{}', '{}', '[]')",
        (json.dumps([spec_to_dict(j) for j in spec]), json.dumps(fio_json)),
    )
    conn.close()


def test_version_1_runs_get_job_summaries_and_their_shared_file_marked(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    # fio333_randrw_2jobs.json: numjobs=2 without group_reporting, two entries "mixed"
    fio_json = json.loads((FIO / "fio333_randrw_2jobs.json").read_text(encoding="utf-8"))
    mixed = JobSpec(name="mixed", rw="randrw", bs="4k", numjobs=2, size="16M")
    _v1_store_with_run(path, [mixed], fio_json)
    [run] = HistoryStore(path).list()
    assert run.file_layout is FileLayout.ONE_PER_JOB
    assert run.clones_shared_file  # its two clones shared one file under 0.1
    [job] = run.job_summaries  # the clones added up, as fio adds a reporting group
    entries = fio_json["jobs"]
    assert job.name == "mixed" and (job.rw, job.bs) == ("randrw", "4k")
    assert job.directions["read"].bw_bytes == pytest.approx(
        sum(e["read"]["io_bytes"] for e in entries)
        * 1000
        / max(e["read"]["runtime"] for e in entries),
        rel=1e-3,
    )
    doc = result_to_json(HistoryStore(path).get(run.id or 0) or run)
    assert doc["clones_shared_file"] is True and doc["file_layout"] == "one-per-job"
    assert [j["name"] for j in doc["jobs"]] == ["mixed"]


def test_a_version_1_job_with_one_clone_or_a_shared_tag_is_not_marked(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    fio_json = json.loads((FIO / "fio333_randrw_2jobs.json").read_text(encoding="utf-8"))
    tagged = JobSpec(name="mixed", rw="randrw", numjobs=2, size="16M", file_tag="kdiskmark")
    _v1_store_with_run(path, [tagged, JobSpec(name="one", rw="read", size="1M")], fio_json)
    [run] = HistoryStore(path).list()
    assert run.file_layout is FileLayout.ONE_PER_JOB and not run.clones_shared_file


def test_new_runs_are_stored_with_fios_own_layout(store: HistoryStore) -> None:
    run = store.get(store.save(recorded_result()))
    assert run is not None and run.file_layout is FileLayout.FIO
    assert not run.clones_shared_file


def test_a_file_that_is_not_sqlite_is_a_history_error(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    path.write_text("not a database, just notes\n" * 100)
    with pytest.raises(HistoryError, match="not a database"):
        HistoryStore(path)


def test_default_path_honours_tierdeck_data_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TIERDECK_DATA_DIR", str(tmp_path / "data" / "deep"))
    assert default_history_path() == tmp_path / "data" / "deep" / "history.sqlite3"
    store = HistoryStore()
    assert store.path.is_file()  # parent folders created
    monkeypatch.delenv("TIERDECK_DATA_DIR")
    assert default_history_path().parts[-2:] == ("tierdeck", "history.sqlite3")


# ------------------------------------------------------------------ JSON


def test_result_to_json_shape() -> None:
    doc = result_to_json(recorded_result(id=7))
    assert doc["schema"] == SCHEMA == "tierdeck.run/1"
    assert (doc["id"], doc["status"], doc["preset"]) == (7, "ok", "seed000-seqwrite")
    assert doc["summary"]["read"] == {
        "bw_bytes": 41932556,
        "iops": 10237.44064,
        "lat_mean_ns": 2922.947192,
        "lat_p99_ns": 14912,
    }
    assert doc["summary"]["write"]["bw_bytes"] == 20967302
    assert doc["summary"]["trim"] is None
    assert len(doc["series"]) == 5
    first = doc["series"][0]
    assert first["t"] == 0.703
    assert first["read"]["bw_bytes"] == pytest.approx(41956324.324324325)
    assert set(first["write"]) == {"bw_bytes", "iops", "lat_mean_ns", "lat_p99_ns"}
    assert doc["spec"]["jobs"][0]["numjobs"] == 8
    assert doc["spec"]["jobfile"].startswith(
        "[global]\ndirectory=/srv/lab/mnt/cache\n"
        "filename_format=.tierdeck-bench.$jobname.$jobnum.$filenum\n"
    )
    assert (doc["mixed_jobs"], doc["file_layout"], doc["clones_shared_file"]) == (
        False,
        "fio",
        False,
    )
    assert doc["jobs"] == [
        {
            "name": "stream",
            "rw": None,  # the recorded stream's job is not one of the preset's
            "bs": None,
            "error": 0,
            "read": doc["summary"]["read"],
            "write": doc["summary"]["write"],
            "trim": None,
        }
    ]
    loop3 = doc["devices"][0]
    assert loop3["device"] == "loop3"
    assert (loop3["read_bytes"], loop3["write_bytes"]) == (160_000_000, 80_000_000)
    assert loop3["series"][1] == {
        "t": 2.0,
        "read_bw_bytes": 40e6,
        "write_bw_bytes": 20e6,
        "read_iops": 40e6 / 4096,
        "write_iops": 20e6 / 4096,
        "util_pct": 97.5,
    }
    assert doc["env"]["mount_options"] == ["rw", "relatime", "space_cache=v2"]
    assert doc["target"]["disks"] == ["loop3", "loop4"]
    assert "fio" not in doc
    assert result_to_json(recorded_result(), include_fio=True)["fio"]["fio version"] == "fio-3.33"
    json.dumps(doc)  # plain JSON types only


def test_a_migration_another_process_made_meanwhile_is_not_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two tierdecks open a new history at once: both read version 0, one migrates first.
    import sqlite3

    from tierdeck.app.history import store as history

    path = tmp_path / "h.sqlite3"
    HistoryStore(path)  # the other process, done
    real = history.schema_version
    reads: list[int] = []

    def stale_first(conn: sqlite3.Connection) -> int:
        reads.append(1)
        return 0 if len(reads) == 1 else real(conn)

    monkeypatch.setattr(history, "schema_version", stale_first)
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        assert history.migrate(conn, path) == len(history.MIGRATIONS)
    finally:
        conn.close()
