"""tierdeck as a real process behind a closed pipe and on a real 80-column terminal.

A reader that goes away (``tierdeck ... | head``) must end every command quietly with
status 141, as the shell reports for a writer killed by SIGPIPE; mocks cannot show
what Python and click do with EPIPE at exit, so these run the CLI as a subprocess. The
pipe's reading end is closed before the process starts, so the first write fails every
time (no race with the reader). ``bench run`` behind a closed pipe needs fio and is in
tests/integration/test_cli_bench.py.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time
from dataclasses import replace
from pathlib import Path

import pytest
from tierdeck.app.history.store import HistoryStore
from tierdeck.core.bench_models import FileLayout, RunStatus

from tests.unit.history.test_history import recorded_result

LONG_TARGET = "/srv/storage/pools/tiered-media-pool/benchmarks/2025"
LONG_NAME = "seed000-seqwrite on mergerfs /srv/storage/pools/tiered-media-pool (nightly)"


def cli_env(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    return {**env, "TIERDECK_DATA_DIR": str(data_dir)}


def run_with_stdout_closed(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    read_end, write_end = os.pipe()
    os.close(read_end)  # nobody will ever read: the first write fails with EPIPE
    try:
        return subprocess.run(
            [sys.executable, "-m", "tierdeck.app.cli", *args],
            stdout=write_end,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            env=cli_env(data_dir),
            text=True,
            timeout=120,
        )
    finally:
        os.close(write_end)


@pytest.fixture
def history_dir(tmp_path: Path) -> Path:
    """A history with a long name and target, a mixed suite and a run stored by 0.1."""
    data_dir = tmp_path / "data"
    store = HistoryStore(data_dir / "history.sqlite3")
    base = recorded_result()
    target = replace(base.target, path=LONG_TARGET)
    store.save(replace(base, name=LONG_NAME, target=target, file_layout=FileLayout.ONE_PER_JOB))
    store.save(replace(base, name="cancelled one", status=RunStatus.CANCELLED, tags=()))
    for i in range(3):
        store.save(replace(base, name=f"run {i}", started_at=base.started_at + i))
    return data_dir


@pytest.mark.parametrize(
    "args",
    [
        ["inventory", "--json"],  # the command of the issue
        ["inventory", "--demo"],
        ["--help"],
        ["bench", "run", "--help"],
        ["bench", "presets"],
        ["bench", "presets", "--json"],
        ["bench", "sweep", "--help"],
        ["bench", "sweeps"],
        ["bench", "ladder", "--help"],
        ["history", "list"],
        ["history", "list", "--json"],
        ["history", "show", "1", "--series"],
        ["history", "tag", "2", "x"],  # a one-line answer, flushed only at exit
        ["compare", "3", "4"],  # rich's table
        ["compare", "3", "4", "--format", "markdown"],
        ["history", "export", "3", "4", "--output", "-"],
        ["history", "export", "3", "--format", "html", "--output", "-"],
        ["fleet"],  # no hosts.toml: the line that says how to add one
        ["fleet", "--json"],
    ],
    ids=" ".join,
)
def test_a_closed_stdout_ends_quietly_with_141(history_dir: Path, args: list[str]) -> None:
    proc = run_with_stdout_closed(history_dir, *args)
    assert proc.returncode == 141, proc.stderr
    # not a word: no traceback, no "Exception ignored ... BrokenPipeError", no legend
    assert proc.stderr == ""


def test_a_closed_stdout_leaves_the_work_done(history_dir: Path) -> None:
    # tag changes the store before it answers: the change stays when the answer is lost
    assert run_with_stdout_closed(history_dir, "history", "tag", "2", "kept").returncode == 141
    run2 = HistoryStore(history_dir / "history.sqlite3").get(2)
    assert run2 is not None and "kept" in run2.tags


def test_other_exit_statuses_are_kept_when_stdout_is_fine(history_dir: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "tierdeck.app.cli", "history", "show", "999"],
        capture_output=True,
        text=True,
        env=cli_env(history_dir),
        timeout=60,
    )
    assert proc.returncode == 1 and "no run #999" in proc.stderr


def test_main_help_documents_141() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "tierdeck.app.cli", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0
    assert "141" in proc.stdout and "SIGPIPE" in proc.stdout


# ------------------------------------------------------------------ a real terminal


def run_on_terminal(
    data_dir: Path, *args: str, columns: int = 80, timeout: float = 60
) -> tuple[int, list[str], str]:
    """Run the CLI with stdout on a pseudo-terminal ``columns`` wide; its exit status,
    its stdout lines and its stderr."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    proc = subprocess.Popen(
        [sys.executable, "-m", "tierdeck.app.cli", *args],
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=subprocess.PIPE,
        env=cli_env(data_dir),
    )
    os.close(slave)
    output = b""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: every writer of the terminal has closed it
                break
            if not chunk:
                break
            output += chunk
        assert proc.stderr is not None
        stderr = proc.stderr.read().decode()
        status = proc.wait(timeout=max(deadline - time.monotonic(), 1))
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    # the terminal turns "\n" into "\r\n"
    return status, output.decode().replace("\r\n", "\n").splitlines(), stderr


def test_history_list_fits_a_real_80_column_terminal(history_dir: Path) -> None:
    status, lines, stderr = run_on_terminal(history_dir, "history", "list", "--status", "all")
    assert status == 0, stderr
    assert len(lines) == 6, lines  # header + 5 runs: nothing wrapped, nothing lost
    assert max(len(line) for line in lines) <= 80, "\n".join(lines)
    old = next(line for line in lines if line.split()[:2] == ["1", "*"])
    assert "…" in old  # the long name and target were cut to fit
    assert "stored before 0.2" in stderr


def test_history_list_in_a_pipe_keeps_the_full_text(history_dir: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "tierdeck.app.cli", "history", "list"],
        capture_output=True,
        text=True,
        env={**cli_env(history_dir), "COLUMNS": "80"},
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert LONG_NAME in proc.stdout and LONG_TARGET in proc.stdout and "…" not in proc.stdout


def test_bench_presets_fit_a_real_80_column_terminal(tmp_path: Path) -> None:
    status, lines, stderr = run_on_terminal(tmp_path, "bench", "presets")
    assert status == 0, stderr
    assert max(len(line) for line in lines) <= 80, "\n".join(lines)
    # the long KDiskMark source is wrapped at spaces, never inside the URL
    assert any(line.endswith("src/benchmark.cpp") and "https://" in line for line in lines)
