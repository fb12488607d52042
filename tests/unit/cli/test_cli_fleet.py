"""``tierdeck fleet``, ``fleet add`` and ``fleet remove`` through click's runner, on a
config folder of the test's own; the hosts are reached through the demo NAS (or a
port nothing listens on), never the network."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tierdeck.app.fleet.config import FleetHost, load_fleet
from tierdeck.backends.host import Host

from tests.unit.cli_support import run


def test_add_then_remove_edit_hosts_toml(_own_config: Path) -> None:
    result = run("fleet", "add", "nas", "root@nas.lan:2222", "--tag", "home", "--tag", "media")
    assert result.exit_code == 0, result.output
    assert "added nas" in result.output
    assert run("fleet", "add", "backup", "backup").exit_code == 0
    assert load_fleet() == (FleetHost("nas", "root@nas.lan:2222", ("home", "media")),
                            FleetHost("backup", "backup"))  # fmt: skip
    assert (_own_config / "hosts.toml").read_text().count("\n[[host]]\n") == 2
    assert run("fleet", "remove", "nas").exit_code == 0
    assert load_fleet() == (FleetHost("backup", "backup"),)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["fleet", "add", "backup", "other"], "a host named 'backup' is already in the fleet"),
        (["fleet", "add", "x", "a b"], "'a b' is not an ssh target"),
        (["fleet", "add", "x", "root@x:0"], "port 0 is out of range"),
        (["fleet", "remove", "nope"], "no host named 'nope'"),
    ],
)
def test_refusals_exit_2_with_one_line(args: list[str], said: str) -> None:
    assert run("fleet", "add", "backup", "backup").exit_code == 0
    result = run(*args)
    assert result.exit_code == 2
    assert said in result.output


def test_a_bad_file_is_refused_with_its_line(_own_config: Path) -> None:
    (_own_config / "hosts.toml").write_text("[[host]]\nname = 'a'\n")
    result = run("fleet", "--json")
    assert result.exit_code == 2
    assert "hosts.toml line 1 (host #1): no 'ssh'" in result.output
    result = run()  # the TUI's start reads it too, and says so before any screen
    assert result.exit_code == 2 and "no 'ssh'" in result.output


def test_json_of_a_fleet_with_a_host_down(monkeypatch: pytest.MonkeyPatch) -> None:
    from tierdeck.app.fleet import collect
    from tierdeck.app.machine.demo import load_demo_host

    real = collect.ssh_connect

    def connect(entry: FleetHost, timeout: float) -> Host:
        return load_demo_host() if entry.name == "demo" else real(entry, timeout)

    monkeypatch.setattr(collect, "ssh_connect", connect)
    assert run("fleet", "add", "demo", "demo").exit_code == 0
    assert run("fleet", "add", "closed", "root@127.0.0.1:1").exit_code == 0  # nothing listens
    result = run("fleet", "--json", "--timeout", "20")
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert document["schema"] == "tierdeck.fleet/1" and document["timeout"] == 20
    demo, closed = document["hosts"]
    assert (demo["name"], demo["reachable"], demo["error"]) == ("demo", True, None)
    assert demo["hostname"] and demo["pools"] and isinstance(demo["problems"], list)
    assert closed["name"] == "closed" and closed["target"] == "root@127.0.0.1:1"
    assert not closed["reachable"] and closed["error"].startswith("root@127.0.0.1:1: ")
    assert closed["problems"] == [] and closed["pools"] == []
    table = run("fleet", "--timeout", "20")
    assert table.exit_code == 0
    lines = table.output.splitlines()
    assert lines[1].split()[:2] == ["demo", "up"] and lines[2].split()[:2] == ["closed", "down"]


def test_an_empty_fleet_says_how_to_add_a_host() -> None:
    result = run("fleet")
    assert result.exit_code == 0 and "tierdeck fleet add NAME SSH" in result.output
    assert json.loads(run("fleet", "--json").output)["hosts"] == []


def test_the_timeout_is_given_once() -> None:
    result = run("fleet", "--timeout", "1", "--timeout", "2")
    assert result.exit_code == 2 and "given twice" in result.output


def test_the_tui_starts_on_the_fleet_with_more_than_one_host(
    monkeypatch: pytest.MonkeyPatch, data_dir: Path
) -> None:
    from tierdeck.app.tui.app import TierdeckApp

    # --demo points this process's history at the demo's: monkeypatch puts it back
    monkeypatch.setenv("TIERDECK_DATA_DIR", str(data_dir))
    started: list[TierdeckApp] = []
    monkeypatch.setattr(TierdeckApp, "run", lambda self: started.append(self))
    assert run("fleet", "add", "nas", "nas").exit_code == 0
    assert run().exit_code == 0  # one host: this machine's dashboard, as before
    assert started[-1]._fleet is None and started[-1].host.identity.startswith("local:")
    assert run("fleet", "add", "backup", "root@10.0.0.7").exit_code == 0
    assert run().exit_code == 0
    fleet = started[-1]._fleet
    assert fleet is not None and [e.name for e in fleet.entries] == ["nas", "backup"]
    assert run("--demo").exit_code == 0  # the demo is the demo's dashboard
    assert started[-1]._fleet is None and started[-1].demo
