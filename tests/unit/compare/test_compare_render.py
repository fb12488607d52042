"""app/compare/render: the tierdeck.compare/1 JSON, CSV, Markdown and the rich table.

Comparisons are built from the recorded lab runs (tests/fixtures/bench_screens) and the
recorded fio stream of tests.unit.history.test_history, as in test_compare.py.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import re

from rich.console import Console
from tierdeck.app.compare.render import (
    CSV_FIELDS,
    SCHEMA,
    distinct_label,
    format_delta,
    to_csv,
    to_json,
    to_markdown,
    to_rich,
)
from tierdeck.core.compare.comparison import Cell, Comparison, Verdict, compare_runs
from tierdeck.core.imports import ImportFormat, ImportSource

from tests.unit.core.compare.test_compare import one_write_job, plain, recording, write_series


def suite_vs_step() -> Comparison:
    return compare_runs([recording("suite_mixed", 1), recording("stonewall_step", 2)])


def test_json_has_the_documented_keys_and_is_plain_json() -> None:
    comparison = suite_vs_step()
    doc = json.loads(json.dumps(to_json(comparison)))
    assert doc["schema"] == SCHEMA == "tierdeck.compare/1"
    assert set(doc) == {"schema", "baseline", "comparable", "runs", "jobs", "differences"}
    assert doc["baseline"] == 1
    run = doc["runs"][1]
    assert set(run) >= {"id", "name", "started_at", "target", "preset", "status", "warnings"}
    assert set(run["target"]) == {"path", "kind", "label"}
    job = doc["jobs"][0]
    assert job["names"] == ["write_throughput", "capped-20m"]
    assert job["matched_by"] == ["first", "position"]
    cells = job["directions"]["write"]["bw_bytes"]
    assert set(cells[1]) == {
        "value", "delta_pct", "spread_pct", "noise_pct", "within_noise", "verdict",
    }  # fmt: skip
    base, other = cells
    assert base["delta_pct"] is None and base["verdict"] == "baseline"
    assert other["delta_pct"] == 100 * (other["value"] - base["value"]) / base["value"]
    assert set(job["directions"]["write"]) == {"bw_bytes", "iops", "lat_mean_ns", "lat_p99_ns"}
    bs = next(d for d in doc["differences"] if d["key"] == "job[write_iops].bs")
    assert bs == {
        "key": "job[write_iops].bs",
        "values": ["4K", "1M"],
        "kind": "job",
        "unknown": [False, False],
    }


def test_json_within_noise_is_null_when_the_noise_is_unknown() -> None:
    steady = one_write_job(1, 100.0, write_series([80, 120, 100, 100]))
    near = one_write_job(2, 105.0, write_series([105] * 4))
    imported = one_write_job(3, 105.0, ())
    doc = to_json(compare_runs([steady, near, imported]))
    cells = doc["jobs"][0]["directions"]["write"]["bw_bytes"]
    assert [c["within_noise"] for c in cells] == [None, True, None]
    assert [c["verdict"] for c in cells] == ["baseline", "noise", "unknown"]


def test_csv_has_one_row_per_run_job_and_direction_and_parses_back() -> None:
    comparison = suite_vs_step()
    rows = list(csv.DictReader(io.StringIO(to_csv(comparison))))
    assert tuple(rows[0]) == CSV_FIELDS
    # suite: four jobs, one direction each; the step run has two jobs in the first rows
    assert [(r["run_id"], r["job"], r["direction"]) for r in rows] == [
        ("1", "write_throughput", "write"),
        ("2", "write_throughput", "write"),
        ("1", "write_iops", "write"),
        ("2", "write_iops", "write"),
        ("1", "read_throughput", "read"),
        ("1", "read_iops", "read"),
    ]
    assert rows[1]["run_job"] == "capped-20m" and rows[1]["matched_by"] == "position"
    base = comparison.rows[0].directions[0].metrics[0].cells
    assert float(rows[1]["bw_bytes"]) == base[1].value
    assert float(rows[1]["bw_bytes_delta_pct"]) == base[1].delta_pct
    assert rows[0]["bw_bytes_delta_pct"] == "" and rows[0]["baseline"] == "1"


def test_markdown_is_a_table_with_one_column_per_run() -> None:
    runs = [recording("suite_mixed", 1), recording("stonewall_step", 2), plain(3)]
    text = to_markdown(compare_runs(runs))
    table = [line for line in text.splitlines() if line.startswith("|")]
    header = [c.strip() for c in table[0].strip("|").split("|")]
    assert header == ["job", "dir", "metric", "#1 seed002 suite", "#2 stonewall step",
                      "#3 seed000-seqwrite on cache"]  # fmt: skip
    assert table[1] == "|---|---|---|---:|---:|---:|"
    for line in table:
        assert line.count("|") - line.count("\\|") == len(header) + 1
    assert "| write\\_throughput | write | MiB/s |" in text
    assert "- `job[write_iops].bs`: 4K / 1M / -" in text


def test_markdown_of_identical_runs_says_comparable() -> None:
    text = to_markdown(compare_runs([plain(1), plain(2)]))
    assert "comparable" in text and "- `" not in text


def test_deltas_are_coloured_by_meaning_and_noise_is_dim() -> None:
    base = one_write_job(1, 100.0, write_series([100, 101, 99, 100]))
    runs = [base, one_write_job(2, 130.0, write_series([130] * 4))]
    runs.append(one_write_job(3, 70.0, write_series([70] * 4)))
    runs.append(one_write_job(4, 100.5, write_series([100.5] * 4)))
    console = Console(record=True, width=200, force_terminal=True, color_system="standard")
    console.print(to_rich(compare_runs(runs)))
    styled = console.export_text(styles=True, clear=False)
    assert "\x1b[32m+30.0%" in styled  # green: more bandwidth
    assert "\x1b[31m-30.0%" in styled  # red
    assert "\x1b[2m≈ +0.5%" in styled  # dim, within noise
    plain_text = console.export_text()
    assert "(baseline)" in plain_text.splitlines()[0]


def test_format_delta() -> None:
    assert format_delta(Cell(1.0, 12.06, None, None, Verdict.UNKNOWN)) == "? +12.1%"
    assert format_delta(Cell(1.0, 12.06, 1.0, 3.0, Verdict.BETTER)) == "+12.1%"
    assert format_delta(Cell(1.0, -2.0, 1.0, 3.0, Verdict.NOISE)) == "≈ -2.0%"
    assert format_delta(Cell(1.0, None, None, None, Verdict.BASELINE)) == ""


def test_markdown_keeps_a_name_with_backslash_pipe_in_its_cell() -> None:
    # "\|" in a name once split the row: the backslash escaped the escape.
    base = suite_vs_step()
    odd = dataclasses.replace(base.runs[1], name="a \\| b <c> & d")
    table = to_markdown(compare_runs([base.runs[0], odd]))
    header = next(line for line in table.splitlines() if line.startswith("| job"))
    cells = re.split(r"(?<!\\)\|", header.strip().strip("|"))
    assert len(cells) == 3 + 2
    assert "&lt;c&gt; &amp; d" in header


def test_an_imported_runs_deltas_say_the_noise_is_unknown_and_the_legends_why() -> None:
    steady = one_write_job(1, 100.0, write_series([80, 120, 100, 100]))
    source = ImportSource("fio.json", "0" * 64, ImportFormat.FIO_JSON)
    imported = dataclasses.replace(one_write_job(2, 105.0, ()), imported=source)
    comparison = compare_runs([steady, imported])
    markdown = to_markdown(comparison)
    assert "105.0 (? +5.0%)" in markdown
    assert "≈: within the runs' own noise; ?: noise unknown (imported)" in markdown
    console = Console(width=200, record=True)
    console.print(to_rich(comparison))
    text = console.export_text()
    assert "? +5.0%" in text and "?: noise unknown (imported)" in text
    short = one_write_job(3, 105.0, write_series([105] * 2))  # two seconds: too few
    assert "?: noise unknown (too few full seconds)" in to_markdown(compare_runs([steady, short]))
    steady_too = one_write_job(4, 105.0, write_series([105] * 4))
    assert "noise unknown" not in to_markdown(compare_runs([steady, steady_too]))


def test_headers_tell_runs_apart_by_the_words_that_differ() -> None:
    names = [
        "ext4 seqwrite 1M QD8 numjobs=1 on /mnt/disk1",
        "ext4 seqwrite 1M QD8 numjobs=4 on /mnt/disk1",
        "ext4 seqwrite 1M QD8 numjobs=8 on /mnt/disk1",
    ]
    runs = [dataclasses.replace(plain(12 + i), name=n) for i, n in enumerate(names)]
    labels = [distinct_label(runs, i, 17) for i in range(3)]
    assert labels == ["#12 …numjobs=1…", "#13 …numjobs=4…", "#14 …numjobs=8…"]
    assert distinct_label(runs, 0, 60) == "#12 " + names[0]  # whole when it fits
    # the words shared with the most similar run go, not only those shared by all
    other = dataclasses.replace(plain(15), name="xfs randread 4k")
    assert distinct_label([*runs[:2], other], 1, 17) == "#13 …numjobs=4…"
    assert distinct_label([*runs[:2], other], 2, 12) == "#15 xfs ran…"
