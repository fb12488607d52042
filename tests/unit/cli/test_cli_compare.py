"""``tierdeck compare`` through click's CliRunner on a history of its own.

The stored runs are the recorded lab runs of tests/fixtures/bench_screens (seed 002's
suite, a stonewalled pair, a cached pool write, a failed engine) and the recorded fio
stream of tests.unit.history.test_history.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace
from pathlib import Path

import pytest
from tierdeck.app.history.store import HistoryStore
from tierdeck.core.bench_models import RunStatus

from tests.snapshots.apps.bench_data import fill_history
from tests.unit.cli_support import run
from tests.unit.history.test_history import recorded_result


@pytest.fixture
def stored(data_dir: Path) -> list[int]:
    store = HistoryStore(data_dir / "history.sqlite3")
    ids = fill_history(store, ["suite_mixed", "stonewall_step", "pool_write", "failed_engine"])
    base = replace(recorded_result(), warnings=())
    ids.append(store.save(base))
    ids.append(store.save(replace(base, jobs=tuple(replace(j, bs="128k") for j in base.jobs))))
    ids.append(store.save(replace(base, status=RunStatus.CANCELLED)))
    return ids  # 1 suite, 2 step, 3 pool, 4 failed, 5 1M, 6 128k, 7 cancelled


def test_json_deltas_match_the_stored_figures(stored: list[int], data_dir: Path) -> None:
    result = run("compare", "5", "6", "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["schema"] == "tierdeck.compare/1"
    assert [r["id"] for r in doc["runs"]] == [5, 6] and doc["baseline"] == 5
    store = HistoryStore(data_dir / "history.sqlite3")
    a, b = store.get(5), store.get(6)
    assert a is not None and b is not None
    write = doc["jobs"][0]["directions"]["write"]
    base_bw, other_bw = (a.job_summaries[0].directions["write"].bw_bytes,
                         b.job_summaries[0].directions["write"].bw_bytes)  # fmt: skip
    assert [c["value"] for c in write["bw_bytes"]] == [base_bw, other_bw]
    assert write["bw_bytes"][1]["delta_pct"] == pytest.approx(0.0)
    assert {
        "key": "job[stream].bs",
        "values": ["1M", "128k"],
        "kind": "job",
        "unknown": [False, False],
    } in doc["differences"]
    assert doc["comparable"] is False


def test_baseline_moves_the_deltas(stored: list[int]) -> None:
    doc = json.loads(run("compare", "1", "2", "--baseline", "2", "--format", "json").stdout)
    assert doc["baseline"] == 2
    cells = doc["jobs"][0]["directions"]["write"]["bw_bytes"]
    assert cells[1]["verdict"] == "baseline" and cells[0]["delta_pct"] > 1000


def test_the_default_table_is_plain_text_in_a_pipe(stored: list[int]) -> None:
    result = run("compare", "1", "2", "3")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["job", "dir", "metric", "#1", "seed002", "suite", "(baseline)",
                                "#2", "stonewall", "step", "#3", "pool", "write", "1M"]  # fmt: skip
    assert "\x1b[" not in result.stdout
    assert all(line == line.rstrip() for line in lines)
    assert any(line.startswith("job[write_iops].bs") for line in lines)
    assert any("cache warning" in line for line in lines)


def test_markdown_and_csv(stored: list[int]) -> None:
    markdown = run("compare", "5", "6", "--format", "markdown").stdout
    assert markdown.startswith("| job | dir | metric | #5 ")
    assert "- `job[stream].bs`: 1M / 128k" in markdown
    rows = list(csv.DictReader(io.StringIO(run("compare", "5", "6", "--format", "csv").stdout)))
    assert [(r["run_id"], r["direction"]) for r in rows] == [
        ("5", "read"), ("6", "read"), ("5", "write"), ("6", "write"),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["5"], "compare needs at least 2 run ids, got 1"),
        ([], "compare needs at least 2 run ids, got 0"),
        (["5", "99"], "no run #99 in the history"),
        (["5", "4"], "run #4 (broken engine) failed: only successful runs compare"),
        (["5", "7"], "cancelled: only successful runs compare"),
        (["5", "6", "--baseline", "1"], "baseline #1 is not one of the compared runs"),
        (["5", "5"], "run #5 is given twice"),
        ([str(i) for i in range(1, 10)], "compare takes at most 8 runs, got 9"),
    ],
)
def test_refusals_exit_2_with_one_line(stored: list[int], args: list[str], message: str) -> None:
    result = run("compare", *args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_options_given_twice_are_refused(stored: list[int]) -> None:
    result = run("compare", "5", "6", "--format", "csv", "--format", "json")
    assert result.exit_code == 2 and "given twice" in result.stderr


def test_help_explains_baseline_noise_and_formats() -> None:
    text = " ".join(run("compare", "--help").stdout.split())
    for words in ("--baseline", "within noise", "coefficient of variation", "tierdeck.compare/1",
                  "markdown", "csv", "Exits 2"):  # fmt: skip
        assert words in text


def test_json_flag_is_format_json_like_every_other_command(stored: list[int]) -> None:
    flag, option = run("compare", "5", "6", "--json"), run("compare", "5", "6", "--format", "json")
    assert flag.exit_code == 0, flag.output
    assert flag.stdout == option.stdout
    assert run("compare", "5", "6", "--json", "--format", "json").exit_code == 0
    clash = run("compare", "5", "6", "--json", "--format", "csv")
    assert clash.exit_code == 2 and "exclude each other" in clash.stderr


def test_compare_reads_neither_fio_s_document_nor_the_disks(
    stored: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[tuple[int, bool, bool]] = []
    get = HistoryStore.get

    def recording(
        self: HistoryStore, run_id: int, *, fio: bool = True, devices: bool = True
    ) -> object:
        asked.append((run_id, fio, devices))
        return get(self, run_id, fio=fio, devices=devices)

    monkeypatch.setattr(HistoryStore, "get", recording)
    whole = json.loads(run("compare", "5", "6", "--format", "json").stdout)
    assert asked == [(5, False, False), (6, False, False)]
    monkeypatch.setattr(HistoryStore, "get", get)
    # what it prints is what the whole runs give
    from tierdeck.app.compare.render import to_json
    from tierdeck.core.compare.comparison import compare_runs

    store = HistoryStore()
    runs = [store.get(5), store.get(6)]
    assert whole == json.loads(json.dumps(to_json(compare_runs(runs)), ensure_ascii=False))  # type: ignore[arg-type]
