"""Put a recorded `smartctl` scenario on PATH, so tests drive the real code path
(LiveHost -> sh -> executable), as tests/zfs_shims.py does for `zpool`/`zfs`.

    def test_x(monkeypatch, tmp_path):
        log = use_smart_scenario(monkeypatch, "mixed", tmp_path)
        report = collect_health(LiveHost())
        calls = shim_calls(log)   # every call's arguments

Scenarios live in tests/shims/smart/<name>/ (see tests/shims/smartctl_replay.py).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

SHIMS = Path(__file__).resolve().parent / "shims" / "smart"


def use_smart_scenario(monkeypatch: pytest.MonkeyPatch, scenario: str, tmp_path: Path) -> Path:
    """PATH = the scenario's folder + the old PATH; returns the file the calls go to."""
    folder = SHIMS / scenario
    if not (folder / "replay.json").is_file():
        raise ValueError(f"no smartctl shim scenario {scenario!r}")
    log = tmp_path / "smartctl-calls.jsonl"
    monkeypatch.setenv("PATH", str(folder) + os.pathsep + os.environ.get("PATH", ""))
    monkeypatch.setenv("SMARTCTL_REPLAY_PYTHON", sys.executable)
    monkeypatch.setenv("SMARTCTL_SHIM_LOG", str(log))
    return log


def shim_calls(log: Path) -> list[list[str]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
