"""``tierdeck --help`` is printed by app/cli/launcher.py from app/cli/root_help.py without
importing click: that stored text must stay click's own, byte for byte, wherever the
launcher uses it, and the launcher must hand every other case to click.

After changing the root group's help, options or command summaries, rewrite the stored
text with ``.venv/bin/python tests/unit/cli/test_root_help.py --update`` and review its
diff."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
from tierdeck.app.cli import launcher, root_help
from tierdeck.app.cli.root import main

STORED = Path(root_help.__file__)


def clicks_help(prog: str) -> str:
    """What click prints for ``PROG --help`` at the terminal's width (COLUMNS)."""
    with click.Context(main, info_name=prog) as ctx:
        return main.get_help(ctx) + "\n"  # click.echo adds the newline


def stored_module_text() -> str:
    """root_help.py as it should read, from click's ``tierdeck --help`` (COLUMNS=80)."""
    width = root_help.WIDTH
    usage, _, body = clicks_help("tierdeck").partition("\n")
    prefix = "Usage: tierdeck "
    assert usage.startswith(prefix) and body.isascii()
    lines = "".join(f"    {json.dumps(line)}\n" for line in body.splitlines(keepends=True))
    return (
        '"""click\'s text for ``tierdeck --help`` (the group of root.py) at its widest, for\n'
        "launcher.py to print without importing click. Written by\n"
        "``.venv/bin/python tests/unit/cli/test_root_help.py --update``, whose tests fail\n"
        'when it is no longer click\'s own."""\n'
        "\n"
        f"WIDTH = {width}  # click's help is at most 78 columns wide (80 - 2)\n"
        f"USAGE_ARGS = {json.dumps(usage.removeprefix(prefix))}\n"
        f"BODY = (\n{lines})\n"
    )


def test_the_stored_text_is_clicks_own(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    assert STORED.read_text(encoding="utf-8") == stored_module_text(), (
        "the root help changed: run .venv/bin/python tests/unit/cli/test_root_help.py --update"
    )


@pytest.mark.parametrize("columns", ["80", "81", "120", "300"])
@pytest.mark.parametrize("prog", ["tierdeck", "python -m tierdeck", "python -m tierdeck.app.cli"])
def test_the_launcher_prints_clicks_text(
    monkeypatch: pytest.MonkeyPatch, columns: str, prog: str
) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    monkeypatch.setattr(launcher, "program_name", lambda: prog)
    assert launcher.root_help(["--help"]) == clicks_help(prog)


@pytest.mark.parametrize(
    "argv", [[], ["-h"], ["--help", "--help"], ["--demo", "--help"], ["history", "--help"]]
)
def test_other_command_lines_go_to_click(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    assert launcher.root_help(argv) is None


@pytest.mark.parametrize("columns", ["79", "60", "20"])
def test_a_narrower_terminal_goes_to_click(monkeypatch: pytest.MonkeyPatch, columns: str) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    assert launcher.root_help(["--help"]) is None


def test_a_long_program_name_and_completion_go_to_click(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setattr(launcher, "program_name", lambda: "x" * 60)  # the usage would wrap
    assert launcher.root_help(["--help"]) is None
    monkeypatch.setattr(launcher, "program_name", lambda: "tierdeck")
    monkeypatch.setenv("_TIERDECK_COMPLETE", "bash_source")
    assert launcher.root_help(["--help"]) is None


@pytest.mark.parametrize("env", [{}, {"COLUMNS": "132"}, {"COLUMNS": "0"}, {"COLUMNS": "x"}])
def test_the_width_is_shutils(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert launcher.columns() == shutil.get_terminal_size().columns


@pytest.mark.parametrize(
    ("start", "prog"),
    [
        (["-m", "tierdeck.app.cli"], "python -m tierdeck.app.cli"),
        (["-m", "tierdeck"], "python -m tierdeck"),
        (["-c", "from tierdeck.app.cli.launcher import run; run()"], "-c"),
    ],
)
def test_a_real_process_prints_clicks_text_without_click(
    monkeypatch: pytest.MonkeyPatch, start: list[str], prog: str
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}  # a pipe: 80
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *start, "--help"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    monkeypatch.setenv("COLUMNS", "80")
    assert done.stdout == clicks_help(prog)
    loaded = {line.rpartition("|")[2].strip() for line in done.stderr.splitlines()}
    assert "tierdeck.app.cli.launcher" in loaded and "click" not in loaded


def test_the_installed_script_is_the_launcher(monkeypatch: pytest.MonkeyPatch) -> None:
    script = Path(sys.executable).with_name("tierdeck")
    if not script.exists():
        pytest.skip("no tierdeck script beside this Python")
    assert "from tierdeck.app.cli.launcher import run" in script.read_text(encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    done = subprocess.run([script, "--help"], capture_output=True, text=True, env=env, check=True)
    monkeypatch.setenv("COLUMNS", "80")
    assert done.stdout == clicks_help("tierdeck")


if __name__ == "__main__" and sys.argv[1:] == ["--update"]:
    os.environ["COLUMNS"] = "80"
    STORED.write_text(stored_module_text(), encoding="utf-8")
    print(f"wrote {STORED}")


def test_the_version_line_is_clicks_and_imports_no_click() -> None:
    from click.testing import CliRunner

    clicks = CliRunner().invoke(main, ["--version"]).output
    script = ("import sys\nfrom tierdeck.app.cli import launcher\n"
              "sys.argv = ['tierdeck', '--version']\nlauncher.run()\n"
              "assert 'click' not in sys.modules, 'click imported'\n")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True)  # fmt: skip
    assert done.stdout == clicks and clicks.startswith("tierdeck, version ")
    assert launcher.version_line(["--version", "--help"]) is None  # click's to answer
