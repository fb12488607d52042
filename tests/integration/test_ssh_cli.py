"""``tierdeck --host`` as a user runs it, against a real sshd on the loopback that
serves this very machine: the same answers as without ``--host``."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.processes import fio_processes_using, stop_cli_and_fio
from tests.support.steady_inventory import assert_same_inventory
from tests.waiting import wait_until_sync

pytestmark = pytest.mark.integration

CLI = [sys.executable, "-m", "tierdeck.app.cli"]


def _env(data_dir: Path) -> dict[str, str]:
    env = {**os.environ, "TIERDECK_DATA_DIR": str(data_dir)}
    env.pop("SSH_AUTH_SOCK", None)
    return env


def tierdeck(data_dir: Path, *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], env=_env(data_dir), capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)  # fmt: skip


@pytest.fixture
def hdd(lab_nas: Path) -> Iterator[Path]:
    """A fresh folder on the lab's throttled "HDD" (its speed is the throttle's)."""
    path = lab_nas / "mnt" / "hdd0" / f"ssh-{uuid.uuid4().hex[:8]}"
    path.mkdir()
    yield path
    subprocess.run(["rm", "-rf", str(path)], check=False)


def test_inventory_json_over_ssh_is_the_local_one(
    ssh_lab: Any, lab_nas: Path, tmp_path: Path
) -> None:
    local = tierdeck(tmp_path, "inventory", "--json")
    remote = tierdeck(tmp_path, "--host", ssh_lab.alias, "inventory", "--json")
    assert remote.returncode == 0, remote.stderr
    # --host after the command name works the same
    assert tierdeck(tmp_path, "inventory", "--host", ssh_lab.alias, "--json").returncode == 0
    assert_same_inventory(json.loads(remote.stdout), json.loads(local.stdout), lab_nas)


def test_an_unknown_key_stops_the_command_before_any_work(ssh_lab: Any, tmp_path: Path) -> None:
    ssh_lab.forget_host_key()
    proc = tierdeck(tmp_path, "--host", ssh_lab.alias, "inventory")
    assert proc.returncode == 1
    assert "unknown host key" in proc.stderr and "SHA256:" in proc.stderr
    assert proc.stdout == ""


def _bandwidth(proc: subprocess.CompletedProcess[str]) -> float:
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    return float(sum(job["write"]["bw_bytes"] for job in doc["jobs"]))


def test_a_benchmark_over_ssh_measures_what_it_measures_here(
    ssh_lab: Any, hdd: Path, tmp_path: Path
) -> None:
    run = ("bench", "run", "--preset", "seed000-seqwrite", "--target", str(hdd),
           "--runtime", "2", "--size", "16M", "--json", "--no-save")  # fmt: skip
    here: list[float] = []
    there: list[float] = []
    for _ in range(3):  # interleaved: what the machine does meanwhile falls on both sides
        here.append(_bandwidth(tierdeck(tmp_path, *run)))
        there.append(_bandwidth(tierdeck(tmp_path, "--host", ssh_lab.alias, *run)))
    local, remote = statistics.median(here), statistics.median(there)
    # The same job on each side, in this test: its spread there counts as much as here.
    # The floor: on the lab's throttled loop "HDD" plain fio alone, five runs in a row,
    # gave 99-124 MB/s (a 25 % spread), and a stretch of runs can sit at either end.
    a_a_noise = max(max(here) - min(here), max(there) - min(there)) / local
    assert abs(remote - local) / local <= max(3 * a_a_noise, 0.25), (here, there)
    assert not [p for p in hdd.iterdir() if p.name.startswith(".tierdeck-bench.")]


def test_a_dropped_link_stops_fio_on_the_host_and_stores_the_run_as_failed(
    ssh_lab: Any, hdd: Path, tmp_path: Path
) -> None:
    proc = subprocess.Popen(
        [*CLI, "--host", ssh_lab.alias, "bench", "run", "--preset", "seed000-seqwrite",
         "--target", str(hdd), "--runtime", "60", "--size", "16M", "--json"],
        env=_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait_until_sync(lambda: bool(fio_processes_using(hdd)), "fio to start on the host", 60)
        ssh_lab.kill_sessions()
        wait_until_sync(lambda: not fio_processes_using(hdd), "fio to stop on the host", 5)
        _out, err = proc.communicate(timeout=60)
        assert proc.returncode == 1, err
        assert "connection" in err and "lost" in err
        # the CLI removed its test files over a new connection at once
        assert not [p for p in hdd.iterdir() if p.name.startswith(".tierdeck-bench.")]
        failed = json.loads(tierdeck(tmp_path, "history", "list", "--json", "--status",
                                     "failed").stdout)  # fmt: skip
        assert len(failed) == 1
        shown = tierdeck(tmp_path, "history", "show", str(failed[0]["id"])).stdout
        assert "lost" in shown
    finally:
        stop_cli_and_fio(proc, hdd)
