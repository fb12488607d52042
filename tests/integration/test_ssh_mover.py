"""The mover on a remote host is that host's own tierdeck, run over SSH with its
output here: files move on the machine, never one by one over the link."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from tierdeck.app.layout.files import save_layout

from tests.integration.test_mover_lab import DAY, MIB, Lab, assert_once_and_whole, put
from tests.integration.test_mover_lab import lab as lab  # noqa: F401 - the fixture

pytestmark = pytest.mark.integration


def test_mover_run_with_host_moves_on_the_host_and_streams_its_report(
    ssh_lab: Any,
    lab: Lab,
    tmp_path: Path,  # noqa: F811 - the fixture
) -> None:
    now = time.time()
    old = {f"old/{i}": put(lab, f"old/{i}", MIB, now - 40 * DAY) for i in range(3)}
    save_layout(lab.layout_path, lab.layout)
    env = {k: v for k, v in os.environ.items() if k != "SSH_AUTH_SOCK"}
    proc = subprocess.run(
        [sys.executable, "-m", "tierdeck.app.cli", "--host", ssh_lab.alias, "mover", "run",
         "--layout", str(lab.layout_path), "--json"],
        env=env, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["ok"] is True
    assert_once_and_whole(lab, old)
    for rel in old:
        assert not (lab.cache / rel).exists()
    # the host's own mover history (its data folder), not this machine's
    assert not (tmp_path / "data").exists() or not list((tmp_path / "data").iterdir())


def test_a_host_without_tierdeck_says_how_to_install_it(
    ssh_lab: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.support.sshd import SshLab

    # a second "NAS" whose sessions have no tierdeck on their PATH
    bare = SshLab.start(tmp_path / "bare", alias="bare",
                        session_env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"})  # fmt: skip
    try:
        monkeypatch.setenv("HOME", str(bare.home))
        env = {k: v for k, v in os.environ.items() if k != "SSH_AUTH_SOCK"}
        proc = subprocess.run(
            [sys.executable, "-m", "tierdeck.app.cli", "--host", "bare", "mover", "run",
             "--layout", "/etc/tierdeck/media.toml"],
            env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        assert proc.returncode == 1
        assert "tierdeck is not installed there" in proc.stderr
        assert "scripts/setup.sh" in proc.stderr
    finally:
        bare.stop()


def test_the_lab_with_host_is_that_machines_lab(
    ssh_lab: Any, lab_nas: Path, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "SSH_AUTH_SOCK"}

    def status(*host: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "tierdeck.app.cli", *host, "lab", "status", "--dir",
             str(lab_nas), "--json"],
            env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
        )  # fmt: skip

    here, there = status(), status("--host", ssh_lab.alias)
    assert there.returncode == 0, there.stderr
    assert json.loads(here.stdout) is not None  # the lab is up: there is something to say
    assert json.loads(there.stdout) == json.loads(here.stdout)
