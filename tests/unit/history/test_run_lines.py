"""Each run's line of ``history list --json`` kept in the history (app/history/run_lines.py,
schema v9): a kept line is always the line the rows give today, byte for byte. It is
written when a run is saved, renamed or retagged, dropped by the triggers whenever
anything it is written from changes, not read when another serializer wrote it, and
computed (kept when the file can be written) when a listing finds none."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from tierdeck.app.history import run_lines
from tierdeck.app.history import store as store_mod
from tierdeck.app.history.read_only import SCHEMA_VERSION
from tierdeck.app.history.run_json import result_to_json
from tierdeck.app.history.run_lines import json_array, pack
from tierdeck.app.history.schema import MIGRATIONS
from tierdeck.app.history.store import HistoryStore, run_line
from tierdeck.core.bench_models import RunHost, RunStatus
from tierdeck.core.imports import ImportFormat, ImportSource

from .older_files import older_history
from .test_history import recorded_result

# REVISION -> the sha256 of the lines of `varied_runs` as stored in a fresh history.
# When this test fails, what a stored line holds has changed: bump run_lines.REVISION
# (every kept line is then written again) and record the new digest under it. (Only
# when varied_runs itself changed does the digest change under the same revision.)
LINE_DIGESTS = {1: "a4f22e75bf58e7bd0d71b6944929668b4f34edfb3d5ef59b2f65b7baefafc16d"}


def varied_runs() -> list[Any]:
    base = recorded_result()
    return [
        base,
        recorded_result(started_at=5.0, tags=("slow", "ünïcode", 'x"y')),
        recorded_result(status=RunStatus.FAILED, error="boom é", series=(), device_series=()),
        recorded_result(status=RunStatus.CANCELLED, host=RunHost("nas1", "ssh:abc"), tags=()),
        recorded_result(host=RunHost("NAS2", "local:def"), preset=None, name="a\nb \x1b[31m"),
        replace(
            base,
            imported=ImportSource("old.json", "ab" * 32, ImportFormat.FIO_JSON),
            series=(),
            device_series=(),
        ),
    ]


@pytest.fixture
def store(tmp_path: Path) -> HistoryStore:
    store = HistoryStore(tmp_path / "history.sqlite3")
    for run in varied_runs():
        store.save(run)
    return store


def kept(store: HistoryStore) -> dict[int, tuple[str, str]]:
    """run id -> (version, line) as the history keeps them."""
    with sqlite3.connect(store.path) as conn:
        rows = conn.execute("SELECT run_id, version, line FROM run_lines").fetchall()
    return {run_id: (version, zlib.decompress(line).decode()) for run_id, version, line in rows}


def computed(store: HistoryStore) -> dict[int, str]:
    """Every run's line from its rows, as a listing without kept lines writes it."""
    with store._connect() as conn:
        ids = [row[0] for row in conn.execute("SELECT id FROM runs")]
        return {run_id: run_line(conn, run_id) for run_id in ids}


def assert_no_stale_line(store: HistoryStore) -> None:
    now = computed(store)
    for run_id, (version, line) in kept(store).items():
        assert version == run_lines.LINE_VERSION and line == now[run_id], run_id


def typed_listing(store: HistoryStore, **where: Any) -> list[str]:
    """The listing as ``result_to_json`` writes the runs ``list`` loads (Sample objects,
    no kept line anywhere): what `history list --json` printed before lines were kept."""
    return [json.dumps(result_to_json(r)) for r in store.list(**where)]


LISTINGS: list[dict[str, Any]] = [
    {},
    {"status": tuple(RunStatus)},
    {"status": RunStatus.FAILED},
    {"tag": "slow", "status": tuple(RunStatus)},
    {"host": "nas1", "status": tuple(RunStatus)},
    {"host": "def"},
    {"target": "/srv/lab/mnt/cache/", "preset": "seed000-seqwrite"},
    {"tag": "none"},
]


def test_every_saved_run_keeps_its_line_and_the_listing_is_the_computed_one(
    store: HistoryStore,
) -> None:
    assert set(kept(store)) == set(computed(store)) == set(range(1, 7))
    assert_no_stale_line(store)
    for where in LISTINGS:
        assert store.list_json(**where) == typed_listing(store, **where), where


