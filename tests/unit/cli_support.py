"""What the CLI tests share: the command, run in-process by click's runner."""

from __future__ import annotations

from click.testing import CliRunner, Result
from tierdeck.app.cli import main


def run(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)
