"""``tierdeck bench run --clients`` against real machines of their own: three network
namespaces on this machine, each joined by a veth pair (10.200.N.0/24, nothing routed
beyond), each with its own sshd and Debian's fio. The third one's fio says it is an
older version, for the refusal."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.processes import cli_process, interrupt
from tests.support.netns import SESSION_PATH, NsHost, ns_hosts
from tests.support.sshd import free_port

if TYPE_CHECKING:
    from textual.app import App
    from tierdeck.screens.bench.clients_run import ClientsRunScreen

pytestmark = pytest.mark.integration

CLI = [sys.executable, "-m", "tierdeck.app.cli"]
# A fio that answers --version as an older build and runs the real one otherwise
OLD_FIO = '#!/bin/sh\n[ "$1" = --version ] && { echo fio-3.28; exit 0; }\nexec /usr/bin/fio "$@"\n'


@pytest.fixture(scope="module")
def hosts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[NsHost]]:
    from tests.support.sshd import sshd_missing

    if reason := sshd_missing():
        pytest.skip(reason)
    base = tmp_path_factory.mktemp("clients")
    shim = base / "old-fio"
    shim.mkdir()
    (shim / "fio").write_text(OLD_FIO)
    (shim / "fio").chmod(0o755)
    paths = [SESSION_PATH, SESSION_PATH, f"{shim}:{SESSION_PATH}"]
    with ns_hosts((1, 2, 3), base, paths) as made:
        yield made


def _env(hosts: list[NsHost], data: Path) -> dict[str, str]:
    env = {**os.environ, "HOME": str(hosts[0].lab.home), "TIERDECK_DATA_DIR": str(data)}
    env.pop("SSH_AUTH_SOCK", None)
    return env


def _args(hosts: list[NsHost], *extra: str, runtime: int = 2) -> list[str]:
    names = ",".join(h.name for h in hosts)
    targets = [a for h in hosts for a in ("--target", f"{h.name}:{h.folder}")]
    return [*CLI, "bench", "run", "--clients", names, "--preset", "nas-seqwrite-1m-qd8x8",
            *targets, "--runtime", str(runtime), "--size", "16M", "--direct", "0", *extra]  # fmt: skip


def _fio_servers() -> list[str]:
    found = subprocess.run(["pgrep", "-af", "fio --server=ip:127.0.0.1"], capture_output=True,
                           text=True, check=False)  # fmt: skip
    return [line for line in found.stdout.splitlines() if "pgrep" not in line]


def _leftovers(hosts: list[NsHost]) -> list[str]:
    return [str(p) for h in hosts for p in h.folder.iterdir()]


def _wait_servers_gone(timeout: float = 15) -> list[str]:
    deadline = time.monotonic() + timeout
    while (found := _fio_servers()) and time.monotonic() < deadline:
        time.sleep(0.1)  # the hosts' watchers stop their servers as the channel closes
    return found


def test_two_hosts_at_once_stored_as_one_set(hosts: list[NsHost], tmp_path: Path) -> None:
    two = hosts[:2]
    done = subprocess.run(_args(two, "--json"), env=_env(hosts, tmp_path), capture_output=True,
                          text=True, timeout=180)  # fmt: skip
    assert done.returncode == 0, done.stderr
    out: dict[str, Any] = json.loads(done.stdout)
    assert set(out) == {"schema", "id", "hosts", "aggregate"}
    assert out["schema"] == "tierdeck.clients/1"
    assert [h["host"] for h in out["hosts"]] == ["tdc1", "tdc2"]
    for h in out["hosts"]:
        assert set(h) == {"host", "run_id", "summary", "status", "error"}
        assert h["status"] == "ok" and h["error"] is None and h["run_id"]
        assert set(h["summary"]) == {"read", "write", "trim"}
        assert h["summary"]["write"]["bw_bytes"] > 0
    total = out["aggregate"]["summary"]["write"]
    parts = [h["summary"]["write"] for h in out["hosts"]]
    assert total["bw_bytes"] == sum(p["bw_bytes"] for p in parts)
    assert total["iops"] == pytest.approx(sum(p["iops"] for p in parts))
    assert _leftovers(two) == []
    assert _wait_servers_gone() == []
    # the set and each host's run, with its host, are in the history
    env = _env(hosts, tmp_path)
    for h in out["hosts"]:
        shown = subprocess.run([*CLI, "history", "show", str(h["run_id"]), "--json"], env=env,
                               capture_output=True, text=True, timeout=60)  # fmt: skip
        run = json.loads(shown.stdout)
        assert f"clients:{out['id']}" in run["tags"]
        assert run["host"]["name"]  # the machine it ran on
    compared = subprocess.run([*CLI, "compare", *(str(h["run_id"]) for h in out["hosts"])],
                              env=env, capture_output=True, text=True, timeout=60)  # fmt: skip
    assert compared.returncode == 0, compared.stderr


def test_each_host_is_watched_live_and_its_folder_placed(
    hosts: list[NsHost], tmp_path: Path
) -> None:
    two = hosts[:2]
    done = subprocess.run(_args(two, runtime=5), env=_env(hosts, tmp_path), capture_output=True,
                          text=True, timeout=180)  # fmt: skip
    assert done.returncode == 0, done.stderr
    for h in two:  # the namespaces share this machine's root filesystem
        assert f"{h.name}: {h.folder} is a local path (ext4 on /; disks: " in done.stderr
    lines = done.stderr.splitlines()
    for name in ("tdc1", "tdc2", "all clients"):
        live = [
            line for line in lines if re.match(rf"\s*\d+ s  {name}\s+disks\s+[\d.]+ MiB/s", line)
        ]
        assert live, done.stderr
    # one machine under two names: its disks are counted once in the total
    last = {n: next(line for line in reversed(lines) if f" s  {n} " in line).split("disks")[1]
            for n in ("tdc1", "all clients")}  # fmt: skip
    assert last["tdc1"] == last["all clients"]
    assert _leftovers(two) == []


def _clients_screen(
    monkeypatch: pytest.MonkeyPatch, hosts: list[NsHost], on: list[NsHost], data: Path,
    numjobs: int,
) -> tuple[App[None], ClientsRunScreen]:  # fmt: skip
    """An app showing only the clients run screen, the preset's job on ``on``'s folders,
    with the CLI tests' environment (``_env``): the real session, over SSH."""
    from textual.app import App
    from tierdeck.app.clients.plan import ClientSpot
    from tierdeck.app.tui.navigation import Navigator
    from tierdeck.core.jobspec import with_overrides
    from tierdeck.core.presets import find_preset
    from tierdeck.screens.bench.clients_run import ClientsRunScreen

    for key, value in _env(hosts, data).items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    preset = find_preset("nas-seqwrite-1m-qd8x8")
    assert preset is not None
    jobs = with_overrides(preset.jobs, "16M", numjobs, False)
    spots = [ClientSpot(h.name, str(h.folder)) for h in on]
    screen = ClientsRunScreen(spots, jobs, preset.name)

    class One(Navigator, App[None]):
        def on_mount(self) -> None:
            self.push_screen(screen)

    return One(), screen


