"""``tierdeck history`` through click's CliRunner, and the tables it prints.

One unit convention (MiB/s, read before write), per-job headlines for mixed runs, the
mark on runs stored before 0.2 whose clones shared one file, and a list that fits 80
columns on a terminal. A real terminal and real pipes are in test_cli_pipes.py.
"""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

import pytest
from tierdeck.app.cli.history import runs as cli_history
from tierdeck.app.cli.history.runs import list_lines, when_short
from tierdeck.app.history.run_lines import json_array
from tierdeck.app.history.store import HistoryStore
from tierdeck.core.bench_models import (
    DirectionSummary,
    FileLayout,
    JobSummary,
    RunResult,
    RunStatus,
)

from tests.unit.cli_support import run
from tests.unit.history.test_history import recorded_result

# Every test keeps its history in its own folder (tests/unit/conftest.py).
pytestmark = pytest.mark.usefixtures("data_dir")

OLD_NOTE = (
    "stored before 0.2: its numjobs clones shared one test file; figures are lower than plain fio's"
)


def _direction(mib: float) -> DirectionSummary:
    return DirectionSummary(int(mib * (1 << 20)), mib * 256, 4_000_000.0, 8_000_000)


def suite_result(**changes: object) -> RunResult:
    """seed 002's four tests: sequential 1M and random 4K, reads and writes."""
    jobs = (
        JobSummary("seq-read", "read", "1M", {"read": _direction(900.0)}),
        JobSummary("seq-write", "write", "1M", {"write": _direction(800.0)}),
        JobSummary("rand-read", "randread", "4k", {"read": _direction(30.0)}),
        JobSummary("rand-write", "randwrite", "4k", {"write": _direction(20.0)}),
    )
    summary = {"read": _direction(930.0), "write": _direction(820.0)}
    base = recorded_result(name="suite on cache", preset="seed002-suite", tags=())
    return replace(base, job_summaries=jobs, summary=summary, **changes)  # type: ignore[arg-type]


def old_layout_result(**changes: object) -> RunResult:
    """Stored by tierdeck 0.1: seed000's numjobs=8 clones wrote one shared file."""
    return replace(recorded_result(), file_layout=FileLayout.ONE_PER_JOB, **changes)  # type: ignore[arg-type]


@pytest.fixture
def stored(data_dir: Path) -> HistoryStore:
    store = HistoryStore(data_dir / "history.sqlite3")
    store.save(recorded_result(started_at=1_000.0))
    store.save(recorded_result(started_at=2_000.0, status=RunStatus.FAILED, error="boom"))
    store.save(recorded_result(started_at=3_000.0, preset=None, name="custom job", tags=()))
    return store


def header_and_rows(out: str) -> tuple[list[str], list[str]]:
    lines = out.splitlines()
    return lines[0].split("  "), lines[1:]


# ------------------------------------------------------------------ list
def test_history_list_shows_ok_runs_only_by_default(stored: HistoryStore) -> None:
    result = run("history", "list", "--json")
    assert [r["id"] for r in json.loads(result.stdout)] == [3, 1]
    every = json.loads(run("history", "list", "--json", "--status", "all").stdout)
    assert [r["id"] for r in every] == [3, 2, 1]
    failed = json.loads(run("history", "list", "--json", "--status", "failed").stdout)
    assert [(r["id"], r["error"]) for r in failed] == [(2, "boom")]


def test_history_list_json_is_each_run_whole_one_to_a_line(stored: HistoryStore) -> None:
    from tierdeck.app.history.run_json import result_to_json

    out = run("history", "list", "--json", "--status", "all").stdout
    lines = out.splitlines()
    assert lines[0] == "[" and lines[-1] == "]" and len(lines) == 3 + 2
    whole = [stored.get(run_id) for run_id in (3, 2, 1)]
    expected = [result_to_json(r) for r in whole if r is not None]
    assert json.loads(out) == json.loads(json.dumps(expected))
    assert expected[0]["series"] and expected[0]["devices"]  # the series are all there
    assert [json.loads(line.rstrip(",")) for line in lines[1:-1]] == json.loads(out)
    assert json_array([]) == "[]"


