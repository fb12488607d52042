"""``tierdeck bench ladder`` as a real subprocess on the lab NAS's pool/cached.

Real fio on every rung (runtime 1 s, size 8M: the users' default is longer), real
throwaway tmpfs and mergerfs mounts under /run/tierdeck/throwaway. Each test has its own history folder and checks
that nothing it mounted is left: no mount and no directory under the root of its own
tierdeck process (other tests may hold roots of their own at the same time).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tierdeck.app.history.run_sets import RunSetStore
from tierdeck.app.history.store import DB_NAME
from tierdeck.app.ladder.throwaway_mounts import THROWAWAY_BASE

from tests.conftest import MountDir
from tests.processes import fio_processes_using
from tests.waiting import wait_until_sync

pytestmark = pytest.mark.integration

CLI = [sys.executable, "-m", "tierdeck.app.cli"]
TINY = ("--runtime", "1", "--size", "8M")


def _env(data_dir: Path) -> dict[str, str]:
    return {**os.environ, "TIERDECK_DATA_DIR": str(data_dir)}


def tierdeck(data_dir: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], int]:
    """Run the CLI to its end: what it printed, and its pid (which names its root)."""
    with subprocess.Popen([*CLI, *args], env=_env(data_dir), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as proc:  # fmt: skip
        out, err = proc.communicate(timeout=180)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err), proc.pid


def no_leftovers(pid: int) -> None:
    assert throwaway_mounts(pid) == []
    assert roots_of(pid) == []


def throwaway_mounts(pid: int) -> list[str]:
    """Mountpoints under process ``pid``'s throwaway root."""
    top = f"{THROWAWAY_BASE}/{pid}-"
    with open("/proc/self/mountinfo", encoding="utf-8") as fh:
        return [line.split()[4] for line in fh if line.split()[4].startswith(top)]


def roots_of(pid: int) -> list[str]:
    base = Path(THROWAWAY_BASE)
    return [p.name for p in base.iterdir() if p.name.startswith(f"{pid}-")] if base.exists() else []


def ladder_json(ran: tuple[subprocess.CompletedProcess[str], int]) -> dict[str, Any]:
    proc, pid = ran
    no_leftovers(pid)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 1, proc.stdout
    doc: dict[str, Any] = json.loads(lines[0])
    return doc


def write_bw(rung: dict[str, Any]) -> int:
    value: int = rung["summary"]["write"]["bw_bytes"]
    return value


def test_ladder_on_the_tiered_pool(lab_nas: Path, tmp_path: Path) -> None:
    pool = lab_nas / "pool" / "cached"
    cache, hdd0 = str(lab_nas / "mnt" / "cache"), str(lab_nas / "mnt" / "hdd0")
    doc = ladder_json(tierdeck(tmp_path, "bench", "ladder", "--target", str(pool), "--json", *TINY))
    assert doc["schema"] == "tierdeck.ladder/1"
    assert doc["pool"] == str(pool)
    rungs = doc["rungs"]
    assert [r["rung"] for r in rungs] == ["branch", "branch", "pool", "tmpfs", "nullrw"]
    assert all("skipped" not in r for r in rungs), rungs
    # ff with room on the cache: a new file lands on the cache; once the cache is full,
    # on the first slow branch
    assert [(r["label"], r["path"], r.get("role")) for r in rungs[:2]] == [
        ("branch", cache, "create"),
        ("slow", hdd0, "slow"),
    ]
    assert [r["compared_to"] for r in rungs] == [None, None, "branch", "nullrw", None]
    assert rungs[2]["penalty_pct"] is not None and rungs[3]["penalty_pct"] is not None
    expected = (1 - write_bw(rungs[2]) / write_bw(rungs[0])) * 100
    assert rungs[2]["penalty_pct"] == pytest.approx(expected, abs=0.01)  # against the cache
    # nullrw usually beats tmpfs, but a second of each on a busy machine can go either
    # way: that both rungs wrote is what this test can hold
    assert write_bw(rungs[4]) > 0 and write_bw(rungs[3]) > 0
    assert cache in doc["diagnosis"] and f"the slow branch {hdd0} takes" in doc["diagnosis"]
    # the pool takes O_DIRECT here: the job says so, and it ran as long as asked
    assert doc["direct_refused"] is None
    assert doc["job"] == "sequential 1 MiB writes, O_DIRECT, 1 s per rung on a file of 8M"
    # every rung is a stored run tagged with the ladder, and a cell of its run set
    store = RunSetStore(tmp_path / DB_NAME)
    ids = {r["run_id"] for r in rungs}
    assert None not in ids and len(ids) == 5
    for run_id in ids:
        run = store.get(run_id)
        assert run is not None and f"ladder:{doc['id']}" in run.tags
        assert all(job.direct and job.time_based and job.runtime == 1 for job in run.jobs)
    assert set(store.cells(doc["id"]).values()) == ids


