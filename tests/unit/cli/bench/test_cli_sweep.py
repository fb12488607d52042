"""``tierdeck bench sweep / sweeps / sweep-export`` with click's runner: real fio
(--parse-only, and tiny 1 MiB runs in a temporary folder), a throwaway history, and
the machine's inventory replaced by an empty one (the folder is a plain path)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from tierdeck.app.cli.bench.sweep import example_names, example_text
from tierdeck.app.history.store import ENV_DATA_DIR
from tierdeck.app.machine import inventory as inventory_module
from tierdeck.core.models import Inventory, ZfsInfo
from tierdeck.core.sweep.model import parse_sweep

from tests.unit.cli_support import run

INV = Inventory(hostname="t", disks=(), mounts=(), mergerfs=(), zfs=ZfsInfo(available=False),
                btrfs=(), md=())  # fmt: skip
TINY = """
schema = "tierdeck.sweep/1"
name = "tiny"
[base]
rw = "read"
bs = "64k"
size = "1m"
[axes]
numjobs = [1, 2]
iodepth = [1, 4]
"""


@pytest.fixture(autouse=True)
def quiet_machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_DATA_DIR, str(tmp_path / "data"))
    monkeypatch.setattr(inventory_module, "collect_inventory", lambda host: INV)


@pytest.fixture
def sweep_file(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.toml"
    path.write_text(TINY)
    (tmp_path / "target").mkdir()
    return path


def test_a_sweep_runs_every_cell_and_prints_the_matrix(tmp_path: Path, sweep_file: Path) -> None:
    target = tmp_path / "target"
    done = run("bench", "sweep", str(sweep_file), "--target", str(target))
    assert done.exit_code == 0, done.output
    lines = done.stdout.splitlines()
    assert lines[0] == "sweep #1: tiny" and lines[1].startswith("4 of 4 cells ok")
    assert lines[3].split() == ["numjobs", "\\", "iodepth", "1", "4"]
    assert [line.split()[0] for line in lines[4:6]] == ["1", "2"]
    assert all(float(v.replace(",", "")) > 0 for line in lines[4:6] for v in line.split()[1:])
    assert "saved as sweep #1" in done.stdout
    assert list(target.iterdir()) == []  # every test file removed

    exported = run("bench", "sweep-export", "1", "--format", "json")
    doc = json.loads(exported.stdout)
    assert doc["schema"] == "tierdeck.sweep-result/1" and doc["target"] == str(target)
    assert doc["axes"] == [{"name": "numjobs", "values": [1, 2]},
                           {"name": "iodepth", "values": [1, 4]}]  # fmt: skip
    assert [c["axes"] for c in doc["cells"]][1] == {"numjobs": 1, "iodepth": 4}
    assert {c["status"] for c in doc["cells"]} == {"ok"}
    assert set(doc["cells"][0]["summary"]) == {"read", "write", "trim"}
    assert doc["cells"][0]["summary"]["read"]["bw_bytes"] > 0
    rows = list(csv.DictReader(io.StringIO(run("bench", "sweep-export", "1", "--format",
                                               "csv").stdout)))  # fmt: skip
    assert [(r["numjobs"], r["iodepth"], r["direction"]) for r in rows] == [
        ("1", "1", "read"), ("1", "4", "read"), ("2", "1", "read"), ("2", "4", "read")]  # fmt: skip
    markdown = run("bench", "sweep-export", "1").stdout
    assert markdown.startswith("# Sweep #1: tiny") and "| numjobs \\ iodepth | 1 | 4 |" in markdown
    out = tmp_path / "s.md"
    assert run("bench", "sweep-export", "1", "-o", str(out)).exit_code == 0
    assert out.read_text() == markdown
    assert "#1  tiny" in run("bench", "sweeps").stdout


def test_json_is_one_object_and_history_runs_carry_the_tag(
    tmp_path: Path, sweep_file: Path
) -> None:
    done = run("bench", "sweep", str(sweep_file), "--target", str(tmp_path / "target"), "--json")
    assert done.exit_code == 0
    [line] = done.stdout.splitlines()
    doc = json.loads(line)
    assert doc["id"] == 1 and len(doc["cells"]) == 4
    listed = json.loads(run("history", "list", "--json", "--tag", "sweep:1").stdout)
    runs = listed if isinstance(listed, list) else listed.get("runs", [])
    assert sorted(r["id"] for r in runs) == sorted(c["run_id"] for c in doc["cells"])


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--example", "nope"], "no example 'nope'"),
        (["--example", "seed002-suite"], "placeholders"),
        ([], "refused: the sweep has no target"),
        (["--target", "/nonexistent/x"], "does not exist"),
        (["--resume", "7"], "no sweep #7"),
    ],
)
def test_refusals_exit_2_with_one_line(sweep_file: Path, args: list[str], words: str) -> None:
    file_args = [] if "--example" in args else [str(sweep_file)]
    done = run("bench", "sweep", *file_args, *args)
    assert done.exit_code == 2
    assert words in done.stderr


def test_a_bad_file_and_a_bad_option_exit_2(tmp_path: Path, sweep_file: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(TINY.replace("numjobs = [1, 2]", "numjobs = []"))
    done = run("bench", "sweep", str(bad), "--target", str(tmp_path / "target"))
    assert (done.exit_code, done.stderr.strip()) == (
        2,
        "tierdeck: sweep: axes.numjobs: must be a non-empty list",
    )
    typo = tmp_path / "typo.toml"
    typo.write_text(TINY.replace("iodepth", "io_depth_typo"))
    done = run("bench", "sweep", str(typo), "--target", str(tmp_path / "target"))
    assert done.exit_code == 2 and "io_depth_typo" in done.stderr


def test_dry_run_lists_the_cells_and_creates_nothing(tmp_path: Path, sweep_file: Path) -> None:
    done = run("bench", "sweep", str(sweep_file), "--target", str(tmp_path / "target"), "--dry-run")
    assert done.exit_code == 0
    assert done.stdout.splitlines()[0] == "tiny: 4 of 4 cells to run"
    assert "numjobs=2 iodepth=4" in done.stdout.splitlines()[4]
    assert "no sweeps in the history yet" in run("bench", "sweeps").stdout


def test_examples_parse_and_match_their_seeds() -> None:
    assert example_names() == ["compress-x-jobs-matrix", "suite-per-stack"]
    seed003 = parse_sweep(example_text("compress-x-jobs-matrix"))
    assert [(a.name, a.values) for a in seed003.axes] == [
        ("numjobs", tuple(range(1, 10))), ("buffer_compress_percentage", (0, 50, 100))]  # fmt: skip
    # seeds/003: write_test.fio, option for option (directory= is the target)
    assert dict(seed003.base) == {
        "rw": "write", "kb_base": "1024", "bs": "128k", "size": "2g", "runtime": "180",
        "iodepth": "1", "refill_buffers": None, "buffer_compress_chunk": "131072",
        "buffer_pattern": "0xdeadbeef", "end_fsync": None, "group_reporting": None,
    }  # fmt: skip
    seed002 = parse_sweep(example_text("suite-per-stack"))
    assert seed002.preset == "suite-seq1m-rand4k-qd64" and seed002.axes[0].name == "targets"
    # the former names still load, as scripts give them
    assert example_text("seed002-suite") == example_text("suite-per-stack")
    assert example_text("seed003-compress-matrix") == example_text("compress-x-jobs-matrix")


def test_several_targets_replace_the_examples_placeholders(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    done = run("bench", "sweep", "--example", "seed002-suite", "--target", str(a),
               "--target", str(b), "--runtime", "1", "--size", "1m", "--dry-run")  # fmt: skip
    assert done.exit_code == 0, done.stderr
    assert [line.split()[-1] for line in done.stdout.splitlines()[1:]] == [str(a), str(b)]
