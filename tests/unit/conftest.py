"""Fixtures of the unit tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A history of the test's own (TIERDECK_DATA_DIR), never the user's."""
    folder = tmp_path / "data"
    monkeypatch.setenv("TIERDECK_DATA_DIR", str(folder))
    return folder
