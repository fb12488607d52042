"""What every snapshot test shares."""

from __future__ import annotations

import pytest
from textual.widgets import Input, TextArea


@pytest.fixture(autouse=True)
def _steady_cursor(monkeypatch: pytest.MonkeyPatch) -> None:
    """Text cursors that never blink. The cursor is shown after a key or a focus and
    hidden half a second later: on a busy machine the screenshot can come after that
    half second, and the same screen would then be drawn without its cursor."""
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)
    monkeypatch.setattr(TextArea, "_toggle_cursor_blink_visible", lambda self: None)
