"""Processes on this machine, for the benchmark runner: fio in a session of its own (so a
signal reaches every job it forks), signals to that whole group, and whether any of it
still runs. ``LiveHost`` exposes these; a remote host implements the same calls over
its own connection.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping, Sequence


async def spawn(
    argv: Sequence[str], env: Mapping[str, str] | None = None
) -> asyncio.subprocess.Process:
    """Start ``argv`` with stdout and stderr as pipes, stdin closed, in a new session
    (its pid is its process group), with the C locale. Raises OSError if it cannot."""
    return await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
        env={**os.environ, **(env or {}), "LC_ALL": "C"},
    )


def signal_group(pgid: int, sig: int) -> bool:
    """Signal a whole process group; False when nothing is left in it."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - the pgid was reused by someone else
        return False
    return True


def group_alive(pgid: int, proc_root: str = "/proc") -> bool:
    """Any live (non-zombie) process left in the group? Zombies no longer run."""
    try:
        entries = os.listdir(proc_root)
    except OSError:  # pragma: no cover - no procfs: trust killpg
        return signal_group(pgid, 0)
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"{proc_root}/{entry}/stat", encoding="ascii", errors="replace") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat.rpartition(")")[2].split()
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] != "Z":
            return True
    return False
