"""``tierdeck bench run`` and ``tierdeck history`` as real subprocesses on the lab NAS.

Real fio, real preflight and runner, short runs (--runtime 2, small sizes). Each test
uses its own history folder (TIERDECK_DATA_DIR) and leaves nothing mounted, running or
written behind. Raw mode runs on loop devices of its own, always detached again.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MountDir
from tests.processes import fio_processes_using, stop_cli_and_fio
from tests.waiting import wait_until_sync

pytestmark = pytest.mark.integration


CLI = [sys.executable, "-m", "tierdeck.app.cli"]


def tierdeck(data_dir: Path, *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args],
        env={**os.environ, "TIERDECK_DATA_DIR": str(data_dir)},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def start_tierdeck(data_dir: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*CLI, *args],
        env={**os.environ, "TIERDECK_DATA_DIR": str(data_dir)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def stop(proc: subprocess.Popen[str], directory: Path) -> None:
    stop_cli_and_fio(proc, directory)


def bench_files(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.startswith(".tierdeck-bench."))


def written(directory: Path) -> int:
    """Bytes in the test files so far (0 while fio has not written)."""
    total = 0
    for name in bench_files(directory):
        with contextlib.suppress(FileNotFoundError):
            total += (directory / name).stat().st_blocks * 512
    return total


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
    # seed000 runs 8 clones, each with a file of its own: 8 x 4M on the 256M btrfs raid1
    proc = tierdeck(tmp_path, "bench", "run", "--preset", "seed000-seqwrite", "--target",
                    str(cache), "--runtime", "2", "--size", "4M", "--json")  # fmt: skip
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
    assert [(j["size"], j["runtime"], j["time_based"]) for j in doc["spec"]["jobs"]] == [
        ("4M", 2, True)
    ]
    assert doc["env"]["fio_version"].startswith("fio-3")
    assert bench_files(cache) == []

    listed = tierdeck(tmp_path, "history", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    runs = json.loads(listed.stdout)
    assert [r["id"] for r in runs] == [doc["id"]]
    assert runs[0]["summary"] == doc["summary"]
    shown = tierdeck(tmp_path, "history", "show", str(doc["id"]))
    assert shown.returncode == 0
    rows = [line.split() for line in shown.stdout.splitlines() if line.startswith("fiotest ")]
    assert [row[:4] for row in rows] == [["fiotest", "write", "1M", "write"]]
    mib_s = float(rows[0][4].replace(",", ""))
    assert mib_s == pytest.approx(doc["jobs"][0]["write"]["bw_bytes"] / (1 << 20), abs=0.06)


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
    assert doc["mixed_jobs"] is True  # a write and a read: no whole-run headline
    assert len(doc["series"]) >= 1
    assert bench_files(scratch) == []
    shown = tierdeck(tmp_path, "history", "show", str(doc["id"])).stdout
    rows = [line.split()[:4] for line in shown.splitlines() if line.startswith(("first", "then"))]
    assert rows == [["first-write", "write", "1M", "write"], ["then-read", "read", "1M", "read"]]
    assert "jobs differ in rw/bs: no whole-run figure" in shown and "all jobs" not in shown
    listed = tierdeck(tmp_path, "history", "list").stdout.splitlines()
    assert listed[1].endswith("1 job        1 job")


def test_sigint_cancels_cleanly_and_exits_130(scratch: Path, tmp_path: Path) -> None:
    job = tmp_path / "long.fio"
    job.write_text("[long]\nrw=write\nbs=64k\nsize=16M\nioengine=psync\ntime_based\nruntime=60\n")
    proc = start_tierdeck(tmp_path, "bench", "run", "--job", str(job), "--target", str(scratch),
                          "--json")  # fmt: skip
    try:
        wait_until_sync(lambda: bool(fio_processes_using(scratch)), "fio to start", 30)
        wait_until_sync(lambda: written(scratch) > 0, "fio to write", 30)
        proc.send_signal(signal.SIGINT)  # the CLI only, as a script's kill -INT would
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        stop(proc, scratch)
    assert proc.returncode == 130, stderr
    assert json.loads(stdout)["status"] == "cancelled"
    assert fio_processes_using(scratch) == []
    assert bench_files(scratch) == []
    cancelled = tierdeck(tmp_path, "history", "list", "--json", "--status", "cancelled")
    assert len(json.loads(cancelled.stdout)) == 1


# ------------------------------------------------------------------ refusals and notices


def test_a_file_outside_the_target_is_refused_with_the_reason(
    scratch: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere.dat"
    job = tmp_path / "outside.fio"
    job.write_text(f"[escape]\nrw=write\nbs=64k\nsize=1M\nfilename={outside}\n")
    proc = tierdeck(tmp_path / "data", "bench", "run", "--job", str(job), "--target",
                    str(scratch), "--json")  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert f"refused: escape: filename={outside} is outside the target {scratch}" in proc.stderr
    assert not outside.exists() and bench_files(scratch) == []
    assert fio_processes_using(scratch) == []


def test_directory_notice_is_printed_before_the_run_starts(scratch: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "not-here"
    job = tmp_path / "directory.fio"
    job.write_text(f"[moved]\nrw=write\nbs=64k\nsize=1M\nioengine=psync\ndirectory={elsewhere}\n")
    proc = tierdeck(tmp_path / "data", "bench", "run", "--job", str(job), "--target",
                    str(scratch), "--json", "--no-save")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    notice = f"tierdeck: moved: directory={elsewhere} is replaced by the target {scratch}"
    # first on stderr (before fio's first notice), and only once
    assert proc.stderr.splitlines()[0].startswith(notice), proc.stderr
    assert proc.stderr.count(notice) == 1
    doc = one_json_object(proc.stdout)
    assert doc["status"] == "ok" and doc["jobs"][0]["write"]["bw_bytes"] > 0
    assert not elsewhere.exists() and bench_files(scratch) == []


def test_a_busy_target_exits_2(scratch: Path, tmp_path: Path) -> None:
    """Another tierdeck process holds the target: only the runner's lock finds out."""
    job = tmp_path / "long.fio"
    job.write_text("[long]\nrw=write\nbs=64k\nsize=4M\nioengine=psync\ntime_based\nruntime=60\n")
    first = start_tierdeck(tmp_path / "first", "bench", "run", "--job", str(job), "--target",
                           str(scratch), "--json")  # fmt: skip
    try:
        wait_until_sync(lambda: bool(fio_processes_using(scratch)), "fio to start", 30)
        second = tierdeck(tmp_path / "second", "bench", "run", "--job", str(job), "--target",
                          str(scratch), "--json")  # fmt: skip
        assert second.returncode == 2, second.stderr
        assert "refused: another tierdeck process is running a benchmark on this target" in (
            second.stderr
        )
        assert second.stdout == ""
        every = tierdeck(tmp_path / "second", "history", "list", "--json", "--status", "all")
        assert json.loads(every.stdout) == []
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=60)
    finally:
        stop(first, scratch)
    assert first.returncode == 130
    assert bench_files(scratch) == []