def test_history_list_filters(stored: HistoryStore) -> None:
    ids = lambda *a: [r["id"] for r in json.loads(run("history", "list", "--json", *a).stdout)]  # noqa: E731
    assert ids("--preset", "seed000-seqwrite") == [1]
    assert ids("--target", "/srv/lab/mnt/cache/") == [3, 1]
    assert ids("--target", "/elsewhere") == []
    assert ids("--tag", "baseline") == [1]


def test_history_list_preset_finds_runs_stored_under_its_former_name(
    stored: HistoryStore,
) -> None:
    # run 1 was stored as seed000-seqwrite, the preset's name before it was renamed
    stored.save(recorded_result(started_at=4_000.0, preset="nas-seqwrite-1m-qd8x8"))
    ids = lambda *a: [r["id"] for r in json.loads(run("history", "list", "--json", *a).stdout)]  # noqa: E731
    assert ids("--preset", "nas-seqwrite-1m-qd8x8") == [4, 1]
    assert ids("--preset", "seed000-seqwrite") == [4, 1]
    assert ids("--preset", "not-a-preset") == []


def test_history_list_text_reads_mib_per_second_read_first(stored: HistoryStore) -> None:
    out = run("history", "list").stdout
    lines = out.splitlines()
    assert [line.split()[0] for line in lines] == ["id", "3", "1"]
    assert "custom job" in out and "seed000-seqwrite on cache" in out
    header = lines[0].split()
    # read before write, as fio and the TUI show them; MiB/s, not MB/s
    assert header.index("read") < header.index("write")
    assert header.count("MiB/s") == 2 and "MB/s" not in out
    # the recorded run: read 41932556 B/s = 40.0 MiB/s, write 20967302 B/s = 20.0 MiB/s
    assert lines[2].split()[-4:] == ["40.0", "20.0", "baseline", "btrfs"]
    assert lines[1].split()[-2:] == ["40.0", "20.0"]
    assert "status" not in header  # ok runs only: no status column to read


def test_history_list_all_has_a_status_column(stored: HistoryStore) -> None:
    out = run("history", "list", "--status", "all").stdout
    assert out.splitlines()[0].split()[:3] == ["id", "started", "status"]
    assert [line.split()[2] for line in out.splitlines()[1:]] == ["ok", "failed", "ok"]


def test_history_list_shows_job_counts_for_a_mixed_run(data_dir: Path) -> None:
    store = HistoryStore(data_dir / "history.sqlite3")
    store.save(suite_result())
    out = run("history", "list").stdout
    row = out.splitlines()[1]
    assert row.endswith("2 jobs       2 jobs")
    assert "930.0" not in out and "820.0" not in out  # no mixed sums


def test_history_list_marks_runs_whose_clones_shared_a_file(data_dir: Path) -> None:
    store = HistoryStore(data_dir / "history.sqlite3")
    store.save(old_layout_result(started_at=1_000.0))
    store.save(recorded_result(started_at=2_000.0))
    result = run("history", "list")
    header, new_row, old_row = result.stdout.splitlines()
    assert old_row.split()[:2] == ["1", "*"]
    assert new_row.split()[:2] == ["2", when_short(2_000.0)]
    assert "*" not in header + new_row
    legend = "* stored before 0.2: clones shared one test file, figures too low"
    assert result.stderr.strip() == legend
    assert legend not in result.stdout  # the table stays the table in a pipe
    # a list without such runs has no mark column and no legend
    store.delete(1)
    clean = run("history", "list")
    assert clean.stderr == "" and "*" not in clean.stdout
    assert clean.stdout.splitlines()[1].split()[:2] == ["2", when_short(2_000.0)]


