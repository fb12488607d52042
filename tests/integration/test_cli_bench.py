"""``tierdeck bench run`` and ``tierdeck history`` as real subprocesses on the lab NAS.

Real fio, real preflight and runner, short runs (--runtime 2, small sizes). Each test
uses its own history folder (TIERDECK_DATA_DIR) and leaves nothing mounted, running or
written behind.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MountDir
from tests.processes import fio_processes_using

pytestmark = pytest.mark.integration


def tierdeck(data_dir: Path, *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tierdeck.app.cli", *args],
        env={**os.environ, "TIERDECK_DATA_DIR": str(data_dir)},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def bench_files(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.startswith(".tierdeck-bench."))


def wait_until(condition: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


@pytest.fixture
def scratch(lab_nas: Path) -> Iterator[Path]:
    """A fresh directory on the lab's btrfs cache, removed afterwards."""
    path = lab_nas / "mnt" / "cache" / f"cli-{uuid.uuid4().hex[:8]}"
    path.mkdir()
    try:
        yield path
    finally:
        for child in path.iterdir():
            child.unlink()
        path.rmdir()


def one_json_object(stdout: str) -> dict[str, Any]:
    lines = stdout.splitlines()
    assert len(lines) == 1, stdout
    doc = json.loads(lines[0])
    assert isinstance(doc, dict)
    return doc


def test_preset_run_prints_one_object_and_lands_in_history(lab_nas: Path, tmp_path: Path) -> None:
    cache = lab_nas / "mnt" / "cache"
    proc = tierdeck(tmp_path, "bench", "run", "--preset", "seed000-seqwrite", "--target",
                    str(cache), "--runtime", "2", "--size", "32M", "--json")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    doc = one_json_object(proc.stdout)
    assert doc["schema"] == "tierdeck.run/1"
    assert doc["status"] == "ok" and doc["error"] is None
    assert doc["summary"]["write"]["bw_bytes"] > 0
    assert doc["summary"]["read"] is None
    assert len(doc["series"]) >= 1
    assert sum(s["write"]["bw_bytes"] for s in doc["series"]) > 0
    assert doc["target"]["path"] == str(cache)
    assert doc["target"]["disks"], "the inventory knows the loops under the cache"
    assert {d["device"] for d in doc["devices"]} >= set(doc["target"]["disks"])
    assert [(j["size"], j["runtime"]) for j in doc["spec"]["jobs"]] == [("32M", 2)]
    assert doc["env"]["fio_version"].startswith("fio-3")
    assert bench_files(cache) == []

    listed = tierdeck(tmp_path, "history", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    runs = json.loads(listed.stdout)
    assert [r["id"] for r in runs] == [doc["id"]]
    assert runs[0]["summary"] == doc["summary"]
    shown = tierdeck(tmp_path, "history", "show", str(doc["id"]))
    assert shown.returncode == 0 and "fiotest  write" in shown.stdout


def test_odirect_on_ramfs_is_refused_with_the_offer(
    lab_nas: Path, tmp_path: Path, ramfs_dir: MountDir
) -> None:
    with ramfs_dir() as ramfs:
        proc = tierdeck(tmp_path / "data", "bench", "run", "--preset", "seed000-seqwrite",
                        "--target", str(ramfs), "--runtime", "2", "--size", "32M",
                        "--direct", "1", "--json")  # fmt: skip
        assert proc.returncode == 2, proc.stderr
        assert proc.stdout == ""
        assert "does not support O_DIRECT" in proc.stderr
        assert "re-run with --direct 0" in proc.stderr
        assert bench_files(ramfs) == []
    assert not os.path.ismount(ramfs)


def test_fio_failure_exits_1_with_fios_message_and_is_stored_as_failed(
    scratch: Path, tmp_path: Path
) -> None:
    job = tmp_path / "bad-engine.fio"
    job.write_text("[bad]\nrw=write\nsize=1M\nioengine=doesnotexist\n")
    proc = tierdeck(tmp_path, "bench", "run", "--job", str(job), "--target", str(scratch),
                    "--json")  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    doc = one_json_object(proc.stdout)
    assert doc["status"] == "failed"
    assert "doesnotexist" in doc["error"]
    assert "the run failed" in proc.stderr and "doesnotexist" in proc.stderr
    assert json.loads(tierdeck(tmp_path, "history", "list", "--json").stdout) == []
    failed = json.loads(
        tierdeck(tmp_path, "history", "list", "--json", "--status", "failed").stdout
    )
    assert [r["id"] for r in failed] == [doc["id"]]


def test_job_file_with_two_stonewalled_jobs(scratch: Path, tmp_path: Path) -> None:
    job = tmp_path / "two.fio"
    job.write_text(
        "; written for this test\n[global]\nioengine=psync\nbs=1M\nsize=16M\n\n"
        "[first-write]\nrw=write\n\n[then-read]\nrw=read\nstonewall\n"
    )
    proc = tierdeck(tmp_path, "bench", "run", "--job", str(job), "--target", str(scratch),
                    "--runtime", "2", "--json", "--name", "two jobs")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    doc = one_json_object(proc.stdout)
    assert doc["name"] == "two jobs" and doc["preset"] is None
    assert [j["name"] for j in doc["spec"]["jobs"]] == ["first-write", "then-read"]
    results = {j["name"]: j for j in doc["jobs"]}
    assert results["first-write"]["write"]["bw_bytes"] > 0
    assert results["first-write"]["read"] is None
    assert results["then-read"]["read"]["bw_bytes"] > 0
    assert len(doc["series"]) >= 1
    assert bench_files(scratch) == []


def test_sigint_cancels_cleanly_and_exits_130(scratch: Path, tmp_path: Path) -> None:
    job = tmp_path / "long.fio"
    job.write_text("[long]\nrw=write\nbs=64k\nsize=16M\nioengine=psync\ntime_based\nruntime=60\n")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tierdeck.app.cli",
            "bench",
            "run",
            "--job",
            str(job),
            "--target",
            str(scratch),
            "--json",
        ],  # fmt: skip
        env={**os.environ, "TIERDECK_DATA_DIR": str(tmp_path)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert wait_until(lambda: bool(fio_processes_using(scratch)), 30), "fio never started"
        assert wait_until(lambda: bool(bench_files(scratch)), 30), "no test file appeared"
        time.sleep(1.5)  # let fio measure for a moment
        proc.send_signal(signal.SIGINT)  # the CLI only, as a script's kill -INT would
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        for pid in fio_processes_using(scratch):
            os.kill(pid, signal.SIGKILL)
    assert proc.returncode == 130, stderr
    assert json.loads(stdout)["status"] == "cancelled"
    assert fio_processes_using(scratch) == []
    assert bench_files(scratch) == []
    cancelled = tierdeck(tmp_path, "history", "list", "--json", "--status", "cancelled")
    assert len(json.loads(cancelled.stdout)) == 1