def test_a_closed_stdout_still_saves_the_run_and_removes_its_files(
    scratch: Path, tmp_path: Path
) -> None:
    job = tmp_path / "small.fio"
    job.write_text("[small]\nrw=write\nbs=64k\nsize=4M\nioengine=psync\n")
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the run even starts
    try:
        proc = subprocess.run(
            [*CLI, "bench", "run", "--job", str(job), "--target", str(scratch)],
            env={**os.environ, "TIERDECK_DATA_DIR": str(tmp_path)},
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=180,
        )
    finally:
        os.close(write_end)
    assert proc.returncode == 141, proc.stderr
    assert "Traceback" not in proc.stderr and "Broken pipe" not in proc.stderr
    assert "BrokenPipeError" not in proc.stderr and "Exception ignored" not in proc.stderr
    runs = json.loads(tierdeck(tmp_path, "history", "list", "--json").stdout)
    assert [(r["status"], r["jobs"][0]["name"]) for r in runs] == [("ok", "small")]
    assert bench_files(scratch) == [] and fio_processes_using(scratch) == []


def test_a_closed_stderr_does_not_abandon_the_run(scratch: Path, tmp_path: Path) -> None:
    """`2>&1 | head`: the notices have no reader, the run still ends, cleans up, saves."""
    job = tmp_path / "noisy.fio"
    # directory= makes plan_run say something on stderr before fio starts
    job.write_text(f"[noisy]\nrw=write\nbs=64k\nsize=4M\nioengine=psync\ndirectory={tmp_path}\n")
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run(
            [*CLI, "bench", "run", "--job", str(job), "--target", str(scratch), "--json"],
            env={**os.environ, "TIERDECK_DATA_DIR": str(tmp_path / "data")},
            stdout=subprocess.PIPE,
            stderr=write_end,
            text=True,
            timeout=180,
        )
    finally:
        os.close(write_end)
    assert proc.returncode == 0
    doc = one_json_object(proc.stdout)
    assert doc["status"] == "ok" and doc["id"] is not None
    runs = json.loads(tierdeck(tmp_path / "data", "history", "list", "--json").stdout)
    assert [r["id"] for r in runs] == [doc["id"]]
    assert bench_files(scratch) == [] and fio_processes_using(scratch) == []


