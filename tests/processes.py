"""Looking for processes a test may have left behind."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Iterator
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


def interrupt(proc: subprocess.Popen[str], timeout: float = 30) -> tuple[str, str, float]:
    """Ctrl-C to a CLI run: what it printed, and how many seconds it took to end after
    the signal. One that does not end within ``timeout`` is killed (and the test fails
    on its exit status)."""
    asked = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    return out, err, time.monotonic() - asked


@contextlib.contextmanager
def cli_process(argv: list[str], env: dict[str, str]) -> Iterator[subprocess.Popen[str]]:
    """A CLI run in the background, its output in pipes; killed on leaving if it still
    runs (a test that failed half-way)."""
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)  # fmt: skip
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def fio_jobs_of(leader: int) -> list[int]:
    """fio's job processes: children of the leader, each in a session of its own (fio's
    jobs call setsid(), so they leave the leader's process group)."""
    jobs = []
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if entry.name.isdigit() and fields[1] == str(leader) and fields[3] == entry.name:
            jobs.append(int(entry.name))
    return jobs