def test_history_list_fits_80_columns_on_a_terminal(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = HistoryStore(data_dir / "history.sqlite3")
    long_target = "/srv/storage/pools/tiered-media-pool/benchmarks/2025"
    long_name = "seed000-seqwrite on mergerfs /srv/storage/pools/tiered-media-pool (nightly)"
    target = replace(recorded_result().target, path=long_target)
    store.save(old_layout_result(name=long_name, target=target, tags=("baseline", "fw-1.2")))
    store.save(suite_result(target=target, status=RunStatus.CANCELLED))
    store.save(recorded_result(name="short", tags=()))
    monkeypatch.setattr(cli_history, "output_width", lambda: 80)
    out = run("history", "list", "--status", "all").stdout
    lines = out.splitlines()
    assert len(lines) == 4 and all(len(line) <= 80 for line in lines), out
    header, short, suite, long = lines
    assert header.split()[:3] == ["id", "started", "status"]
    # id, mark, started (2 words), status, name, target ...: the widest case
    assert long.split()[:5] == ["1", "*", *when_short(1_795_000_000.25).split(), "ok"]
    assert long.split()[5] == "seed000-seq…"  # the name, cut at its end
    assert long.split()[6] == "…arks/2025"  # the target, cut from the left
    assert short.split()[4] == "short"
    assert "cancelled" in suite and suite.endswith("2 jobs       2 jobs")
    assert "tags" not in header  # given up before the name is cut further
    # in a pipe nothing is cut: the full text stays greppable
    monkeypatch.setattr(cli_history, "output_width", lambda: None)
    full = run("history", "list", "--status", "all").stdout
    assert long_name in full and long_target in full and "…" not in full
    assert "baseline fw-1.2" in full


def test_history_list_keeps_what_fits_whole(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = HistoryStore(data_dir / "history.sqlite3")
    target = replace(recorded_result().target, path="/mnt/cache")
    store.save(recorded_result(name="cache baseline", target=target, tags=("fw",)))
    monkeypatch.setattr(cli_history, "output_width", lambda: 80)
    out = run("history", "list").stdout
    assert "…" not in out and "cache baseline" in out and "/mnt/cache" in out
    assert out.splitlines()[0].split()[-1] == "tags"


def test_history_list_empty_says_so(data_dir: Path) -> None:
    result = run("history", "list", "--status", "cancelled")
    assert result.exit_code == 0 and "no cancelled runs stored" in result.stderr


def test_history_list_help_explains_marks_and_units() -> None:
    text = run("history", "list", "--help").stdout
    assert '"*"' in text and "before tierdeck 0.2" in text
    assert "MiB/s" in text and '"N jobs"' in text


# ------------------------------------------------------------------ tables


def test_list_lines_cut_the_target_from_the_left_and_the_name_at_its_end() -> None:
    base = recorded_result(id=7, started_at=time.time())
    target = replace(base.target, path="/very/long/path/to/the/pool/disk1")
    runs = [replace(base, name="n" * 60, target=target, tags=("t" * 30,))]
    lines = list_lines(runs, with_status=False, limit=80)
    assert all(len(line) <= 80 for line in lines)
    # the target gives way first, then the tags; the name keeps what is left
    assert lines[1].split()[3:5] == ["n" * 23 + "…", "…/pool/disk1"]
    assert "tags" not in lines[0]
    assert list_lines(runs, with_status=False, limit=None)[1].count("n") >= 60


def test_list_lines_leave_tags_out_before_the_line_overflows() -> None:
    base = recorded_result(id=1234, started_at=0.0, status=RunStatus.CANCELLED)
    target = replace(base.target, path="/p" * 40)
    runs = [replace(base, name="x" * 80, target=target, tags=("a-long-tag",),
                    file_layout=FileLayout.ONE_PER_JOB)]  # fmt: skip
    lines = list_lines(runs, with_status=True, limit=80)
    assert all(len(line) <= 80 for line in lines), lines
    assert "tags" not in lines[0] and "a-long-tag" not in lines[1]
    assert "cancelled" in lines[1] and "*" in lines[1].split()[:2]


def test_when_short_drops_the_year_only_for_this_year() -> None:
    now = time.mktime((2025, 6, 1, 12, 0, 0, 0, 0, -1))
    assert when_short(time.mktime((2025, 3, 4, 5, 6, 0, 0, 0, -1)), now) == "03-04 05:06"
    assert when_short(time.mktime((2024, 3, 4, 5, 6, 0, 0, 0, -1)), now) == "2024-03-04"


# ------------------------------------------------------------------ show


def test_history_show(stored: HistoryStore) -> None:
    doc = json.loads(run("history", "show", "1", "--json").stdout)
    assert doc["id"] == 1 and "fio" not in doc
    assert json.loads(run("history", "show", "1", "--json", "--fio").stdout)["fio"]["jobs"]
    text = run("history", "show", "1", "--series").stdout
    assert "target:   btrfs /srv/lab/mnt/cache (mount) /srv/lab/mnt/cache" in text
    assert "kernel 6.18.0, fio-3.33, btrfs (rw,relatime,space_cache=v2), mergerfs 2.33.5" in text
    assert "per second" in text and "warning: direct=0" in text
    series_header = text.split("per second")[1].splitlines()[1].split()
    assert series_header[:5] == ["t", "read", "MiB/s", "write", "MiB/s"]
    assert "stored before 0.2" not in text
    missing = run("history", "show", "99")
    assert missing.exit_code == 1 and "no run #99" in missing.stderr


def test_history_show_prints_each_job_of_a_mixed_run(data_dir: Path) -> None:
    HistoryStore(data_dir / "history.sqlite3").save(suite_result())
    text = run("history", "show", "1").stdout
    rows = [line.split()[:5] for line in text.splitlines() if line.startswith(("seq-", "rand-"))]
    assert rows == [
        ["seq-read", "read", "1M", "read", "900.0"],
        ["seq-write", "write", "1M", "write", "800.0"],
        ["rand-read", "randread", "4k", "read", "30.0"],
        ["rand-write", "randwrite", "4k", "write", "20.0"],
    ]
    assert "jobs differ in rw/bs: no whole-run figure" in text and "all jobs" not in text
    doc = json.loads(run("history", "show", "1", "--json").stdout)
    assert doc["mixed_jobs"] is True and doc["summary"]["read"]["bw_bytes"] > 0  # JSON keeps it


def test_history_show_says_when_clones_shared_one_file(data_dir: Path) -> None:
    HistoryStore(data_dir / "history.sqlite3").save(old_layout_result())
    text = run("history", "show", "1").stdout
    assert f"note: {OLD_NOTE}" in text
    assert json.loads(run("history", "show", "1", "--json").stdout)["clones_shared_file"] is True


# ------------------------------------------------------------------ rename, tag, delete
def test_history_rename_and_tag(stored: HistoryStore) -> None:
    assert run("history", "rename", "1", "after fw update").exit_code == 0
    assert run("history", "tag", "1", "fw", "baseline").stdout.strip() == "baseline btrfs fw"
    assert run("history", "tag", "1", "btrfs", "--remove").stdout.strip() == "baseline fw"
    assert run("history", "tag", "1", "--clear", "new").stdout.strip() == "new"
    run1 = stored.get(1)
    assert run1 is not None and (run1.name, run1.tags) == ("after fw update", ("new",))
    assert run("history", "rename", "42", "x").exit_code == 1


def test_history_delete_asks_on_a_terminal(
    stored: HistoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli_history, "_stdin_is_terminal", lambda: True)
    declined = run("history", "delete", "1", input="n\n")
    assert declined.exit_code == 1 and "Delete run #1" in declined.output
    assert stored.get(1) is not None
    assert run("history", "delete", "1", input="y\n").exit_code == 0
    assert stored.get(1) is None
    assert run("history", "delete", "3", "--yes").exit_code == 0
    assert stored.get(3) is None


def test_history_delete_off_a_terminal_does_not_ask(stored: HistoryStore) -> None:
    result = run("history", "delete", "2")
    assert result.exit_code == 0 and "deleted run #2" in result.stderr
    assert stored.get(2) is None


def test_history_refuses_a_newer_database(data_dir: Path) -> None:
    import sqlite3

    data_dir.mkdir()
    with sqlite3.connect(data_dir / "history.sqlite3") as conn:
        conn.execute("PRAGMA user_version = 99")
    result = run("history", "list")
    assert result.exit_code == 1
    assert "newer tierdeck (history schema version 99" in result.stderr