async def test_the_tui_runs_it_live_and_stores_the_set(
    hosts: list[NsHost], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The clients run screen with the real session: connected over SSH, a line per
    host live, each host's result, the set stored, nothing left behind."""
    from tierdeck.app.clients.store import load_clients
    from tierdeck.app.history.run_sets import RunSetStore

    from tests.waiting import wait_until

    app, screen = _clients_screen(monkeypatch, hosts, hosts[:2], tmp_path, numjobs=4)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: not screen.running, "the run to end", timeout=120)
        outcome = screen.outcome
        assert outcome is not None, screen.error
        assert screen.ticks >= 2  # a line per host each second while fio ran
        assert [h.status.value for h in outcome.result.hosts] == ["ok", "ok"]
        assert outcome.stored is not None
        found = load_clients(RunSetStore(), outcome.stored.set_id)
        assert [r.label for r in found.rows] == ["tdc1", "tdc2", "all clients"]
        assert any("is a local path (ext4 on /; disks: " in line for line in screen.said)
    assert _leftovers(hosts[:2]) == []
    assert _wait_servers_gone() == []


def test_a_host_lost_mid_run_leaves_a_partial_set(hosts: list[NsHost], tmp_path: Path) -> None:
    two = hosts[:2]
    proc = subprocess.Popen(_args(two, "--json", runtime=8), env=_env(hosts, tmp_path),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert proc.stderr is not None
        # the second host is killed once its test files are there: fio is writing
        deadline = time.monotonic() + 60
        while not list(two[1].folder.iterdir()) and time.monotonic() < deadline:
            time.sleep(0.1)  # nothing to wait on but the files appearing
        time.sleep(1)
        two[1].kill()
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    try:
        assert proc.returncode == 1, stderr
        out = json.loads(stdout)
        first, second = out["hosts"]
        assert first["status"] == "ok" and first["summary"]["write"]["bw_bytes"] > 0
        assert second["status"] == "failed" and "tdc2" in second["error"]
        assert "partial" in stderr
        assert list(two[0].folder.iterdir()) == []
        assert _wait_servers_gone() == []
    finally:
        two[1].lab = two[1].lab.start(two[1].lab.folder, alias="tdc2", port=two[1].lab.port,
                                      listen=two[1].address, session_env={"PATH": SESSION_PATH},
                                      netns="tdc2")  # fmt: skip
    # the lost host's test files were written down: the next connection removes them
    assert list(two[1].folder.iterdir()) != []
    # a run refused after connecting (no such folder): the connection alone cleans up
    again = subprocess.run([*CLI, "bench", "run", "--clients", "tdc2", "--preset",
                            "nas-seqwrite-1m-qd8x8", "--target", "/no/such/folder"],
                           env=_env(hosts, tmp_path), capture_output=True, text=True,
                           timeout=120)  # fmt: skip
    assert again.returncode == 2 and "does not exist on tdc2" in again.stderr
    assert _leftovers(two) == []


def test_a_fio_version_mismatch_is_refused_with_both(hosts: list[NsHost], tmp_path: Path) -> None:
    done = subprocess.run(_args([hosts[0], hosts[2]]), env=_env(hosts, tmp_path),
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 2
    version = subprocess.run(["fio", "--version"], capture_output=True, text=True).stdout.strip()
    assert "tdc3 has fio-3.28" in done.stderr and f"tdc1 has {version}" in done.stderr
    assert _leftovers(hosts) == [] and _fio_servers() == []


async def test_the_tui_shows_a_fio_version_mismatch_with_both(
    hosts: list[NsHost], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The clients run screen with the real session: the older fio on tdc3 is refused
    on the screen, naming both versions, before any server starts."""
    from tests.pilot.waiting import shown_text
    from tests.waiting import wait_until

    app, screen = _clients_screen(monkeypatch, hosts, [hosts[0], hosts[2]], tmp_path, numjobs=2)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: not screen.running, "the refusal", timeout=60)
        assert screen.outcome is None and screen.error is not None
        said = shown_text(screen.query_one("#run-summary"))
        assert said.startswith("✘ refused: ") and "tdc3 has fio-3.28" in said
        version = subprocess.run(["fio", "--version"], capture_output=True, text=True).stdout
        assert f"tdc1 has {version.strip()}" in said
    assert _leftovers(hosts) == [] and _fio_servers() == []


def test_ctrl_c_stops_every_host_within_seconds(hosts: list[NsHost], tmp_path: Path) -> None:
    two = hosts[:2]
    with cli_process(_args(two, runtime=30), _env(hosts, tmp_path)) as proc:
        assert proc.stderr is not None
        for line in proc.stderr:
            if line.startswith("running on"):
                break
        time.sleep(1)
        _, _, took = interrupt(proc)
    assert proc.returncode == 130
    assert took < 10
    assert _leftovers(two) == []
    assert _wait_servers_gone() == []


def _plain_client_run(
    two: list[NsHost], ports: list[int], job_texts: list[str], folder: Path
) -> list[int]:
    """What an admin would type by hand: one fio --client per host's own server."""
    from tierdeck.backends.fio.client_stats import read_client_report

    argv = ["fio", "--output-format=json"]
    for h, port, text in zip(two, ports, job_texts, strict=True):
        (folder / f"{h.name}.fio").write_text(text)
        argv += [f"--client={h.address},{port}", str(folder / f"{h.name}.fio")]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=True)
    reports = read_client_report(done.stdout)
    for h in two:
        for leftover in h.folder.iterdir():
            leftover.unlink()
    return [reports.by_port[p].write.bw_bytes for p in ports]


def test_each_host_as_a_plain_fio_client_run_sees_it(hosts: list[NsHost], tmp_path: Path) -> None:
    from tierdeck.backends.fio.jobfile import parse_jobfile
    from tierdeck.core.jobspec import jobfile_text, with_overrides
    from tierdeck.core.placement import place_jobs

    two = hosts[:2]
    job = tmp_path / "job.fio"
    job.write_text("[w]\nrw=write\nbs=1M\nsize=16M\nioengine=psync\n")
    jobs = with_overrides(parse_jobfile(job.read_text()), None, 2, False)
    texts = [jobfile_text(place_jobs(jobs, str(h.folder)).jobs, str(h.folder)) for h in two]
    ports = [free_port() for _ in two]
    servers = [subprocess.Popen(["ip", "netns", "exec", h.name, "fio", f"--server=ip:{h.address},{p}"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
               for h, p in zip(two, ports, strict=True)]  # fmt: skip
    try:
        time.sleep(1)  # the hand-started servers: nothing to wait on but their socket
        first = _plain_client_run(two, ports, texts, tmp_path)
        targets = [a for h in two for a in ("--target", f"{h.name}:{h.folder}")]
        done = subprocess.run([*CLI, "bench", "run", "--clients", "tdc1,tdc2", "--job", str(job),
                               *targets, "--runtime", "2", "--direct", "0", "--json", "--no-save"],
                              env=_env(hosts, tmp_path), capture_output=True, text=True,
                              timeout=120)  # fmt: skip
        second = _plain_client_run(two, ports, texts, tmp_path)
    finally:
        for server in servers:
            server.kill()
            server.wait()
    assert done.returncode == 0, done.stderr
    ours = [h["summary"]["write"]["bw_bytes"] for h in json.loads(done.stdout)["hosts"]]
    for a, b, mine in zip(first, second, ours, strict=True):
        # within the A/A noise of the same test (two plain runs), and never less than
        # a quarter either way on this shared machine
        noise = max(abs(b / a - 1) * 2, 0.25)
        assert abs(mine / a - 1) <= noise or abs(mine / b - 1) <= noise, (first, second, ours)
