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


def test_a_system_error_is_the_system_s_words_and_the_file() -> None:
    missing = FileNotFoundError(2, "No such file or directory", "/root/tierdeck-layout.toml")
    assert one_line(missing) == "/root/tierdeck-layout.toml: No such file or directory"
    assert one_line(PermissionError(13, "Permission denied")) == "Permission denied"
    assert one_line(OSError("no errno here")) == "OSError: no errno here"
