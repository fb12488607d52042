"""Processes on this machine, for the benchmark runner: fio in a session of its own, signals
to everything it started, and whether any of it still runs. ``LiveHost`` exposes these; a
remote host implements the same calls over its own connection.

fio's job processes each call setsid(), so a signal to the leader's process group does
not reach them, and a job outlives a leader killed before it could stop its jobs (seen:
Ctrl-C in fio's first second). So every process started here carries the leader's pid in
its environment (``GROUP_MARK``), which its jobs inherit: "the group" is the leader's
process group and every process with that mark, found through /proc even after the
leader is gone and its jobs were re-parented.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
from collections.abc import Iterator, Mapping, Sequence

GROUP_MARK = "TIERDECK_GROUP"
# The leader marks itself with its own pid, then becomes the command (same pid).
_MARKING_SHELL = ("/bin/sh", "-c", f'{GROUP_MARK}=$$; export {GROUP_MARK}; exec "$@"', "sh")


async def spawn(
    argv: Sequence[str], env: Mapping[str, str] | None = None
) -> asyncio.subprocess.Process:
    """Start ``argv`` with stdout and stderr as pipes, stdin closed, in a new session
    (its pid is its process group), marked as its own group, with the C locale.
    Raises OSError if it cannot."""
    environment = {**os.environ, **(env or {}), "LC_ALL": "C"}
    program = _program(argv[0], environment.get("PATH", os.defpath))
    return await asyncio.create_subprocess_exec(
        *_MARKING_SHELL,
        program,
        *argv[1:],
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
        env=environment,
    )


def _program(name: str, search_path: str) -> str:
    """The executable exec would run, looked up here so that a missing one is the same
    OSError as without the marking shell (not the shell's exit status 127)."""
    candidates = (
        [name]
        if "/" in name
        else [os.path.join(d or ".", name) for d in search_path.split(os.pathsep)]
    )
    for path in candidates:
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), name)


def _running(stat: str) -> tuple[int, bool] | None:
    """(process group, not a zombie) from a /proc/PID/stat line."""
    fields = stat.rpartition(")")[2].split()
    if len(fields) < 3 or not fields[2].isdigit():
        return None
    return int(fields[2]), fields[0] != "Z"


def _members(pgid: int, proc_root: str) -> Iterator[int]:
    """Live processes of the leader's process group or carrying its mark."""
    mark = f"{GROUP_MARK}={pgid}".encode()
    for entry in os.listdir(proc_root):
        if not entry.isdigit():
            continue
        try:
            with open(f"{proc_root}/{entry}/stat", encoding="ascii", errors="replace") as fh:
                state = _running(fh.read())
            if state is None or not state[1]:
                continue  # zombies no longer run
            if state[0] == pgid:
                yield int(entry)
                continue
            with open(f"{proc_root}/{entry}/environ", "rb") as fh:
                if mark in fh.read().split(b"\0"):
                    yield int(entry)
        except OSError:
            continue  # gone meanwhile, or another user's


def signal_group(pgid: int, sig: int, proc_root: str = "/proc") -> bool:
    """Signal the whole group (see the module's note); False when nothing is left."""
    signalled = False
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)
        signalled = True
    with contextlib.suppress(OSError):  # no procfs: the process group is all we reach
        for pid in _members(pgid, proc_root):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
                signalled = True
    return signalled


def group_alive(pgid: int, proc_root: str = "/proc") -> bool:
    """Any live (non-zombie) process left in the group?"""
    try:
        return next(_members(pgid, proc_root), None) is not None
    except OSError:  # pragma: no cover - no procfs: trust killpg
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, 0)
            return True
        return False
