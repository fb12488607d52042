"""``tierdeck bench run --hosts``: one preset on every machine of the fleet, then their
comparison, against real machines of their own on this one (tests/support/netns.py:
network namespaces joined by veth pairs, each with its own sshd and Debian's fio),
named in a hosts.toml as an admin would."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tierdeck.app.fleet.config import FleetHost, save_fleet

from tests.processes import cli_process, interrupt
from tests.support.netns import SESSION_PATH, NsHost, ns_hosts
from tests.waiting import wait_until_sync

pytestmark = pytest.mark.integration

CLI = [sys.executable, "-m", "tierdeck.app.cli"]
INDEXES = (41, 42, 43)  # 10.200.41-43.0/24: apart from the other namespace tests'


@pytest.fixture(scope="module")
def hosts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[NsHost]]:
    from tests.support.sshd import sshd_missing

    if reason := sshd_missing():
        pytest.skip(reason)
    with ns_hosts(INDEXES, tmp_path_factory.mktemp("fleet-bench")) as made:
        yield made


def _command(
    hosts: list[NsHost], data: Path, *extra: str, which: str = "all", runtime: int = 2
) -> tuple[list[str], dict[str, str]]:
    """The command line and its environment: a hosts.toml naming ``hosts`` as the
    fleet, HOME with their ssh aliases, the history in ``data``."""
    config = data / "config"
    save_fleet(tuple(FleetHost(h.name, h.name) for h in hosts), config / "hosts.toml")
    env = {**os.environ, "HOME": str(hosts[0].lab.home), "TIERDECK_DATA_DIR": str(data),
           "TIERDECK_CONFIG_DIR": str(config)}  # fmt: skip
    env.pop("SSH_AUTH_SOCK", None)
    targets = [a for h in hosts for a in ("--target", f"{h.name}:{h.folder}")]
    argv = [*CLI, "bench", "run", "--hosts", which, "--preset", "nas-seqwrite-1m-qd8x8",
            *targets, "--runtime", str(runtime), "--size", "8M", "--direct", "0", *extra]  # fmt: skip
    return argv, env


def _run(
    hosts: list[NsHost], data: Path, *extra: str, which: str = "all"
) -> subprocess.CompletedProcess[str]:
    argv, env = _command(hosts, data, *extra, which=which)
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)


def _runs(done: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in done.stdout.splitlines()]


def _fio_writing(host: NsHost) -> bool:
    """fio's test files are in the host's folder (not the preflight's probe file)."""
    return any(not p.name.endswith(".probe") for p in host.folder.iterdir())


def _leftovers(hosts: list[NsHost]) -> list[str]:
    return [str(p) for h in hosts for p in h.folder.iterdir()]


@pytest.mark.parametrize("parallel", [False, True], ids=["one-at-a-time", "parallel"])
def test_every_host_runs_the_preset_and_is_stored_with_its_host(
    hosts: list[NsHost], tmp_path: Path, parallel: bool
) -> None:
    done = _run(hosts, tmp_path, "--json", *(["--parallel"] if parallel else []))
    assert done.returncode == 0, done.stderr
    runs = _runs(done)
    assert [r["fleet_host"] for r in runs] == [h.name for h in hosts]
    for run in runs:
        assert run["schema"] == "tierdeck.run/1" and run["status"] == "ok", run
        assert run["id"] and run["host"]["name"] and run["host"]["id"].startswith("ssh:")
        assert run["summary"]["write"]["bw_bytes"] > 0
    assert _leftovers(hosts) == []
    said = done.stderr.splitlines()
    assert [line for line in said if " of 3: " in line] == [
        f"tierdeck: host {i} of 3: {h.name} {h.folder}" for i, h in enumerate(hosts, 1)
    ] or parallel  # in parallel the hosts start in any order


def test_the_comparison_is_printed_and_a_host_down_is_partial(
    hosts: list[NsHost], tmp_path: Path
) -> None:
    down = hosts[2]
    down.kill()
    try:
        done = _run(hosts, tmp_path)
        as_json = _run(hosts, tmp_path / "json", "--json", "--parallel")
    finally:
        down.lab = down.lab.start(down.lab.folder, alias=down.name, port=down.lab.port,
                                  listen=down.address, netns=down.name,
                                  session_env={"PATH": SESSION_PATH})  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "partial: tdc43: " in done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("tdc41: ok, run #") and lines[1].startswith("tdc42: ok, run #")
    assert lines[2].startswith("tdc43: ")
    # the table of tierdeck compare, between the two hosts that ran
    assert any("nas-seqwrite-1m-qd8x8 on tdc41" in line for line in lines)
    assert any("nas-seqwrite-1m-qd8x8 on tdc42" in line for line in lines)
    assert any(line.startswith("again later: tierdeck compare ") for line in lines)
    assert as_json.returncode == 1
    runs = _runs(as_json)
    assert [r["status"] for r in runs] == ["ok", "ok", "failed"]
    assert runs[2]["id"] is None and runs[2]["error"].startswith("tdc43: ")
    assert _leftovers(hosts) == []


def test_a_host_not_in_the_fleet_and_a_missing_target_are_refused(
    hosts: list[NsHost], tmp_path: Path
) -> None:
    done = _run(hosts[:1], tmp_path, which="tdc41,tdc42")
    assert done.returncode == 2
    assert "--target: no path for tdc42 (HOST:PATH)" in done.stderr


def test_a_host_lost_mid_run_fails_alone_in_parallel(hosts: list[NsHost], tmp_path: Path) -> None:
    lost = hosts[1]
    argv, env = _command(hosts, tmp_path, "--parallel", "--json", runtime=8)
    try:
        with cli_process(argv, env) as proc:
            # the host is cut off once fio writes its test files there
            wait_until_sync(lambda: _fio_writing(lost), "fio writing on tdc42", 60)
            lost.kill()
            stdout, stderr = proc.communicate(timeout=120)
    finally:
        lost.lab = lost.lab.start(lost.lab.folder, alias=lost.name, port=lost.lab.port,
                                  listen=lost.address, netns=lost.name,
                                  session_env={"PATH": SESSION_PATH})  # fmt: skip
    assert proc.returncode == 1, stderr
    runs = [json.loads(line) for line in stdout.splitlines()]
    assert [r["status"] for r in runs] == ["ok", "failed", "ok"], runs
    assert runs[1]["error"].startswith("tdc42: ") and "partial: tdc42: " in stderr
    assert runs[1]["id"]  # the failed run is kept, with its reason
    for h in (hosts[0], hosts[2]):
        assert list(h.folder.iterdir()) == []
    # The lost machine as it comes back: killing its sshd's listener and connection
    # processes can leave a session's fio blocked on its dead channel, which a real
    # machine dropping off the network would end with its sshd's timeout; stopping
    # it is the SSH layer's (tests/integration/test_ssh_cli.py), not this command's.
    for pid in lost.fio_processes():
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    wait_until_sync(lambda: not lost.fio_processes(), "the lost host's fio gone", 15)
    for leftover in lost.folder.iterdir():  # written down there, removed at its next link
        leftover.unlink()


def test_ctrl_c_stops_every_host_within_seconds(hosts: list[NsHost], tmp_path: Path) -> None:
    argv, env = _command(hosts, tmp_path, "--parallel", runtime=30)
    with cli_process(argv, env) as proc:
        # Ctrl-C once fio has run on every host for two seconds: a SIGINT within fio's
        # first second on an SSH host can leave its fio running (as with --host alone)
        wait_until_sync(lambda: all(_fio_running_for(h, 2) for h in hosts),
                        "fio running on every host", 60)  # fmt: skip
        _, stderr, took = interrupt(proc)
    assert proc.returncode == 130, stderr
    assert took < 10
    assert _leftovers(hosts) == []
    # each host's watcher stops what is left of fio as its channel closes
    wait_until_sync(lambda: not any(h.fio_processes() for h in hosts), "no fio on any host", 10)


def _fio_running_for(host: NsHost, seconds: int) -> bool:
    """fio's test files are there and its oldest process has run that long."""
    pids = [str(p) for p in host.fio_processes()]
    if not pids or not _fio_writing(host):
        return False
    ps = subprocess.run(["ps", "-o", "etimes=", "-p", ",".join(pids)], capture_output=True,
                        text=True, check=False)  # fmt: skip
    return max((int(t) for t in ps.stdout.split()), default=0) >= seconds


@pytest.mark.parametrize("parallel", [False, True])
async def test_the_tui_compares_the_hosts_that_ran(
    hosts: list[NsHost], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parallel: bool
) -> None:
    """The fleet run screen with the real runner: each host over SSH, one that cannot
    be reached (a closed port on this machine) said on its line with its reason, the two
    others stored and opened side by side on the compare screen; nothing left behind."""
    from textual.app import App
    from tierdeck.app.bench.service import BenchAsk
    from tierdeck.app.clients.plan import ClientSpot
    from tierdeck.app.tui.navigation import Navigator
    from tierdeck.core.presets import find_preset
    from tierdeck.screens.bench.fleet_run import FleetRunScreen
    from tierdeck.screens.history.compare import CompareScreen

    from tests.pilot.waiting import screen_text
    from tests.waiting import wait_until

    two = hosts[:2]
    config = tmp_path / "config"
    save_fleet((*(FleetHost(h.name, h.name) for h in two), FleetHost("gone", "root@127.0.0.1:1")),
               config / "hosts.toml")  # fmt: skip
    for key, value in {"HOME": str(two[0].lab.home), "TIERDECK_DATA_DIR": str(tmp_path),
                       "TIERDECK_CONFIG_DIR": str(config)}.items():  # fmt: skip
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    preset = find_preset("nas-seqwrite-1m-qd8x8")
    assert preset is not None
    spots = [ClientSpot(h.name, str(h.folder)) for h in two] + [ClientSpot("gone", "/srv")]
    asks = {s.name: BenchAsk(s.path, preset.jobs, preset.name, size="8M", runtime=2,
                             direct=False, name=f"on {s.name}") for s in spots}  # fmt: skip
    screen = FleetRunScreen(spots, asks, parallel=parallel)

    class One(Navigator, App[None]):
        def on_mount(self) -> None:
            self.push_screen(screen)

    app = One()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen), "the comparison",
                         timeout=120)  # fmt: skip
        assert screen.outcomes is not None
        assert [o.ok for o in screen.outcomes] == [True, True, False]
        assert screen.outcomes[2].error is not None and "gone" in screen.outcomes[2].error
        compared = app.screen
        assert compared.run_ids == screen.compared() and len(compared.run_ids) == 2  # type: ignore[attr-defined]
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen, "back on the hosts")
        text = screen_text(app)
        assert f"✔ {two[0].name}" in text and f"✔ {two[1].name}" in text
        assert "✘ gone  /srv  no run" in text and "127.0.0.1" in text
    assert _leftovers(two) == []
