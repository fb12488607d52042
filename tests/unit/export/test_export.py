"""app/export/formats.py: each format for one run and for a comparison, the HTML report's
self-containment, escaping (property tests), and where files are written.

Runs are the recorded lab runs of tests/fixtures/bench_screens (as test_compare.py).
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tierdeck.app.compare.render import CSV_FIELDS, md_escape
from tierdeck.app.export.formats import (
    ENV_FIELDS,
    RUN_CSV_FIELDS,
    ExportFormat,
    default_name,
    render_export,
    write_export,
)
from tierdeck.app.export.parts import ExportRefused
from tierdeck.core.bench_models import RunResult, RunStatus
from tierdeck.core.compare.comparison import Metric

from tests.unit.core.compare.test_compare import recording


def suite() -> RunResult:
    return recording("suite_mixed", 3)


def pair() -> list[RunResult]:
    return [recording("pool_write", 1), recording("branch_randrw", 2)]


# --------------------------------------------------------------------- Markdown


def table_lines(text: str, first: str) -> list[str]:
    lines = text.splitlines()
    start = lines.index(next(line for line in lines if line.startswith(first)))
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
    return lines[start:end]


def cells(line: str) -> list[str]:
    """A Markdown table row's cells, split at pipes no backslash escapes."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def test_markdown_of_one_run_has_its_jobs_options_and_environment() -> None:
    text = render_export([suite()], ExportFormat.MARKDOWN)
    assert text.startswith("# tierdeck run #3: seed002 suite\n")
    table = table_lines(text, "| job |")
    assert cells(table[0]) == ["job", "dir", "MiB/s", "IOPS", "lat mean", "lat p99"]
    assert cells(table[1]) == ["---", "---", "---:", "---:", "---:", "---:"]
    assert [cells(r)[:2] for r in table[2:]] == [
        ["write\\_throughput", "write"],
        ["write\\_iops", "write"],
        ["read\\_throughput", "read"],
        ["read\\_iops", "read"],
    ]
    assert "```ini\n[global]\ndirectory=/tmp/capvqqmq28w/mnt\n" in text
    env = table_lines(text, "|  | #3")
    assert ["kernel", "6.18.44-fc-v782"] in [cells(r) for r in env]


def test_markdown_of_several_runs_is_the_comparison_plus_environments() -> None:
    text = render_export(pair(), ExportFormat.MARKDOWN)
    table = table_lines(text, "| job |")
    assert cells(table[0]) == ["job", "dir", "metric", "#1 pool write 1M", "#2 branch randrw 4k"]
    assert all(len(cells(r)) == 5 for r in table)
    assert "- `job[pool-write].bs`: 1M / 4k" in text
    env = [cells(r) for r in table_lines(text, "|  | #1")]
    assert ["filesystem", "fuse.mergerfs", "ext4"] in env


# --------------------------------------------------------------------- CSV


def test_csv_of_one_run_parses_with_one_row_per_job_and_direction() -> None:
    rows = list(csv.DictReader(io.StringIO(render_export([suite()], ExportFormat.CSV))))
    assert tuple(rows[0]) == (*RUN_CSV_FIELDS, *ENV_FIELDS)
    assert [(r["job"], r["rw"], r["bs"], r["direction"]) for r in rows] == [
        ("write_throughput", "write", "1M", "write"),
        ("write_iops", "randwrite", "4K", "write"),
        ("read_throughput", "read", "1M", "read"),
        ("read_iops", "randread", "4K", "read"),
    ]
    first = suite().job_summaries[0].directions["write"]
    assert int(rows[0]["bw_bytes"]) == first.bw_bytes
    assert rows[0]["fio_version"] == "fio-3.33" and rows[0]["target_kind"] == "mount"


def test_csv_of_several_runs_is_the_compare_csv_with_environment_columns() -> None:
    rows = list(csv.DictReader(io.StringIO(render_export(pair(), ExportFormat.CSV))))
    assert tuple(rows[0]) == (*CSV_FIELDS, *ENV_FIELDS)
    assert {(r["run_id"], r["fs_type"]) for r in rows} == {("1", "fuse.mergerfs"), ("2", "ext4")}


# --------------------------------------------------------------------- JSON


