"""The SSH link's login answers and asyncssh's quicker import, without a server."""

from __future__ import annotations

import ctypes.util
import sys
from pathlib import Path
from typing import Any

import pytest
from tierdeck.backends.host.ssh import asyncssh_import
from tierdeck.backends.host.ssh.link import _Client
from tierdeck.backends.host.ssh.target import SshTarget


class _Link:
    """What ``_Client`` asks of its link: the target, and ``_ask`` (counted)."""

    def __init__(self) -> None:
        self.target = SshTarget.parse("admin@nas2")
        self.asked: list[str] = []

    def _ask(self, question: str, what: str) -> str | None:
        self.asked.append(question)
        return "typed"


def test_a_refused_password_is_not_sent_again_on_that_connection() -> None:
    link = _Link()
    client = _Client(link)  # type: ignore[arg-type]
    assert client.password_auth_requested() == "typed"
    # asked again by the server: the answer was refused; resending it would only count
    # failed logins on the host up to its MaxAuthTries
    assert client.password_auth_requested() is None
    assert link.asked == ["Password for admin@nas2: "]
    assert _Client(link).password_auth_requested() == "typed"  # a new connection asks


def test_keyboard_interactive_answers_each_question_once() -> None:
    link = _Link()
    client = _Client(link)  # type: ignore[arg-type]
    prompts: Any = [("Password: ", False), ("Code: ", True)]
    assert client.kbdint_challenge_received("", "", "", prompts) == ["typed", "typed"]
    assert client.kbdint_challenge_received("", "", "", [("Code: ", True)]) is None


def test_the_quick_finder_finds_what_ctypes_finds(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    ldconfig = getattr(ctypes.util, "_findSoname_ldconfig", None)
    if ldconfig is None:
        pytest.skip("not Linux's ctypes")
    find = asyncssh_import._quick_finder(ldconfig)
    for name in ("c", "m", "no-such-library-here"):
        assert find(name) == ctypes.util.find_library(name)
    # a library only LD_LIBRARY_PATH names, as the dynamic loader would find it
    (tmp_path / "libtierdecktest.so.3").write_bytes(b"\x7fELF")
    monkeypatch.setenv("LD_LIBRARY_PATH", f"/no/such/folder:{tmp_path}")
    assert find("tierdecktest") == str(tmp_path / "libtierdecktest.so.3")


def test_asyncssh_is_imported_with_ctypes_as_it_was() -> None:
    assert "asyncssh" in sys.modules
    assert ctypes.util.find_library.__module__ == "ctypes.util"  # put back after
