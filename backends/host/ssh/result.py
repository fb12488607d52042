"""What a remote command gave back, and the prompt type: shared by the connection
(``link.py``, asyncssh) and the kept connection's thin client (``kept.py``), which
must not import asyncssh."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

# Asks the user one question ("Password for root@nas2: ") and returns the answer, or
# None when there is no one to ask (a script): then that way of logging in is skipped.
Prompt = Callable[[str], "str | None"]


@dataclass(frozen=True)
class RemoteResult:
    returncode: int | None  # None: killed by a signal, or the connection was lost
    stdout: bytes
    stderr: bytes
    signal: str | None = None
