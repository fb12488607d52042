"""The one way tests wait: for a condition, never for a fixed time.

``wait_until`` is for async tests: with a Pilot it lets the app run (workers, timers
such as the hotplug debounce, message queues) until the condition holds, then lets the
messages that led there drain, so the screen is painted; with ``pilot=None`` it lets a
plain event loop run (a benchmark task, an asyncio subprocess). ``wait_until_sync``
is the same for sync tests that watch another process (fio starting, a mount appearing).

Both check the condition first, then every ``POLL_S``: that short interval is the only
sleep the tests have, and it lives here. On timeout they fail with what was awaited.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot

POLL_S = 0.02
TIMEOUT_S = 30.0


def _timed_out(what: str, timeout: float) -> AssertionError:
    return AssertionError(f"timed out after {timeout:g} s waiting for {what}")


async def wait_until(
    pilot: Pilot[Any] | None,
    condition: Callable[[], object],
    what: str,
    timeout: float = TIMEOUT_S,
) -> None:
    """Wait until ``condition()`` is true, letting the app behind ``pilot`` (or, with
    ``None``, the event loop) run meanwhile; ``what`` names it in the failure. A worker
    that runs for the whole test (a benchmark) is not waited for, only the condition."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise _timed_out(what, timeout)
        if pilot is None:
            await asyncio.sleep(POLL_S)
            continue
        if not pilot.app.is_running:
            raise AssertionError(f"the app stopped while waiting for {what}")
        await pilot.pause(POLL_S)
    if pilot is not None:
        await pilot.pause()  # let what the condition saw reach the screen


def wait_until_sync(condition: Callable[[], object], what: str, timeout: float = TIMEOUT_S) -> None:
    """``wait_until`` for sync code: poll ``condition()`` until it is true."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise _timed_out(what, timeout)
        time.sleep(POLL_S)
