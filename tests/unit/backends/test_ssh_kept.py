"""The keeper's thin client (backends/host/ssh/kept.py) against a socket that answers
as a keeper would, or goes away: what is run again on the caller's own connection and
what is never sent twice."""

from __future__ import annotations

import json
import shutil
import socket
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from tierdeck.backends.host.ssh.kept import KeptLink
from tierdeck.core.errors import HostUnreachable

Answer = Callable[[socket.socket], None]


@pytest.fixture
def folder() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="tdk-"))  # short: a unix socket's path is
    yield path
    shutil.rmtree(path)


def serve_once(path: Path, answer: Answer) -> threading.Thread:
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen(1)

    def run() -> None:
        with server:
            conn, _ = server.accept()
            with conn:
                conn.makefile("rb").readline()  # the request's header
                answer(conn)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def ok(conn: socket.socket) -> None:
    header = {"state": "ok", "status": 3, "signal": None, "out": 2, "err": 1}
    conn.sendall(json.dumps(header).encode() + b"\nhie")


def down(conn: socket.socket) -> None:
    conn.sendall(b'{"state": "down"}\n')


def lost(conn: socket.socket) -> None:
    conn.sendall(b'{"state": "lost", "reason": "connection lost: reset"}\n')


def gone(conn: socket.socket) -> None:
    pass  # closed with no answer: the keeper died while running it


def test_an_answer_is_the_remote_result(folder: Path) -> None:
    serve_once(folder / "k.sock", ok)
    result = KeptLink("nas", folder / "k.sock").shell("true", timeout=5)
    assert result is not None and (result.returncode, result.stdout, result.stderr) == (
        3, b"hi", b"e")  # fmt: skip


def test_no_keeper_or_a_down_one_means_connect_yourself(folder: Path) -> None:
    assert KeptLink("nas", folder / "none.sock").shell("true") is None
    serve_once(folder / "k.sock", down)
    assert KeptLink("nas", folder / "k.sock").shell("true", again_safe=False) is None


@pytest.mark.parametrize("answer", [lost, gone])
def test_a_read_lost_midway_is_read_again_a_command_is_not_run_twice(
    folder: Path, answer: Answer
) -> None:
    serve_once(folder / "read.sock", answer)
    assert KeptLink("nas", folder / "read.sock").shell("cat f", again_safe=True) is None
    serve_once(folder / "run.sock", answer)
    with pytest.raises(HostUnreachable, match="kept connection was lost"):
        KeptLink("nas", folder / "run.sock").shell("zpool scrub tank", again_safe=False)
