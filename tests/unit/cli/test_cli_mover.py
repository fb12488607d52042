"""``tierdeck mover run`` and ``mover history``: exit statuses, --json, the text."""

from __future__ import annotations

import json
from pathlib import Path

from tests.unit.cli_support import run
from tests.unit.mover.test_mover_run import Tiers, put, tiers, where

__all__ = ["tiers"]  # the fixture, imported for pytest


def test_dry_run_json(tiers: Tiers) -> None:
    put(tiers, "tv/old.mkv", 4096)
    result = run("mover", "run", "--layout", str(tiers.layout_path), "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["schema"] == "tierdeck.mover-run/1" and doc["dry_run"] is True
    assert doc["layout"]["name"] == "media"
    (planned,) = doc["planned"]
    assert planned["rel"] == "tv/old.mkv" and planned["reason"] == "age"
    assert doc["forecast"]["files"] == 1 and doc["forecast"]["bytes"] == 4096
    assert doc["outcomes"] == [] and doc["stopped"] is None and doc["ok"] is True
    assert where(tiers, "tv/old.mkv") == ["cache"]


def test_run_text_then_history(tiers: Tiers) -> None:
    put(tiers, "a", 4096)
    put(tiers, "b", 4096, age_days=0)
    result = run("mover", "run", "--layout", str(tiers.layout_path))
    assert result.exit_code == 0, result.output
    # Not a terminal: the forecast is a summary, not a table.
    # One file is "1 file" (never "1 files") in every line the mover prints.
    assert "FILE" not in result.stdout and "moved 1 file, 4.0K" in result.stdout
    assert "forecast: 1 file," in result.stdout and "  age: 1 file, 4.0K" in result.stdout
    assert "1 files" not in result.stdout
    result = run("mover", "run", "--layout", str(tiers.layout_path), "--min-age-days", "0")
    assert result.exit_code == 0 and "moved 1 file," in result.stdout
    assert where(tiers, "b") != ["cache"]
    hist = run("mover", "history", "--layout", str(tiers.layout_path), "--json")
    runs = json.loads(hist.stdout)["runs"]
    assert [r["files_moved"] for r in runs] == [1, 1]
    assert (
        json.loads(run("mover", "history", "--limit", "1", "--json").stdout)["runs"][0]["id"]
        == runs[0]["id"]
    )
    assert "ok" in run("mover", "history").stdout


def test_history_says_failed_for_a_run_that_exited_1(tiers: Tiers) -> None:
    # 2 x 4 MiB of slow tier: twelve 1 MiB files cannot all go, and the run exits 1.
    for i in range(12):
        put(tiers, f"f{i:02}", 2**20)
    result = run("mover", "run", "--layout", str(tiers.layout_path))
    assert result.exit_code == 1, result.output
    assert (
        json.loads(run("mover", "run", "--layout", str(tiers.layout_path), "--json").stdout)["ok"]
        is False
    )
    (last, first) = json.loads(run("mover", "history", "--json").stdout)["runs"]
    assert first["failed"] is True and first["unplaced"] > 0
    text = run("mover", "history").stdout.splitlines()
    assert all(" ok " not in line and "failed" in line for line in text), text


def test_refusals_exit_2_with_one_line(tmp_path: Path, data_dir: Path) -> None:
    missing = run("mover", "run", "--layout", str(tmp_path / "none.toml"))
    assert missing.exit_code == 2 and missing.stderr.count("\n") == 1
    bad = tmp_path / "bad.toml"
    bad.write_text("not = [toml")
    result = run("mover", "run", "--layout", str(bad))
    assert result.exit_code == 2 and result.stderr.startswith("tierdeck: ")
    result = run("mover", "run", "--layout", str(bad), "--min-age-days", "-1")
    assert result.exit_code == 2


def test_rule_error_refused(tiers: Tiers) -> None:
    text = tiers.layout_path.read_text()
    pool = str(tiers.root / "pool")
    tiers.layout_path.write_text(text.replace(f'destination = "{tiers.root / "slow"}"',
                                              f'destination = "{pool}"'))  # fmt: skip
    result = run("mover", "run", "--layout", str(tiers.layout_path))
    assert result.exit_code == 2 and "mover-destination" in result.stderr


def test_history_empty(data_dir: Path) -> None:
    result = run("mover", "history")
    assert result.exit_code == 0 and "no mover runs" in result.stdout
    assert json.loads(run("mover", "history", "--json").stdout) == {
        "schema": "tierdeck.mover-history/1",
        "runs": [],
    }


def test_the_layout_service_command_is_this_cli(tmp_path: Path, data_dir: Path) -> None:
    from tierdeck.core.layout.model import Branch, default_layout
    from tierdeck.core.layout.outputs import layout_outputs

    lay = default_layout(("/cache",), (Branch("/mnt/d1"),), "/mnt/pool")
    missing = tmp_path / "media.toml"
    out = layout_outputs(lay, command="tierdeck", layout_path=str(missing))
    exec_start = next(line for line in out.units[out.mover_service].splitlines()
                      if line.startswith("ExecStart="))  # fmt: skip
    argv = exec_start.removeprefix("ExecStart=").split()
    assert argv[:4] == ["tierdeck", "mover", "run", "--layout"]
    result = run(*argv[1:])
    # the options parse; the file is what is missing (exit 2, one line)
    assert result.exit_code == 2 and str(missing) in result.stderr


def test_json_lines_give_the_progress_then_the_run_read_back_as_it_was(tiers: Tiers) -> None:
    from tierdeck.app.mover.read_json import history_from_dict, report_from_dict
    from tierdeck.app.mover.render_json import history_to_dict, report_to_dict

    for i in range(3):
        put(tiers, f"tv/e{i}.mkv", 4096)
    result = run("mover", "run", "--layout", str(tiers.layout_path), "--json-lines")
    assert result.exit_code == 0, result.output
    docs = [json.loads(line) for line in result.stdout.splitlines()]
    *progress, last = docs
    assert last["schema"] == "tierdeck.mover-run/1" and last["files_moved"] == 3
    assert progress and {d["schema"] for d in progress} == {"tierdeck.mover-progress/1"}
    assert progress[-1]["files_done"] == 3 and progress[-1]["bytes_total"] == 3 * 4096
    # what another machine reads back is the run as this one wrote it
    report = report_from_dict(last)
    assert report.files_moved == 3 and report.ok and not report.dry_run
    assert report_to_dict(report, last["layout"]["path"]) == last
    hist = json.loads(run("mover", "history", "--json").stdout)
    assert history_to_dict(history_from_dict(hist)) == hist


def test_json_lines_refusal_is_a_line_too(tiers: Tiers) -> None:
    text = tiers.layout_path.read_text()
    pool = str(tiers.root / "pool")
    tiers.layout_path.write_text(text.replace(f'destination = "{tiers.root / "slow"}"',
                                              f'destination = "{pool}"'))  # fmt: skip
    result = run("mover", "run", "--layout", str(tiers.layout_path), "--json-lines")
    assert result.exit_code == 2 and "mover-destination" in result.stderr
    (doc,) = [json.loads(line) for line in result.stdout.splitlines()]
    assert doc["schema"] == "tierdeck.mover-refused/1" and doc["kind"] == "rules"
    assert "mover-destination" in doc["detail"]
    both = run("mover", "run", "--layout", str(tiers.layout_path), "--json", "--json-lines")
    assert both.exit_code == 2
