"""``bench run --clients`` refuses what it cannot do before it connects to anything."""

from __future__ import annotations

import pytest

from tests.unit.cli_support import run

PRESET = "nas-seqwrite-1m-qd8x8"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--target", "/x", "--raw"], "--raw and --drop-caches are not for it"),
        (["--target", "/x", "--drop-caches"], "--raw and --drop-caches are not for it"),
        (["--target", "a:/x"], "no path for b"),
        (["--target", "relative"], "HOST:PATH for each host"),
        (["--target", "/x", "--clients", "c"], "--clients given twice"),
    ],
)
def test_refused_before_connecting(args: list[str], said: str) -> None:
    result = run("bench", "run", "--clients", "a,b", "--preset", PRESET, *args)
    assert result.exit_code == 2
    assert said in result.stderr


def test_with_host_the_clients_are_refused() -> None:
    result = run("--host", "nas", "bench", "run", "--clients", "a", "--preset", PRESET,
                 "--target", "/x")  # fmt: skip
    assert result.exit_code == 2
    assert "leave out --host" in result.stderr


def test_without_clients_the_target_is_still_given_once() -> None:
    result = run("bench", "run", "--preset", PRESET, "--target", "/x", "--target", "/y")
    assert result.exit_code == 2
    assert "--target given twice (/x, /y): give it once" in result.stderr