def test_a_listing_computes_missing_lines_and_keeps_them(store: HistoryStore) -> None:
    with sqlite3.connect(store.path) as conn:
        conn.execute("DELETE FROM run_lines WHERE run_id IN (2, 4)")
    expected = typed_listing(store, status=tuple(RunStatus))
    assert store.list_json(status=tuple(RunStatus)) == expected
    assert set(kept(store)) == set(range(1, 7))
    assert_no_stale_line(store)
    assert store.list_json(status=tuple(RunStatus)) == expected  # from the kept lines


@pytest.mark.parametrize(
    "change",
    [
        "UPDATE runs SET name = 'by hand' WHERE id = 2",
        "UPDATE runs SET fio_json = NULL WHERE id = 2",
        "UPDATE runs SET host_name = 'other' WHERE id = 2",
        "INSERT INTO run_tags (run_id, pos, tag) VALUES (2, 9, 'new')",
        "UPDATE run_tags SET tag = 'renamed' WHERE run_id = 2",
        "DELETE FROM run_tags WHERE run_id = 2",
        "UPDATE samples SET w_bw = 1.5 WHERE run_id = 2 AND seq = 0",
        "DELETE FROM samples WHERE run_id = 2 AND seq = 1",
        "INSERT INTO samples SELECT 2, 99, t, interval_s, r_bw, r_iops, r_lat_mean, r_lat_p99,"
        " w_bw, w_iops, w_lat_mean, w_lat_p99, t_bw, t_iops, t_lat_mean, t_lat_p99, active_jobs"
        " FROM samples WHERE run_id = 2 AND seq = 0",
        "UPDATE device_samples SET util_pct = 1 WHERE run_id = 2",
        "DELETE FROM device_samples WHERE run_id = 2 AND seq = 0",
        "INSERT INTO device_samples SELECT 2, 99, t, device, read_bytes_per_s,"
        " write_bytes_per_s, read_iops, write_iops, util_pct FROM device_samples"
        " WHERE run_id = 2 AND seq = 0",
        "DELETE FROM runs WHERE id = 2",  # the sqlite3 tool: no foreign keys, no cascade
    ],
)
def test_a_change_by_any_hand_drops_the_line(store: HistoryStore, change: str) -> None:
    with sqlite3.connect(store.path) as conn:
        assert conn.execute(change).rowcount > 0
    assert 2 not in kept(store) and set(kept(store)) == {1, 3, 4, 5, 6}
    if change.startswith("DELETE FROM runs"):
        return
    assert_no_stale_line(store)
    assert store.list_json(status=tuple(RunStatus)) == typed_listing(store, status=tuple(RunStatus))
    assert 2 in kept(store)
    assert_no_stale_line(store)


def test_the_stores_changes_write_the_line_again(store: HistoryStore) -> None:
    store.rename(2, "renamed")
    store.set_tags(3, ["a", "b", "a", " "])
    store.set_tags(2, [])
    store.delete(4)
    assert set(kept(store)) == {1, 2, 3, 5, 6}
    assert_no_stale_line(store)
    assert json.loads(kept(store)[2][1])["name"] == "renamed"
    assert json.loads(kept(store)[3][1])["tags"] == ["a", "b"]
    assert store.list_json(status=tuple(RunStatus)) == typed_listing(store, status=tuple(RunStatus))


def test_a_line_of_another_version_is_not_read_and_is_written_again(store: HistoryStore) -> None:
    with sqlite3.connect(store.path) as conn:
        conn.execute("UPDATE run_lines SET version = '0.0.1/7', line = ?", (pack('{"s": 1}'),))
    assert store.list_json(status=tuple(RunStatus)) == typed_listing(store, status=tuple(RunStatus))
    assert {version for version, _ in kept(store).values()} == {run_lines.LINE_VERSION}
    assert_no_stale_line(store)