# ------------------------------------------------------------------ raw mode

RAW_JOB = "[raw]\nrw=write\nbs=64k\nsize=4M\nioengine=psync\n"


@contextlib.contextmanager
def loop_device(image: Path, *, filesystem: str | None = None) -> Iterator[str]:
    """A loop device on a fresh 64 MiB file (with ``filesystem`` made on it); always
    detached on leaving. Use with the ``udevd`` fixture: loop numbers are reused, and
    without a running udevd the udev database still describes a device's previous
    backing file (a lab's btrfs), which the inventory reads."""
    with open(image, "wb") as handle:
        handle.truncate(64 << 20)
    if filesystem is not None:
        subprocess.run([f"mkfs.{filesystem}", "-q", "-F", str(image)], check=True, timeout=60)
    node = subprocess.run(["losetup", "--find", "--show", str(image)], check=True,
                          capture_output=True, text=True, timeout=30).stdout.strip()  # fmt: skip
    try:
        # udev probes the new backing file: its database then describes this one
        subprocess.run(["udevadm", "settle", "--timeout=30"], check=False, timeout=60)
        yield node
    finally:
        subprocess.run(["losetup", "--detach", node], check=False, timeout=30)


@pytest.mark.usefixtures("udevd")
def test_raw_mode_on_an_unused_loop_device(tmp_path: Path) -> None:
    job = tmp_path / "raw.fio"
    job.write_text(RAW_JOB)
    data = tmp_path / "data"
    with loop_device(tmp_path / "raw.img") as node:
        name = os.path.basename(node)
        run = ["bench", "run", "--job", str(job), "--target", node, "--runtime", "1", "--json"]

        without = tierdeck(data, *run)
        assert without.returncode == 2, without.stderr
        assert f"refused: {node} is a block device" in without.stderr
        assert "add --raw" in without.stderr and "--confirm-device NAME" in without.stderr

        wrong = tierdeck(data, *run, "--raw", "--confirm-device", "loop-nope")
        assert wrong.returncode == 2, wrong.stderr
        assert f"the confirmation 'loop-nope' does not match the device name '{name}'" in (
            wrong.stderr
        )

        no_terminal = tierdeck(data, *run, "--raw")  # stdin is not a terminal here
        assert no_terminal.returncode == 2
        assert "add --confirm-device NAME" in no_terminal.stderr

        right = tierdeck(data, *run, "--raw", "--confirm-device", name)
        assert right.returncode == 0, right.stderr
        doc = one_json_object(right.stdout)
        assert doc["status"] == "ok" and doc["target"]["kind"] == "raw"
        assert doc["target"]["path"] == node
        assert doc["jobs"][0]["write"]["bw_bytes"] > 0
        assert f"raw mode: fio reads and writes {node} directly" in right.stderr
    every = json.loads(tierdeck(data, "history", "list", "--json", "--status", "all").stdout)
    assert [r["id"] for r in every] == [doc["id"]]  # the refusals stored nothing


@pytest.mark.usefixtures("udevd")
def test_raw_mode_refuses_a_loop_device_with_a_filesystem(tmp_path: Path) -> None:
    job = tmp_path / "raw.fio"
    job.write_text(RAW_JOB)
    with loop_device(tmp_path / "ext4.img", filesystem="ext4") as node:
        proc = tierdeck(tmp_path / "data", "bench", "run", "--job", str(job), "--target", node,
                        "--runtime", "1", "--raw", "--confirm-device", os.path.basename(node))  # fmt: skip
        assert proc.returncode == 2, proc.stderr
        assert f"refused: refusing raw mode on {node}" in proc.stderr
        assert "ext4" in proc.stderr
        probe = subprocess.run(["blkid", "-p", "-o", "value", "-s", "TYPE", node],
                               capture_output=True, text=True, timeout=30)  # fmt: skip
        assert probe.stdout.strip() == "ext4"  # untouched
