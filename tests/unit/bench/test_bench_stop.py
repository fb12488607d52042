"""The runner's stop path with a process group that ignores SIGTERM, as a wedged fio
could: SIGKILL must follow after the grace period and leave nothing running."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import pytest
from tierdeck.app.bench import runner as bench_runner
from tierdeck.backends.host import LiveHost
from tierdeck.backends.processes import group_alive

from tests.processes import fio_jobs_of, group_commands
from tests.waiting import wait_until


async def test_stop_kills_a_group_that_ignores_sigterm(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(bench_runner, "GRACE_S", 0.5)
    # A parent and a child, both deaf to TERM, in a session of their own (as fio runs).
    proc = await asyncio.create_subprocess_exec(
        "sh", "-c", "trap '' TERM; sh -c \"trap '' TERM; sleep 60\" & sleep 60",
        start_new_session=True,
    )  # fmt: skip
    # both shells set their trap before they reach their sleep
    await wait_until(None, lambda: group_commands(proc.pid).count("sleep") == 2, "both sleeps")
    assert group_alive(proc.pid)
    start = time.monotonic()
    await bench_runner.stop_process(LiveHost(), proc)
    elapsed = time.monotonic() - start
    assert not group_alive(proc.pid)
    assert proc.returncode is not None and proc.returncode < 0  # killed by a signal
    assert elapsed >= 0.5  # TERM was given its grace period first


async def test_stop_is_quick_when_term_is_obeyed() -> None:
    proc = await asyncio.create_subprocess_exec("sleep", "60", start_new_session=True)
    start = time.monotonic()
    await bench_runner.stop_process(LiveHost(), proc)
    assert not group_alive(proc.pid)
    assert time.monotonic() - start < bench_runner.GRACE_S


async def test_fio_jobs_outliving_a_killed_leader_are_still_the_group(tmp_path: Path) -> None:
    # fio's jobs call setsid(): a leader killed before it can stop them leaves them
    # running in sessions of their own, which the group's signal must still reach
    host = LiveHost()
    proc = await host.spawn(["fio", "--name=t", f"--filename={tmp_path / 'f'}", "--size=1M",
                             "--rw=read", "--time_based", "--runtime=60", "--numjobs=2",
                             "--output=/dev/null"])  # fmt: skip
    await wait_until(None, lambda: len(fio_jobs_of(proc.pid)) == 2, "fio's two jobs")
    jobs = fio_jobs_of(proc.pid)
    os.kill(proc.pid, signal.SIGKILL)  # the leader alone
    # (not proc.wait(): that also waits for the pipes, which the jobs hold open)
    await wait_until(None, lambda: proc.returncode is not None, "the leader's end")
    assert all(Path(f"/proc/{job}").exists() for job in jobs)
    assert host.group_alive(proc.pid)
    await bench_runner.stop_process(host, proc)
    assert not host.group_alive(proc.pid)
    await wait_until(
        None, lambda: not any(Path(f"/proc/{j}").exists() for j in jobs), "jobs reaped"
    )


async def test_a_missing_program_is_an_oserror_as_before() -> None:
    with pytest.raises(FileNotFoundError, match="no-such-fio"):
        await LiveHost().spawn(["no-such-fio", "--version"])
