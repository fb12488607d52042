"""The runner's stop path with a process group that ignores SIGTERM, as a wedged fio
could: SIGKILL must follow after the grace period and leave nothing running."""

from __future__ import annotations

import asyncio
import time

from tierdeck.app import bench_runner
from tierdeck.backends.host import LiveHost
from tierdeck.backends.processes import group_alive


async def test_stop_kills_a_group_that_ignores_sigterm(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(bench_runner, "GRACE_S", 0.5)
    # A parent and a child, both deaf to TERM, in a session of their own (as fio runs).
    proc = await asyncio.create_subprocess_exec(
        "sh", "-c", "trap '' TERM; sh -c \"trap '' TERM; sleep 60\" & sleep 60",
        start_new_session=True,
    )  # fmt: skip
    await asyncio.sleep(0.2)  # let the child start
    assert group_alive(proc.pid)
    start = time.monotonic()
    await bench_runner._stop(LiveHost(), proc)
    elapsed = time.monotonic() - start
    assert not group_alive(proc.pid)
    assert proc.returncode is not None and proc.returncode < 0  # killed by a signal
    assert elapsed >= 0.5  # TERM was given its grace period first


async def test_stop_is_quick_when_term_is_obeyed() -> None:
    proc = await asyncio.create_subprocess_exec("sleep", "60", start_new_session=True)
    start = time.monotonic()
    await bench_runner._stop(LiveHost(), proc)
    assert not group_alive(proc.pid)
    assert time.monotonic() - start < bench_runner.GRACE_S