def test_a_pool_refusing_o_direct_runs_buffered_on_every_rung_and_says_so(
    lab_nas: Path, tmp_path: Path, ramfs_dir: MountDir, tmpfs_dir: MountDir
) -> None:
    """A tiered pool whose cache is a ramfs: mergerfs answers O_DIRECT with EINVAL (as
    FUSE does on many setups). Said before the first rung; every rung, branches too,
    runs the same buffered job, so the pool is compared like for like."""
    pool = tmp_path / "pool"
    pool.mkdir()
    with ramfs_dir("ram") as ram, tmpfs_dir("slow", size="128M") as slow:
        options = f"category.create=ff,minfreespace=0,fsname=tdladder{os.getpid()}"
        subprocess.run(["mergerfs", "-o", options, f"{ram}=RW:{slow}=RW", str(pool)],
                       check=True, timeout=30)  # fmt: skip
        try:
            ran = tierdeck(tmp_path, "bench", "ladder", "--target", str(pool), "--json", *TINY)
        finally:
            subprocess.run(["umount", str(pool)], check=False, timeout=30)
    proc, _ = ran
    doc = ladder_json(ran)
    assert doc["direct_refused"] == "EINVAL: Invalid argument"
    assert doc["job"].startswith(
        "sequential 1 MiB writes, buffered on every rung because the pool refuses O_DIRECT"
    )
    said = proc.stderr.splitlines()
    first_rung = next(i for i, line in enumerate(said) if "rung 1 of 5" in line)
    assert any("buffered on every rung" in line for line in said[:first_rung]), proc.stderr
    rungs = doc["rungs"]
    assert [(r["label"], r["path"]) for r in rungs[:3]] == [
        ("branch", str(ram)),
        ("slow", str(slow)),
        ("pool", str(pool)),
    ]
    assert all("skipped" not in r for r in rungs), rungs
    assert rungs[2]["penalty_pct"] is not None and str(ram) in doc["diagnosis"]


def test_option_sweep_two_values(lab_nas: Path, tmp_path: Path) -> None:
    pool = lab_nas / "pool" / "cached"
    doc = ladder_json(
        tierdeck(
            tmp_path,
            "bench",
            "ladder",
            "--target",
            str(pool),
            "--json",
            "--option",
            "cache.files=off,partial",
            "--no-save",
            *TINY,
        )  # fmt: skip
    )
    rungs = doc["rungs"]
    assert [(r["rung"], r["label"]) for r in rungs] == [
        ("pool", "pool"),
        ("option", "cache.files=off"),
        ("option", "cache.files=partial"),
    ]
    assert all("skipped" not in r and r["run_id"] is None for r in rungs), rungs
    assert rungs[1]["option"] == {"name": "cache.files", "value": "off"}
    assert all(r["penalty_pct"] is not None and r["compared_to"] == "pool" for r in rungs[1:])


def test_kill_9_mid_ladder_then_restart_leaves_nothing(lab_nas: Path, tmp_path: Path) -> None:
    pool = lab_nas / "pool" / "cached"
    proc = subprocess.Popen(
        [
            *CLI,
            "bench",
            "ladder",
            "--target",
            str(pool),
            "--runtime",
            "3",
            "--size",
            "8M",
            "--no-save",
        ],
        env=_env(tmp_path),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        # fio writing through the throwaway pool over the tmpfs: a holder to stop
        wait_until_sync(
            lambda: (
                any(m.endswith("/pool-tmpfs") for m in throwaway_mounts(proc.pid))
                and fio_processes_using(Path(THROWAWAY_BASE))
            ),
            "fio in the throwaway pool",
            timeout=60,
        )
        os.kill(proc.pid, signal.SIGKILL)  # tierdeck only: fio runs on in its own session
        proc.wait()
        assert throwaway_mounts(proc.pid), "the kill left the mounts (what the restart cleans)"
        restart, _ = tierdeck(tmp_path, "bench", "ladder", "--target", str(tmp_path))
        assert restart.returncode == 2, restart.stderr  # not a pool: refused, after cleaning
        assert "removed throwaway mounts left by a dead tierdeck" in restart.stderr
        assert roots_of(proc.pid) == [], restart.stderr  # what the cleaner said of it
        no_leftovers(proc.pid)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        for pid in fio_processes_using(Path(THROWAWAY_BASE) / f"{proc.pid}-"):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
