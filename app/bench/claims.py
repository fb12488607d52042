"""One benchmark per target at a time: the runs in progress in this process, and the
machine-wide lock that keeps other tierdeck processes off the same target.

Apart from the runner: the screens ask which runs are in progress without starting
one, and the rule (who may run where) is not how a run goes.
"""

from __future__ import annotations

import contextlib
import posixpath
import threading
from collections.abc import Iterator

from ...backends.host import Host
from ...backends.locks import LockHeld
from ...core.bench_models import BenchRefused, RefusalKind, RunRequest

_running: dict[str, RunRequest] = {}
_running_lock = threading.Lock()


def _key(path: str) -> str:
    return posixpath.normpath(path)


def running_request(target_path: str) -> RunRequest | None:
    """The run in progress on this target (in this process), if any."""
    with _running_lock:
        return _running.get(_key(target_path))


def running_requests() -> tuple[RunRequest, ...]:
    with _running_lock:
        return tuple(_running.values())


@contextlib.contextmanager
def claim(host: Host, request: RunRequest) -> Iterator[None]:
    """Hold the target for the whole run, or raise BenchRefused."""
    key = _key(request.target.path)
    with _running_lock:
        other = _running.get(key)
        if other is not None:
            raise BenchRefused(
                f"a benchmark is already running on {request.target.label} ({other.name}): "
                "one run per target at a time",
                kind=RefusalKind.BUSY,
            )
        _running[key] = request
    try:
        # Another tierdeck process (the CLI beside the TUI) takes the same lock.
        with host.exclusive(f"bench:{key}"):
            yield
    except LockHeld as exc:
        raise BenchRefused(
            "another tierdeck process is running a benchmark on this target: "
            "one run per target at a time",
            kind=RefusalKind.BUSY,
        ) from exc
    finally:
        with _running_lock:
            _running.pop(key, None)
