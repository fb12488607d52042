"""``tierdeck history import``: one line per file, refusals exit 2, nothing stored."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tierdeck.app.history import HistoryStore

from .cli_support import run

FIXTURES = Path(__file__).parent.parent / "fixtures" / "fio_import"
DEMO = Path(__file__).parent.parent.parent / "app" / "demo_runs"


def test_import_prints_one_line_per_file_and_stores_runs(data_dir: Path) -> None:
    json_file = FIXTURES / "fio333_seqwrite_group.json"
    text_file = DEMO / "raw-zfs-pool.txt"
    result = run("history", "import", str(json_file), str(text_file), "--tag", "old")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        f"imported {json_file} as run 1 (fio333_seqwrite_group.json)",
        f"imported {text_file} as run 2 (raw-zfs-pool.txt)",
    ]
    runs = HistoryStore(data_dir / "history.sqlite3").list(series=False)
    assert {r.name for r in runs} == {"fio333_seqwrite_group.json", "raw-zfs-pool.txt"}
    assert all(r.tags == ("old",) and r.imported is not None for r in runs)


def test_label_names_the_run(data_dir: Path) -> None:
    result = run("history", "import", str(DEMO / "slow-pool.txt"), "--label", "slow pool")
    assert result.exit_code == 0
    assert result.output.endswith("as run 1 (slow pool)\n")


def test_not_fio_output_is_refused_with_the_reason_and_nothing_stored(
    data_dir: Path, tmp_path: Path
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my NAS is fast\n")
    good = DEMO / "btrfs.txt"
    result = run("history", "import", str(notes), str(good))
    assert result.exit_code == 2
    assert f"tierdeck: {notes}: not imported: neither fio JSON" in result.stderr
    assert f"imported {good} as run 1" in result.stdout
    assert len(HistoryStore(data_dir / "history.sqlite3").list()) == 1


def test_the_same_file_twice_is_refused_naming_the_run(data_dir: Path, tmp_path: Path) -> None:
    first = run("history", "import", str(FIXTURES / "fio333_sigint.json"))
    assert first.exit_code == 0
    copy = tmp_path / "renamed.json"  # same bytes, another name
    shutil.copy(FIXTURES / "fio333_sigint.json", copy)
    again = run("history", "import", str(copy))
    assert again.exit_code == 2
    assert again.stderr.strip() == f"tierdeck: {copy}: not imported: already imported as run 1"


def test_missing_file_is_refused(data_dir: Path, tmp_path: Path) -> None:
    result = run("history", "import", str(tmp_path / "nope.json"))
    assert result.exit_code == 2
    assert "cannot read it: No such file or directory" in result.stderr


def test_label_given_twice_is_a_usage_error(data_dir: Path) -> None:
    result = run("history", "import", str(DEMO / "btrfs.txt"), "--label", "a", "--label", "b")
    assert result.exit_code == 2 and "--label given twice" in result.stderr


def test_imported_runs_are_marked_in_list_and_show(data_dir: Path) -> None:
    run("history", "import", str(DEMO / "btrfs-raid1-mergerfs.txt"))
    listing = run("history", "list")
    assert listing.stdout.splitlines()[1].split()[1] == "i"  # the mark column
    assert "i imported from a file" in listing.stderr
    shown = run("history", "show", "1").stdout
    assert "imported: btrfs-raid1-mergerfs.txt (fio-text)" in shown
    assert "only fio's 'Run status group' line" in shown
    as_json = json.loads(run("history", "show", "1", "--json").stdout)
    assert as_json["origin"] == "imported"


def test_help_names_the_formats(data_dir: Path) -> None:
    text = run("history", "import", "--help").output
    assert "json+" in text and "Run status group" in text


def test_a_failed_run_says_so_and_how_to_list_it(data_dir: Path) -> None:
    # fio 3.33's JSON of a real O_DIRECT open refused by ramfs: job error 22 (EINVAL)
    failed = Path(__file__).parent.parent / "fixtures" / "fio" / "fio333_odirect_ramfs.stdout"
    result = run("history", "import", str(failed))
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [  # still one line per file
        f"imported {failed} as run 1 (fio333_odirect_ramfs.stdout) (failed: fio error 22,"
        " Invalid argument; listed by `tierdeck history list --status failed`)"
    ]
    listed = run("history", "list", "--status", "failed", "--json")
    assert [r["id"] for r in json.loads(listed.stdout)] == [1]