def test_json_of_one_run_is_tierdeck_run_with_fio() -> None:
    doc = json.loads(render_export([suite()], ExportFormat.JSON))
    assert doc["schema"] == "tierdeck.run/1" and doc["id"] == 3
    assert {"summary", "jobs", "spec", "series", "env", "fio"} <= set(doc)
    assert doc["fio"]["fio version"] == "fio-3.33"


def test_json_of_several_runs_is_tierdeck_compare_with_each_env() -> None:
    doc = json.loads(render_export(pair(), ExportFormat.JSON))
    assert doc["schema"] == "tierdeck.compare/1"
    assert {"baseline", "comparable", "runs", "jobs", "differences"} <= set(doc)
    assert [r["env"]["fs_type"] for r in doc["runs"]] == ["fuse.mergerfs", "ext4"]


def test_the_baseline_is_the_callers() -> None:
    doc = json.loads(render_export(pair(), ExportFormat.JSON, baseline=1))
    assert doc["baseline"] == 2


def test_runs_that_do_not_compare_are_refused() -> None:
    failed = recording("failed_engine", 4)
    assert failed.status is RunStatus.FAILED
    with pytest.raises(ExportRefused, match="only successful runs compare"):
        render_export([suite(), failed], ExportFormat.MARKDOWN)
    assert "error" in render_export([failed], ExportFormat.MARKDOWN)  # alone: shown as it is


# --------------------------------------------------------------------- HTML


