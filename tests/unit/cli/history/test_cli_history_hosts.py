"""``tierdeck history`` with runs of several hosts: ``list --host``, the host in the
JSON of ``list`` and ``show``, and the host column only when there are two hosts."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from tierdeck.app.cli.history import runs as cli_history
from tierdeck.app.history.store import HistoryStore
from tierdeck.core.bench_models import RunHost

from tests.unit.cli_support import run
from tests.unit.history.test_history import recorded_result

pytestmark = pytest.mark.usefixtures("data_dir")

NAS1 = RunHost("nas1", "ssh:4f1c0a")
NAS2 = RunHost("nas2", "local:9b2e77")


@pytest.fixture
def two_hosts(data_dir: Path) -> HistoryStore:
    store = HistoryStore(data_dir / "history.sqlite3")
    store.save(replace(recorded_result(started_at=1_000.0), host=NAS1))
    store.save(replace(recorded_result(started_at=2_000.0), host=NAS2))
    store.save(replace(recorded_result(started_at=3_000.0), host=RunHost()))  # imported, say
    return store


def listed(*args: str) -> list[int]:
    return [r["id"] for r in json.loads(run("history", "list", "--json", *args).stdout)]


def test_list_host_keeps_the_runs_of_one_host_by_name_or_id(two_hosts: HistoryStore) -> None:
    assert listed() == [3, 2, 1]
    assert listed("--host", "nas1") == [1]
    assert listed("--host", "NAS2") == [2]  # a hostname in any case
    assert listed("--host", "ssh:4f1c0a") == [1]
    assert listed("--host", "9b2e77") == [2]  # the machine id alone
    assert listed("--host", "nas3") == []
    twice = run("history", "list", "--host", "nas1", "--host", "nas2")
    assert twice.exit_code == 2 and "given twice" in twice.output


def test_the_json_of_list_and_show_carries_the_host(two_hosts: HistoryStore) -> None:
    runs = json.loads(run("history", "list", "--json").stdout)
    assert [r["host"] for r in runs] == [
        {"name": None, "id": None},
        {"name": "nas2", "id": "local:9b2e77"},
        {"name": "nas1", "id": "ssh:4f1c0a"},
    ]
    shown = json.loads(run("history", "show", "1", "--json").stdout)
    assert shown["host"] == {"name": "nas1", "id": "ssh:4f1c0a"}
    # keys are added, never renamed: everything the object had is still there
    assert {"schema", "id", "name", "target", "env", "summary", "series", "tags"} <= set(shown)
    text = run("history", "show", "1").stdout
    assert "host:     nas1 (ssh:4f1c0a)\n" in text
    assert "host:" not in run("history", "show", "3").stdout


def test_the_table_has_a_host_column_only_with_two_hosts(
    two_hosts: HistoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli_history, "output_width", lambda: 80)
    lines = run("history", "list").stdout.splitlines()
    assert lines[0].split()[:3] == ["id", "started", "host"]
    assert all(len(line) <= 80 for line in lines)
    at = lines[0].index("host")
    assert [line[at : at + 4].strip() for line in lines[1:]] == ["-", "nas2", "nas1"]
    one = run("history", "list", "--host", "nas1").stdout.splitlines()
    assert "host" not in one[0].split()


def test_the_root_host_option_does_not_move_the_history_and_says_how_to_filter() -> None:
    result = run("--host", "nas2", "history", "list")
    assert result.exit_code == 2
    assert "kept on this machine" in result.stderr
    assert "history list --host" in result.stderr


@pytest.mark.parametrize("command", [["compare", "1", "2"], ["fleet"], ["fleet", "remove", "x"]])
def test_commands_about_this_machines_own_files_refuse_the_root_host_option(
    command: list[str],
) -> None:
    result = run("--host", "nas2", *command)
    assert result.exit_code == 2
    assert "kept on this machine, not on nas2" in result.stderr
