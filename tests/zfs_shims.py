"""Put a recorded `zpool`/`zfs` scenario on PATH, so tests drive the real code path
(LiveHost -> sh -> executable) instead of a fake host.

    def test_x(monkeypatch):
        use_zfs_scenario(monkeypatch, "old-2.1")
        info = read_zfs(LiveHost())

Scenarios live in tests/shims/zfs/<name>/ (see tests/shims/zfs_replay.py).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

SHIMS = Path(__file__).resolve().parent / "shims" / "zfs"


def scenarios() -> list[str]:
    return sorted(p.name for p in SHIMS.iterdir() if (p / "replay.json").is_file())


def shim_path(scenario: str) -> str:
    """The directory holding the scenario's `zpool` and `zfs`: prepend it to PATH."""
    folder = SHIMS / scenario
    if not (folder / "replay.json").is_file():
        raise ValueError(f"no zfs shim scenario {scenario!r} (have: {', '.join(scenarios())})")
    return str(folder)


def use_zfs_scenario(monkeypatch: pytest.MonkeyPatch, scenario: str) -> None:
    """PATH = scenario dir + the old PATH; the replayer runs on this interpreter (a
    pyenv `python3` shim would add ~100 ms per command)."""
    monkeypatch.setenv("PATH", shim_path(scenario) + os.pathsep + os.environ.get("PATH", ""))
    monkeypatch.setenv("ZFS_REPLAY_PYTHON", sys.executable)


def use_path_without_zfs(monkeypatch: pytest.MonkeyPatch, empty_dir: Path) -> None:
    """A PATH on which neither `zpool` nor `zfs` exists."""
    monkeypatch.setenv("PATH", str(empty_dir))