class Page(HTMLParser):
    """What a browser would load and show: tags, external references, text."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.ids: list[str] = []
        self.external: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        values = dict(attrs)
        if values.get("id"):
            self.ids.append(str(values["id"]))
        for name in ("src", "href", "xlink:href", "data"):
            value = values.get(name) or ""
            if value and not value.startswith("#"):
                self.external.append(f"{tag} {name}={value}")

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def page(text: str) -> Page:
    parsed = Page()
    parsed.feed(text)
    parsed.close()
    return parsed


def test_html_report_is_self_contained_with_table_panel_environment_and_charts() -> None:
    runs = [*pair(), suite()]
    text = render_export(runs, ExportFormat.HTML)
    parsed = page(text)
    assert parsed.external == []  # nothing to fetch: no script, style sheet, image, font
    assert "script" not in parsed.tags and "link" not in parsed.tags
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text)
    assert {"compare", "comparability", "environment"} <= set(parsed.ids)
    charts = [i for i in parsed.ids if i.startswith("chart-") and i.split("-", 1)[1] in
              {m.value for m in Metric}]  # fmt: skip
    assert charts == [f"chart-{m.value}" for m in Metric]  # one per metric
    assert parsed.tags.count("svg") == len(Metric)
    body = " ".join(parsed.text)
    assert "#3 seed002 suite" in body and "job[pool-write].bs" in body


def test_html_of_one_run_has_its_summary_job_file_and_charts() -> None:
    parsed = page(render_export([suite()], ExportFormat.HTML))
    assert {"summary", "jobfile", "environment"} <= set(parsed.ids)
    assert parsed.tags.count("svg") == len(Metric) and parsed.external == []


def test_html_without_series_says_so_and_draws_nothing() -> None:
    imported = replace(suite(), series=())
    parsed = page(render_export([imported], ExportFormat.HTML))
    assert "svg" not in parsed.tags
    assert "No per-second series" in " ".join(parsed.text)


# --------------------------------------------------------------------- escaping

# What a user can type as a run's name, a target label or a job option value.
user_text = st.text(
    st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=40
).filter(lambda t: t.strip() == t)
# A job option's value as JobSpec accepts it (fio cuts a line at ';' and '#').
option_text = user_text.filter(lambda t: not any(c in t for c in ";#"))
HOSTILE = ["<script>alert(1)</script>", "a\"b'c&amp;", "x | y \\| z", "`code` *b* [l](u)"]


def with_text(name: str, label: str, option: str) -> RunResult:
    run = suite()
    job = replace(run.jobs[0], extra={**run.jobs[0].extra, "description": option})
    return replace(
        run, name=name, target=replace(run.target, label=label), jobs=(job, *run.jobs[1:])
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.sampled_from(HOSTILE), user_text), user_text, option_text)
def test_any_name_label_or_option_is_text_in_html(name: str, label: str, option: str) -> None:
    parsed = page(render_export([with_text(name, label, option)], ExportFormat.HTML))
    assert parsed.external == []
    assert set(parsed.tags) <= {
        "html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "ul", "li",
        "table", "thead", "tbody", "tr", "th", "td", "span", "pre", "figure", "footer",
        # pygal's SVG
        "svg", "defs", "g", "path", "text", "rect", "desc", "circle", "line",
        "tspan",
    }  # fmt: skip
    body = "".join(parsed.text)
    assert f"#3 {name}" in body and label in body and f"description={option}" in body


@settings(max_examples=100, deadline=None)
@given(st.one_of(st.sampled_from(HOSTILE), user_text, st.text(max_size=30)))
def test_any_text_is_one_markdown_cell(text: str) -> None:
    escaped = md_escape(text)
    row = f"| {escaped} | x |"
    assert cells(row)[1] == "x" and len(cells(row)) == 2
    assert "\n" not in escaped and "\r" not in escaped
    assert "<" not in escaped and ">" not in escaped
    # every Markdown special is escaped: undoing the escapes gives the text back
    undone = re.sub(r"\\(.)", r"\1", escaped)
    undone = undone.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    assert undone == " ".join(text.splitlines())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.sampled_from(HOSTILE), user_text), user_text)
def test_any_name_or_label_keeps_the_markdown_tables_whole(name: str, label: str) -> None:
    text = render_export([with_text(name, label, "x")], ExportFormat.MARKDOWN)
    for first in ("| job |", "|  | #3"):
        table = table_lines(text, first)
        assert len({len(cells(row)) for row in table}) == 1
    assert "<script" not in text


# --------------------------------------------------------------------- files


def test_default_names() -> None:
    assert default_name([suite()], ExportFormat.MARKDOWN, redact=False) == "tierdeck-run-3.md"
    assert default_name(pair(), ExportFormat.HTML, redact=True) == (
        "tierdeck-runs-1-2-redacted.html"
    )


def test_an_existing_file_is_never_replaced_unless_named(tmp_path: Path) -> None:
    mine = tmp_path / "tierdeck-runs-1-2.csv"
    mine.write_text("the user's own file\n")
    first = write_export(pair(), ExportFormat.CSV, folder=tmp_path)
    assert first.path == tmp_path / "tierdeck-runs-1-2_2.csv" and first.name_taken == mine
    assert "tierdeck-runs-1-2.csv exists and was left alone" in first.message()
    second = write_export(pair(), ExportFormat.CSV, folder=tmp_path)
    assert second.path.name == "tierdeck-runs-1-2_3.csv"
    assert mine.read_text() == "the user's own file\n"
    assert first.path.read_text() == render_export(pair(), ExportFormat.CSV)
    named = write_export(pair(), ExportFormat.CSV, mine)
    assert named.path == mine and named.name_taken is None and mine.read_text().startswith("run_id")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "tierdeck-runs-1-2.csv",
        "tierdeck-runs-1-2_2.csv",
        "tierdeck-runs-1-2_3.csv",
    ]  # fmt: skip: and no temp file left


def test_the_file_gets_the_users_umask(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        written = write_export([suite()], ExportFormat.JSON, folder=tmp_path)
    finally:
        os.umask(old)
    assert written.path.stat().st_mode & 0o777 == 0o640


def test_a_failed_write_leaves_no_placeholder(tmp_path: Path) -> None:
    with pytest.raises(ExportRefused):
        write_export([suite(), recording("failed_engine", 4)], ExportFormat.CSV, folder=tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_html_compare_table_fits_a_page_with_long_run_names() -> None:
    """Checked in headless Chromium at 1200 px: a header's long name wraps, a figure
    and its delta do not, and a table wider than the page scrolls inside its box."""
    long = "ext4 seqwrite 1M QD8 numjobs=4 on /mnt/disk1/a/very/long/path/to/the/bench"
    text = render_export([replace(r, name=long + f" {r.id}") for r in pair()], ExportFormat.HTML)
    assert '<div class="wide"><table id="compare">' in text
    style = text[text.index("<style>") : text.index("</style>")]
    rules = dict(re.findall(r"^([^{\n]+?)\s*\{([^}]*)\}", style, re.M))
    assert "nowrap" not in rules["td.num, th.num"] and "nowrap" in rules["td.num"]
    assert "overflow-wrap: anywhere" in rules["th, td"]
    assert "overflow-x: auto" in rules[".wide"]
