"""``tierdeck --host NAME health`` and ``check`` over a real sshd on the loopback that
serves this very machine, with this machine's real smartctl: the same disks, states and
reasons as without ``--host``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.integration

CLI = [sys.executable, "-m", "tierdeck.app.cli"]


def tierdeck(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TIERDECK_DATA_DIR": str(data_dir)}
    env.pop("SSH_AUTH_SOCK", None)
    return subprocess.run([*CLI, *args], env=env, capture_output=True, text=True, timeout=180,
                          stdin=subprocess.DEVNULL)  # fmt: skip


def _disks(stdout: str) -> list[tuple[str, str, list[str]]]:
    doc = json.loads(stdout)
    assert doc["schema"] == "tierdeck.health/1"
    return [(d["name"], d["state"], d["reasons"]) for d in doc["disks"]]


def test_health_over_ssh_is_the_local_one(ssh_lab: Any, tmp_path: Path) -> None:
    local = tierdeck(tmp_path, "health", "--json")
    remote = tierdeck(tmp_path, "--host", ssh_lab.alias, "health", "--json")
    assert local.returncode == 0, local.stderr
    assert remote.returncode == 0, remote.stderr
    assert _disks(remote.stdout) == _disks(local.stdout)
    # a VM's virtio disks pass no SMART: never "ok", and smartctl's own reason is shown
    for name, state, reasons in _disks(local.stdout):
        if name.startswith("vd"):
            assert state == "unknown" and reasons, (name, state, reasons)


def test_check_over_ssh_exits_as_the_local_one(ssh_lab: Any, tmp_path: Path) -> None:
    local = tierdeck(tmp_path, "check")
    remote = tierdeck(tmp_path, "--host", ssh_lab.alias, "check")
    assert remote.returncode == local.returncode in (0, 1, 2, 3), remote.stderr
    assert remote.stdout.split(" - ")[0] == local.stdout.split(" - ")[0]


def test_240_answers_come_back_framed_in_one_request(ssh_lab: Any) -> None:
    from tierdeck.backends.host.ssh import SshHost
    from tierdeck.backends.smart.collect import read_devices
    from tierdeck.backends.smart.scan import SmartTarget

    # devices that do not exist: the real smartctl answers each at once with its reason
    targets = [SmartTarget(f"x{i}", f"/dev/tierdeck-missing-{i}", "sat") for i in range(240)]
    host = SshHost(ssh_lab.alias)
    try:
        answers = read_devices(host, targets)
    finally:
        host.close()
    assert [a.target for a in answers] == targets
    for answer in answers:
        assert answer.document is not None, answer.failure
        assert answer.document.exit_status == 2  # could not open it
        assert any(answer.target.device in m for m in answer.document.messages), answer
