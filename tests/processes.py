"""Looking for processes a test may have left behind."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from pathlib import Path


def fio_processes_using(path: Path) -> list[int]:
    """pids of fio processes whose command line mentions ``path`` (a test's own fresh
    directory, so only that test's fio)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argv and argv[0].endswith(b"fio") and str(path).encode() in b" ".join(argv):
            found.append(int(entry.name))
    return found


def group_commands(pgid: int) -> list[str]:
    """The command names (``comm``) of the live processes in process group ``pgid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        state, _ppid, pgrp = stat.rpartition(")")[2].split()[:3]
        if int(pgrp) == pgid and state != "Z":
            found.append(stat[stat.index("(") + 1 : stat.rindex(")")])
    return found


def stop_cli_and_fio(proc: subprocess.Popen[str], directory: Path) -> None:
    """Whatever a test did: the CLI (started in a session of its own) and any fio
    using ``directory`` are gone afterwards."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    for pid in fio_processes_using(directory):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
