"""A lab NAS left by a killed test run is cleared before the next run builds its own;
a live run's lab is left alone. A real lab (loops, filesystems, mergerfs pools) under a
folder shaped like pytest's numbered run folders, with pytest's own lock file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from tierdeck.app.machine.lab import lab_down, lab_up
from tierdeck.backends.host import LiveHost

from tests.support.stale_labs import clear_labs_of_dead_runs, lab_of

pytestmark = pytest.mark.integration


def _left(lab: Path) -> tuple[list[str], list[str]]:
    """Mounts under the lab and loop devices backed by its images, read from the kernel."""
    mounts = [
        line.split()[1]
        for line in Path("/proc/self/mounts").read_text().splitlines()
        if line.split()[1].startswith(str(lab) + "/")
    ]
    loops = []
    for block in Path("/sys/block").glob("loop*"):
        try:
            backing = (block / "loop" / "backing_file").read_text().strip()
        except OSError:
            continue
        if backing.startswith(str(lab) + "/"):
            loops.append(block.name)
    return mounts, loops


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_killed_runs_lab_is_cleared_and_a_live_ones_kept(tmp_path: Path) -> None:
    run = tmp_path / "pytest-of-root" / "pytest-7"
    lab = run / "popen-gw0" / "lab0" / "nas"
    lab.mkdir(parents=True)
    lock = run / ".lock"
    lock.write_text(str(os.getpid()))  # a run that still lives: this one
    lab_up(lab, throttle=None)
    try:
        mounts, loops = _left(lab)
        assert mounts and loops and lab_of(mounts[0]) == (str(lab), str(run))
        assert lab not in clear_labs_of_dead_runs(LiveHost())
        assert _left(lab) == (mounts, loops)
        lock.write_text(str(_dead_pid()))  # the run was killed: its lock names a dead pid
        assert lab in clear_labs_of_dead_runs(LiveHost())
        assert _left(lab) == ([], [])
    finally:
        lab_down(lab)
