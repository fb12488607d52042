"""``tierdeck mover run`` without click (app/cli/mover_run.py, chosen by launcher.py):
only a command line click would read to the same values is read without it, and then
the run says and exits exactly what click's way says and exits."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from tierdeck.app.cli.mover_run import RunArgs, plain_run_args
from tierdeck.app.mover.history import MoverHistory

from tests.unit.cli_support import run
from tests.unit.mover.test_mover_run import Tiers, put, tiers

from ...paths import REPO

__all__ = ["tiers"]  # the fixture, imported for pytest

LAYOUT = "/etc/tierdeck/media.toml"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--layout", LAYOUT], RunArgs(Path(LAYOUT))),
        ([f"--layout={LAYOUT}", "--min-age-days=0"], RunArgs(Path(LAYOUT), 0)),
        (
            ["--min-age-days", "30", "--layout", LAYOUT, "--json"],
            RunArgs(Path(LAYOUT), 30, as_json=True),
        ),  # fmt: skip
        (
            ["--dry-run", "--verify", "--layout", LAYOUT],
            RunArgs(Path(LAYOUT), dry_run=True, verify=True),
        ),  # fmt: skip
    ],
)
def test_the_timers_command_lines_are_read_without_click(
    args: list[str], expected: RunArgs
) -> None:
    assert plain_run_args(args) == expected


@pytest.mark.parametrize(
    "args",
    [
        [],  # no --layout: click says it is missing
        ["--help"],
        ["--layout", LAYOUT, "--help"],
        ["--layout"],
        ["--layout", ""],
        ["--layout", "--json"],  # click would take "--json" as the file
        ["--layout", LAYOUT, "--layout", LAYOUT],  # given twice: refused by click
        ["--layout", LAYOUT, "--json", "--json"],
        ["--layout", LAYOUT, "--min-age-days", "-1"],
        ["--layout", LAYOUT, "--min-age-days", "+3"],
        ["--layout", LAYOUT, "--min-age-days", "٣"],  # a digit to str.isdigit, not to us
        ["--layout", LAYOUT, "--host", "nas"],
        ["--layout", LAYOUT, "--", "x"],
        ["--layout", LAYOUT, "extra"],
        ["--layout", "/"],  # a folder: click refuses it
    ],
)
def test_every_other_command_line_goes_to_click(args: list[str]) -> None:
    assert plain_run_args(args) is None


@dataclass(frozen=True)
class Launched:
    returncode: int
    stdout: str
    stderr: str  # the command's own, without -X importtime's lines
    loaded_click: bool


def _launched(*args: str) -> Launched:
    """``python -m tierdeck.app.cli ARGS`` as the timer starts it, and whether it loaded
    click (from -X importtime: a plain run ends without Python's teardown, so nothing
    after it in that process could say)."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "tierdeck.app.cli", *args],
                          capture_output=True, text=True, cwd=REPO, check=False)  # fmt: skip
    lines = done.stderr.splitlines(keepends=True)
    timed = [line for line in lines if line.startswith("import time:")]
    loaded = {line.rpartition("|")[2].strip() for line in timed}
    own = "".join(line for line in lines if not line.startswith("import time:"))
    return Launched(done.returncode, done.stdout, own, "click" in loaded)


def _without_times(doc: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in doc.items() if k not in ("started", "finished", "duration_s")}


def test_a_plain_run_says_what_clicks_run_says(tiers: Tiers) -> None:
    put(tiers, "tv/old.mkv", 4096)
    args = ["mover", "run", "--layout", str(tiers.layout_path), "--dry-run", "--json"]
    launched = _launched(*args)
    assert launched.returncode == 0 and launched.stderr == "" and not launched.loaded_click
    clicks = run(*args)
    assert clicks.exit_code == 0
    assert _without_times(json.loads(launched.stdout)) == _without_times(json.loads(clicks.stdout))
    moved = _launched("mover", "run", "--layout", str(tiers.layout_path))
    assert moved.returncode == 0 and "moved 1 file, 4.0K" in moved.stdout, moved.stdout


def test_a_refusal_is_the_same_line_and_status(tmp_path: Path, data_dir: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("not = [toml")
    for layout in (tmp_path / "none.toml", bad):
        launched = _launched("mover", "run", "--layout", str(layout))
        clicks = run("mover", "run", "--layout", str(layout))
        assert launched.returncode == clicks.exit_code == 2
        assert launched.stderr == clicks.stderr and not launched.loaded_click


def test_a_command_line_click_must_read_still_works(tmp_path: Path, data_dir: Path) -> None:
    launched = _launched("mover", "run", "--layout", str(tmp_path), "--json")
    assert launched.returncode == 2 and launched.loaded_click
    assert "is a directory" in launched.stderr


def test_a_plain_run_ends_without_pythons_teardown_and_keeps_its_record(tiers: Tiers) -> None:
    """The timer's run skips Python's teardown (atexit handlers, modules freed one by
    one): its output is out, its status kept, and its history record is written."""
    put(tiers, "tv/old.mkv", 4096)
    code = ("import atexit, runpy, sys\n"
            "atexit.register(lambda: print('torn down', file=sys.stderr))\n"
            "sys.argv = ['tierdeck', *sys.argv[1:]]\n"
            "runpy.run_module('tierdeck.app.cli', run_name='__main__')\n")  # fmt: skip

    def launched(layout: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", code, "mover", "run", "--layout", str(layout)],
                              capture_output=True, text=True, cwd=REPO, check=False)  # fmt: skip

    moved = launched(tiers.layout_path)
    assert moved.returncode == 0 and "moved 1 file, 4.0K" in moved.stdout, moved.stderr
    assert "torn down" not in moved.stderr
    (record,) = MoverHistory().list()
    assert record.files_moved == 1
    refused = launched(tiers.layout_path.with_name("none.toml"))
    assert refused.returncode == 2 and "torn down" not in refused.stderr
    assert "none.toml" in refused.stderr
