"""``tierdeck history export`` through click's CliRunner, on a history of its own.

Stored runs: the recorded lab runs of tests/fixtures/bench_screens, and the run of
test_redact.py that holds every kind of identifier.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from tierdeck.app.history.store import HistoryStore
from tierdeck.backends.host import LiveHost

from tests.snapshots.apps.bench_data import fill_history
from tests.unit.cli_support import run
from tests.unit.core.test_redact import HOST, SERIAL, UUID, identifying_run


@pytest.fixture
def stored(data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    store = HistoryStore(data_dir / "history.sqlite3")
    ids = fill_history(store, ["suite_mixed", "pool_write", "failed_engine"])
    ids.append(store.save(identifying_run()))
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.chdir(out)
    return ids  # 1 suite, 2 pool, 3 failed, 4 identifying


def test_writes_the_default_file_here_and_says_where(stored: list[int]) -> None:
    result = run("history", "export", "1", "2", "--format", "csv")
    assert result.exit_code == 0, result.output
    path = Path.cwd() / "tierdeck-runs-1-2.csv"
    assert result.stdout == f"wrote {path}\n"
    rows = list(csv.DictReader(io.StringIO(path.read_text())))
    assert {r["run_id"] for r in rows} == {"1", "2"}


def test_an_existing_file_is_left_alone_and_the_message_says_so(stored: list[int]) -> None:
    Path("tierdeck-run-1.md").write_text("mine\n")
    result = run("history", "export", "1")
    assert result.exit_code == 0, result.output
    assert "tierdeck-run-1_2.md (tierdeck-run-1.md exists and was left alone)" in result.stdout
    assert Path("tierdeck-run-1.md").read_text() == "mine\n"
    assert Path("tierdeck-run-1_2.md").read_text().startswith("# tierdeck run #1: ")


def test_output_names_the_file_and_its_extension_the_format(stored: list[int]) -> None:
    Path("report.html").write_text("old\n")
    result = run("history", "export", "1", "2", "--output", "report.html")
    assert result.exit_code == 0, result.output
    text = Path("report.html").read_text()
    assert text.startswith("<!DOCTYPE html>") and "<svg" in text


def test_o_is_short_for_output_as_in_sweep_export(stored: list[int]) -> None:
    result = run("history", "export", "2", "-o", "short.csv")
    assert result.exit_code == 0, result.output
    assert Path("short.csv").read_text().startswith("run_id,")
    assert "-o, --output FILE" in run("history", "export", "--help").stdout


@pytest.mark.parametrize("fmt", ["markdown", "csv", "json", "html"])
def test_output_dash_writes_to_stdout(stored: list[int], fmt: str) -> None:
    result = run("history", "export", "2", "--format", fmt, "--output", "-")
    assert result.exit_code == 0, result.output
    assert list(Path.cwd().iterdir()) == []
    if fmt == "json":
        assert json.loads(result.stdout)["schema"] == "tierdeck.run/1"
    else:
        assert "pool write 1M" in result.stdout


def test_redact_removes_this_machines_name_and_the_runs_identifiers(
    stored: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        LiveHost, "hostname", property(lambda self: f"{HOST}.lan")
    )  # this machine's
    plain = run("history", "export", "4", "--format", "json", "--output", "-").stdout
    assert HOST in plain and SERIAL in plain and UUID in plain
    result = run("history", "export", "4", "1", "--format", "html", "--redact")
    assert result.exit_code == 0, result.output
    path = Path.cwd() / "tierdeck-runs-4-1-redacted.html"
    text = path.read_text()
    assert HOST not in text and SERIAL not in text and UUID not in text
    assert "REDACTED-HOST-1" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["99"], "no run #99 in the history"),
        (["1", "3"], "only successful runs compare"),
        (["1", "1"], "is given twice"),
        (["1", "2", "4", "1", "2", "4", "1", "2", "4"], "at most 8"),
    ],
)
def test_refusals_exit_2_with_one_line(stored: list[int], args: list[str], message: str) -> None:
    result = run("history", "export", *args)
    assert result.exit_code == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert list(Path.cwd().iterdir()) == []


def test_no_id_and_a_format_given_twice_are_usage_errors(stored: list[int]) -> None:
    assert run("history", "export").exit_code == 2
    assert run("history", "export", "1", "--format", "csv", "--format", "json").exit_code == 2


def test_an_unwritable_folder_fails_with_exit_1(stored: list[int], tmp_path: Path) -> None:
    result = run("history", "export", "1", "--output", str(tmp_path / "missing" / "x.md"))
    assert result.exit_code == 1 and "cannot write the export" in result.stderr


def test_help_names_the_formats_and_redact() -> None:
    text = run("history", "export", "--help").stdout
    assert "markdown|csv|json|html" in text and "--redact" in text and "--output FILE" in text
