"""The mover's service starts tierdeck by absolute path: systemd does not search the
PATH of the shell that ran `layout apply`, so a bare name from a virtualenv never runs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tierdeck.app.layout import self_command
from tierdeck.app.layout.self_command import tierdeck_command

from ..cli.test_cli_layout_apply import layout_file  # noqa: F401  (a fixture)
from ..cli_support import run


def _exec_start(service: Path) -> list[str]:
    line = next(x for x in service.read_text().splitlines() if x.startswith("ExecStart="))
    return line.removeprefix("ExecStart=").split(" ")


def test_apply_outside_the_venv_path_writes_the_absolute_tierdeck(
    layout_file: Path,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # as sudo's secure_path: no venv bin/
    root = tmp_path / "root"
    result = run("layout", "apply", str(layout_file), "--root", str(root), "--yes")
    assert result.exit_code == 0, result.output
    service = root / "etc/systemd/system/tierdeck-mover-mnt-tiered.service"
    words = _exec_start(service)
    assert os.path.isabs(words[0]) and os.access(words[0], os.X_OK), words
    assert words[1:4] == ["mover", "run", "--layout"]
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed")
    # verify checks that ExecStart's program exists; its other complaints (the
    # mount units it needs are not installed here) do not fail it.
    check = subprocess.run(["systemd-analyze", "verify", str(service)], capture_output=True,
                           text=True, check=False)  # fmt: skip
    assert "is not executable" not in check.stderr, check.stderr
    assert check.returncode == 0, check.stderr


def test_the_script_beside_this_python_when_not_run_as_tierdeck(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "bin" / "tierdeck"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.setattr(sys, "argv", ["pytest"])
    monkeypatch.setattr(self_command.sys, "executable", str(tmp_path / "bin" / "python"))
    monkeypatch.setenv("PATH", "")
    assert tierdeck_command() == (str(script),)
    script.unlink()
    assert tierdeck_command() == (str(tmp_path / "bin" / "python"), "-m", "tierdeck")


def test_the_running_script_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = tmp_path / "tierdeck"
    script.write_text("")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["./tierdeck", "layout", "apply"])
    assert tierdeck_command() == (str(script),)
