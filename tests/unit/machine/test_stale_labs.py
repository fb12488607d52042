"""Which paths belong to a test run's lab NAS, and which runs still live."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from tierdeck.backends.host import LiveHost

from tests.support.stale_labs import _run_alive, lab_of

RUN = "/tmp/pytest-of-root/pytest-612"


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (f"{RUN}/popen-gw0/lab0/nas/pool/cached", (f"{RUN}/popen-gw0/lab0/nas", RUN)),
        (f"{RUN}/lab3/nas/images/hdd0.img", (f"{RUN}/lab3/nas", RUN)),
        (f"{RUN}/lab0/nas", (f"{RUN}/lab0/nas", RUN)),
        (f"{RUN}/lab0/nasty/x", None),
        (f"{RUN}/popen-gw0/deeper/lab0/nas/x", None),
        ("/srv/lab0/nas/pool", None),
        ("/tmp/pytest-of-root/pytest-current/lab0/nas", None),
        ("", None),
    ],
)
def test_lab_paths(path: str, expected: tuple[str, str] | None) -> None:
    assert lab_of(path) == expected


def test_a_run_lives_while_its_lock_names_a_live_pid(tmp_path: Path) -> None:
    host = LiveHost()
    assert not _run_alive(host, str(tmp_path))  # no lock: the run ended
    (tmp_path / ".lock").write_text(str(os.getpid()))
    assert _run_alive(host, str(tmp_path))
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (tmp_path / ".lock").write_text(str(dead.pid))
    assert not _run_alive(host, str(tmp_path))
    (tmp_path / ".lock").write_text("garbage")
    assert not _run_alive(host, str(tmp_path))
