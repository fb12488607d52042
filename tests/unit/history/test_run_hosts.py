"""The host each run ran on (schema v8): kept, read back, filtered on, listed from the
index alone, and given to the runs of a v7 file by the migration (a name where fio's
own JSON names one, never an id; imported runs stay unknown)."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

from tierdeck.app.history.schema import MIGRATIONS
from tierdeck.app.history.store import HistoryStore, schema_version
from tierdeck.core.bench_models import RunHost, RunResult
from tierdeck.core.imports import ImportFormat, ImportSource

from .older_files import older_history
from .test_history import recorded_result
from .test_reading_parts import indexes, plan

NAS1 = RunHost("nas1", "ssh:4f1c0a")
NAS2 = RunHost("nas2", "ssh:9b2e77")


def on(host: RunHost, started_at: float, **changes: object) -> RunResult:
    return replace(recorded_result(), host=host, started_at=started_at, **changes)  # type: ignore[arg-type]


def naming_host(run: RunResult, name: str) -> RunResult:
    """The run as fio's client/server output would have it: its host in fio's JSON."""
    assert run.fio_json is not None
    stats = [{"jobname": "All clients", "hostname": name}]
    return replace(run, fio_json={**run.fio_json, "client_stats": stats})


def imported(run: RunResult, file_name: str) -> RunResult:
    return replace(run, imported=ImportSource(file_name, file_name * 8, ImportFormat.FIO_JSON))


def test_a_run_keeps_its_host_and_the_list_filters_by_name_or_id(tmp_path: Path) -> None:
    store = HistoryStore(tmp_path / "history.sqlite3")
    one = store.save(on(NAS1, 1e9))
    two = store.save(on(NAS2, 1e9 + 1))
    local = store.save(on(RunHost("NAS1", "local:4f1c0a"), 1e9 + 2))
    store.save(on(RunHost(), 1e9 + 3))
    got = store.get(one)
    assert got is not None and got.host == NAS1
    assert [r.host for r in store.list(series=False, limit=1)] == [RunHost()]

    def ids(host: str) -> list[int | None]:
        return [r.id for r in store.list(host=host, series=False)]

    assert ids("nas1") == [local, one]  # a hostname in any case
    assert ids("ssh:4f1c0a") == [one]  # the id as the JSON has it
    assert ids("4f1c0a") == [local, one]  # the machine id: locally or over SSH
    assert ids("nas2") == [two] and ids("nas3") == []
    assert ids("") == []  # an unknown host is no host to filter by
    assert store.hosts() == (RunHost("NAS1", "local:4f1c0a"), NAS1, NAS2)


def test_which_hosts_the_history_holds_is_read_from_the_index(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    HistoryStore(path)
    hosts = plan(
        path,
        "SELECT DISTINCT host_name, host_id FROM runs"
        " WHERE host_name != '' OR host_id != '' ORDER BY 1, 2",
    )
    assert "COVERING INDEX runs_host" in hosts and "TEMP B-TREE" not in hosts


def test_a_v7_file_gets_hosts_its_runs_can_name_and_keeps_everything_else(
    tmp_path: Path,
) -> None:
    path = tmp_path / "history.sqlite3"
    plain = recorded_result(started_at=1e9)
    named = naming_host(recorded_result(started_at=1e9 + 1), "nas1")
    two_hosts = replace(
        named,
        started_at=1e9 + 2,
        fio_json={**(named.fio_json or {}), "more": [{"hostname": "nas2"}]},
    )
    from_file = imported(naming_host(recorded_result(started_at=1e9 + 3), "nas9"), "a")
    runs = [plain, named, two_hosts, from_file]
    ids = older_history(path, 7, runs)
    assert "runs_host" not in indexes(path)

    reopened = HistoryStore(path)
    with sqlite3.connect(path) as conn:
        assert schema_version(conn) == len(MIGRATIONS) == 10
    assert "runs_host" in indexes(path)
    back = [reopened.get(run_id) for run_id in ids]
    # fio's client output named one host: its name, no id; two hosts, none, or an
    # imported file's (it came from elsewhere): unknown
    assert [r.host if r else None for r in back] == [
        RunHost(),
        RunHost("nas1", ""),
        RunHost(),
        RunHost(),
    ]
    assert back == [
        replace(run, id=run_id, host=got.host)
        for run, run_id, got in zip(runs, ids, back, strict=True)
        if got is not None
    ]
    assert reopened.hosts() == (RunHost("nas1", ""),)
    assert [r.id for r in reopened.list(host="nas1", series=False)] == [ids[1]]


def test_a_new_run_stored_after_the_migration_keeps_its_host(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    older_history(path, 7, [recorded_result()])
    store = HistoryStore(path)
    run_id = store.save(on(NAS2, 2e9))
    got = store.get(run_id)
    assert got is not None and got.host == NAS2
    assert store.hosts() == (NAS2,)
