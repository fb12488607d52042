"""``tierdeck fleet --json`` on a fleet of three against a real OpenSSH server: the lab's
sshd under its alias "nas", the same server under a second alias, and a host that
accepts connections and never speaks. Two answer with this machine's pools (the lab
NAS), the third is written down with its error at the deadline, and the command ends
in bounded time: the silent host never holds the others."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.integration

TIMEOUT = 5.0


def test_two_hosts_answer_and_a_silent_one_is_its_error(
    ssh_lab: Any, lab_nas: Path, _own_config: Path
) -> None:
    ssh_lab.write_client_config(
        f"Host nas2\n  HostName 127.0.0.1\n  Port {ssh_lab.port}\n  User root\n"
        f"  IdentityFile {ssh_lab.user_key}\n  IdentitiesOnly yes\n"
    )
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        (_own_config / "hosts.toml").write_text(
            '[[host]]\nname = "nas"\nssh = "nas"\n\n'
            '[[host]]\nname = "nas-again"\nssh = "nas2"\ntags = ["same"]\n\n'
            f'[[host]]\nname = "mute"\nssh = "root@127.0.0.1:{port}"\n'
        )
        started = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-m", "tierdeck.app.cli", "fleet", "--json",
             "--timeout", str(TIMEOUT)],
            capture_output=True, text=True, timeout=120, env=dict(os.environ),
        )  # fmt: skip
        took = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr
    document = json.loads(proc.stdout)
    assert document["schema"] == "tierdeck.fleet/1"
    nas, again, mute = document["hosts"]
    for host in (nas, again):
        assert host["reachable"] and host["error"] is None, host
        assert host["hostname"] == os.uname().nodename
        pools = {(p["kind"], p["name"]) for p in host["pools"]}
        assert ("mergerfs", str(lab_nas / "pool" / "slow")) in pools, pools
        assert any(kind == "btrfs" for kind, _ in pools)
        assert isinstance(host["problems"], list)
    assert [p["name"] for p in nas["pools"]] == [p["name"] for p in again["pools"]]
    assert not mute["reachable"] and mute["error"] == f"no answer within {TIMEOUT:g} s"
    assert mute["problems"] == [] and mute["pools"] == []
    # The deadline, the interpreter's start and the answers' JSON: never the sum of
    # the hosts' waits, never a silent host's own timeouts (its thread is a daemon).
    assert took < TIMEOUT + 20, took
