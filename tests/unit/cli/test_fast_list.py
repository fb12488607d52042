"""``tierdeck history list --json`` is answered by app/cli/fast_list.py from the lines the
history keeps, without click: its output must be click's command's, byte for byte, and
every command line or history it is not sure of must go to click (usage errors,
--help, --preset, a missing line, a file to migrate)."""

from __future__ import annotations

import io
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from tierdeck.app.cli import fast_list
from tierdeck.app.history.store import HistoryStore

from tests.unit.cli_support import run
from tests.unit.history.test_run_lines import varied_runs

LISTINGS = [
    [],
    ["--status", "all"],
    ["--status=failed"],
    ["--status", "cancelled", "--json"],  # --json anywhere, as click takes it
    ["--tag", "slow", "--status", "all"],
    ["--tag=ünïcode", "--status=all"],
    ["--host", "nas1", "--status", "all"],
    ["--host", "NAS1", "--status", "all"],
    ["--host", "def"],
    ["--host", "local:def"],
    ["--target", "/srv/lab/mnt/cache/"],
    ["--target", "/srv/lab/mnt/other"],
    ["--tag", "none"],
]


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    store = HistoryStore(tmp_path / "history.sqlite3")
    for run_ in varied_runs():
        store.save(run_)
    monkeypatch.setenv("TIERDECK_DATA_DIR", str(tmp_path))
    return tmp_path


def clicks(*args: str) -> str:
    done = run("history", "list", *args)
    assert done.exit_code == 0
    return done.stdout


@pytest.mark.parametrize("args", LISTINGS, ids=" ".join)
def test_the_stored_answer_is_clicks_output(data_dir: Path, args: list[str]) -> None:
    argv = ["history", "list", *args, *([] if "--json" in args else ["--json"])]
    answer = fast_list.stored_list_json(argv)
    assert answer is not None and answer == clicks(*argv[2:]).encode()


def test_an_empty_history_answers_an_empty_array(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    HistoryStore(tmp_path / "history.sqlite3")
    monkeypatch.setenv("TIERDECK_DATA_DIR", str(tmp_path))
    assert fast_list.stored_list_json(["history", "list", "--json"]) == b"[]\n"
    assert clicks("--json") == "[]\n"


@pytest.mark.parametrize(
    "args",
    [
        [],  # the table
        ["--json", "--help"],
        ["--help"],
        ["--json", "--bogus"],
        ["--json", "--preset", "seed000-seqwrite"],  # its former names: the presets' table
        ["--json", "--host", "a", "--host", "b"],  # refused by click: once()
        ["--json", "--tag", "a", "--tag", "b"],  # the last wins in click: not guessed here
        ["--tag", "--json"],  # click's tag is "--json", and no JSON
        ["--json", "--tag"],
        ["--json", "--tag="],
        ["--json", "--status", "bogus"],
        ["--json", "--status", "OK"],
        ["--json", "--json"],
        ["--json", "--", "x"],
        ["--json=1"],
        ["--json", "extra"],
    ],
    ids=" ".join,
)
def test_other_command_lines_go_to_click(data_dir: Path, args: list[str]) -> None:
    assert fast_list.stored_list_json(["history", "list", *args]) is None


@pytest.mark.parametrize(
    "argv",
    [["--demo", "history", "list", "--json"], ["history", "show", "1", "--json"], ["list"]],
    ids=" ".join,
)
def test_only_history_list_is_answered(data_dir: Path, argv: list[str]) -> None:
    assert fast_list.stored_list_json(argv) is None


def test_a_history_it_is_not_sure_of_goes_to_click(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = ["history", "list", "--json", "--status", "all"]
    path = data_dir / "history.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM run_lines WHERE run_id = 3")
    assert fast_list.stored_list_json(argv) is None  # a line missing
    expected = clicks(*argv[2:]).encode()  # computes it, and keeps it
    assert fast_list.stored_list_json(argv) == expected
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 8")
    assert fast_list.stored_list_json(argv) is None  # the store migrates (or refuses)
    missing = tmp_path / "none"
    monkeypatch.setenv("TIERDECK_DATA_DIR", str(missing))
    assert fast_list.stored_list_json(argv) is None
    assert not missing.exists()  # made by the store, not here


@pytest.mark.parametrize(
    ("stdout", "as_is"),
    [
        (io.TextIOWrapper(io.BytesIO(), encoding="utf-8"), True),
        (io.TextIOWrapper(io.BytesIO(), encoding="latin-1"), True),
        (io.TextIOWrapper(io.BytesIO(), encoding="utf-16"), False),
        (io.TextIOWrapper(io.BytesIO(), encoding="cp037"), False),  # EBCDIC
        (io.StringIO(), False),  # no bytes beneath
    ],
)
def test_only_a_stdout_that_writes_ascii_as_is_gets_the_bytes(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, stdout: io.TextIOBase, as_is: bool
) -> None:
    monkeypatch.setattr(sys, "stdout", stdout)
    answer = fast_list.stored_list_json(["history", "list", "--json"])
    assert (answer is not None) is as_is


def test_a_real_process_answers_without_click(data_dir: Path) -> None:
    env = {**os.environ, "TIERDECK_DATA_DIR": str(data_dir)}
    for args, with_click in (
        (["--json", "--status", "all"], False),
        (["--json", "--preset", "seed000-seqwrite"], True),
    ):
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "tierdeck.app.cli", "history", "list",
             *args],
            capture_output=True,
            env=env,
            check=True,
        )  # fmt: skip
        assert done.stdout == clicks(*args).encode()
        loaded = {line.rpartition("|")[2].strip() for line in done.stderr.decode().splitlines()}
        assert "tierdeck.app.cli.fast_list" in loaded
        assert ("click" in loaded) is with_click, args
        assert with_click or "tierdeck.core.bench_models" not in loaded


def test_a_usage_error_is_clicks_in_a_real_process(data_dir: Path) -> None:
    env = {**os.environ, "TIERDECK_DATA_DIR": str(data_dir)}
    done = subprocess.run(
        [sys.executable, "-m", "tierdeck.app.cli", "history", "list", "--json", "--status", "x"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "Error: Invalid value for '--status'" in done.stderr
