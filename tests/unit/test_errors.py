"""one_line: what a notification or a stored error shows of an exception."""

from __future__ import annotations

from tierdeck.core.errors import ToolMissing, one_line


def test_our_errors_speak_for_themselves_others_get_their_type() -> None:
    assert one_line(ToolMissing("zpool")) == "zpool: not installed (not found on PATH)"
    assert one_line(KeyError("x")) == "KeyError: 'x'"


def test_first_line_only_and_cut_to_the_limit() -> None:
    assert one_line(RuntimeError("first\nsecond")) == "RuntimeError: first"
    long = one_line(ValueError("y" * 500), limit=20)
    assert len(long) == 20 and long.endswith("…")
    assert one_line(ValueError("")) == "ValueError:"