def test_a_damaged_line_is_written_again(store: HistoryStore) -> None:
    with sqlite3.connect(store.path) as conn:
        conn.execute("UPDATE run_lines SET line = x'00ff' WHERE run_id = 2")
        conn.execute("UPDATE run_lines SET line = 'text' WHERE run_id = 3")
        conn.execute(
            "UPDATE run_lines SET line = ? WHERE run_id = 4", (zlib.compress("é".encode()),)
        )
    assert store.list_json(status=tuple(RunStatus)) == typed_listing(store, status=tuple(RunStatus))
    assert_no_stale_line(store)


class ReadOnlyStore(HistoryStore):
    """Connections that cannot write, as on a file this user may only read (tests run as
    root, whom file modes do not stop): SQLite's own read-only error on every write."""

    @contextmanager
    def _connect(self, *, migrating: bool = False) -> Iterator[sqlite3.Connection]:
        with super()._connect(migrating=migrating) as conn:
            conn.execute("PRAGMA query_only = ON")
            yield conn


def test_a_read_only_file_lists_the_same_without_keeping_lines(store: HistoryStore) -> None:
    with sqlite3.connect(store.path) as conn:
        conn.execute("DELETE FROM run_lines WHERE run_id IN (1, 5)")
    read_only = ReadOnlyStore(store.path)
    expected = typed_listing(store, status=tuple(RunStatus))
    assert read_only.list_json(status=tuple(RunStatus)) == expected
    assert set(kept(store)) == {2, 3, 4, 6}


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("unshare") is None,
    reason="a read-only bind mount of its own needs root and unshare",
)
def test_a_history_on_a_read_only_filesystem_lists_the_same(store: HistoryStore) -> None:
    """The real thing, in a mount namespace of the command's own: nothing can be kept,
    the listing is the same and exits 0."""
    with sqlite3.connect(store.path) as conn:
        conn.execute("DELETE FROM run_lines WHERE run_id IN (1, 5)")
    expected = json_array(typed_listing(store, status=tuple(RunStatus))) + "\n"
    folder = str(store.path.parent)
    script = (
        'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && ! touch "$1/x" 2>/dev/null'
        ' && shift && exec "$@"'
    )
    done = subprocess.run(
        ["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", folder,
         sys.executable, "-m", "tierdeck.app.cli", "history", "list", "--json", "--status",
         "all"],
        capture_output=True,
        text=True,
        env={**os.environ, "TIERDECK_DATA_DIR": folder},
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == expected
    assert set(kept(store)) == {2, 3, 4, 6}


def test_lines_read_before_another_writer_committed_are_not_kept(
    store: HistoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between the listing's read and its write another tierdeck renames run 2: the
    line computed from the old name must not be kept over the new one's absence."""
    with sqlite3.connect(store.path) as conn:
        conn.execute("DELETE FROM run_lines")
    keep = store_mod._keep_lines

    def renamed_meanwhile(conn: sqlite3.Connection, lines: dict[int, str], seen: int) -> None:
        other = sqlite3.connect(store.path)
        other.execute("UPDATE runs SET name = 'renamed meanwhile' WHERE id = 2")
        other.commit()
        other.close()
        keep(conn, lines, seen)

    monkeypatch.setattr(store_mod, "_keep_lines", renamed_meanwhile)
    store.list_json()
    assert kept(store) == {}
    monkeypatch.setattr(store_mod, "_keep_lines", keep)
    assert [json.loads(line)["name"] for line in store.list_json() if '"id": 2,' in line] == [
        "renamed meanwhile"
    ]
    assert_no_stale_line(store)


def test_a_v8_file_gets_the_table_and_lists_as_before(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    older_history(path, 8, varied_runs())
    store = HistoryStore(path)
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    assert kept(store) == {}
    assert store.list_json(status=tuple(RunStatus)) == typed_listing(store, status=tuple(RunStatus))
    assert set(kept(store)) == set(range(1, 7))


def test_the_light_reader_knows_this_schema_version() -> None:
    assert len(MIGRATIONS) == SCHEMA_VERSION


def test_what_a_line_holds_is_pinned_to_the_serializers_revision(store: HistoryStore) -> None:
    lines = [line for _, (_, line) in sorted(kept(store).items())]
    digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()
    assert LINE_DIGESTS.get(run_lines.REVISION) == digest, (
        f"the stored lines changed ({digest}): bump run_lines.REVISION and record the"
        " new digest in LINE_DIGESTS"
    )
