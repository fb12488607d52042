"""``tierdeck history import``: one line per file, refusals exit 2, nothing stored."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tierdeck.app.history.store import HistoryStore

from tests.support.fio_notes import LEFT_OUT, notes_leaving_options_out, notes_with_a_failed_run

from ....paths import DEMO_RUNS
from ....paths import FIXTURES as ALL_FIXTURES
from ...cli_support import run

FIXTURES = ALL_FIXTURES / "fio_import"
DEMO = DEMO_RUNS


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


def test_a_notes_file_of_two_fio_runs_is_stored_as_two_runs(data_dir: Path) -> None:
    notes = FIXTURES / "fio31_dyu_write_read_notes.txt"
    result = run("history", "import", str(notes))
    assert result.exit_code == 0, result.output
    assert result.output == (
        f"imported {notes} as runs 1, 2"
        " (fio31_dyu_write_read_notes.txt (1 of 2); fio31_dyu_write_read_notes.txt (2 of 2))\n"
    )
    store = HistoryStore(data_dir / "history.sqlite3")
    runs = {r.id: r for r in store.list(series=False)}
    assert set(runs[1].summary) == {"write"} and set(runs[2].summary) == {"read"}
    again = run("history", "import", str(notes))
    assert again.exit_code == 2 and "already imported as run 1" in again.stderr
    assert len(store.list()) == 2


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
    flat = " ".join(text.split())
    assert 'text output as pasted in notes and forums, of fio 3.x and 2.x ("read : io=' in flat
    assert '"imported FILE as runs N, M (name; name)" for a file of several fio runs' in flat


def test_a_failed_run_says_so_and_how_to_list_it(data_dir: Path) -> None:
    # fio 3.33's JSON of a real O_DIRECT open refused by ramfs: job error 22 (EINVAL)
    failed = ALL_FIXTURES / "fio" / "fio333_odirect_ramfs.stdout"
    result = run("history", "import", str(failed))
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [  # still one line per file
        f"imported {failed} as run 1 (fio333_odirect_ramfs.stdout) (failed: fio error 22,"
        " Invalid argument; listed by `tierdeck history list --status failed`)"
    ]
    listed = run("history", "list", "--status", "failed", "--json")
    assert [r["id"] for r in json.loads(listed.stdout)] == [1]


def test_the_same_report_with_other_line_ends_is_refused_as_imported(
    data_dir: Path, tmp_path: Path
) -> None:
    original = FIXTURES / "fio333_seqread.txt"
    assert run("history", "import", str(original)).exit_code == 0
    text = original.read_bytes()
    for name, data in (
        ("newline.txt", text + b"\n"),
        ("crlf.txt", text.replace(b"\n", b"\r\n")),
        ("bom-blanks.txt", b"\xef\xbb\xbf\n" + text.replace(b"\n", b"  \n")),
    ):
        copy = tmp_path / name
        copy.write_bytes(data)
        again = run("history", "import", str(copy))
        assert again.exit_code == 2, name
        assert again.stderr.strip() == f"tierdeck: {copy}: not imported: already imported as run 1"


def test_a_run_imported_by_its_bytes_hash_is_still_found(data_dir: Path) -> None:
    from dataclasses import replace

    from tierdeck.backends.fio.imports import bytes_hash, imported_run

    data = (FIXTURES / "fio333_seqread.txt").read_bytes()
    run_ = imported_run(data, "old.txt", now=0.0)
    assert run_.imported is not None
    old = replace(run_, imported=replace(run_.imported, content_hash=bytes_hash(data)))
    HistoryStore(data_dir / "history.sqlite3").save(old)  # as stored before normalising
    again = run("history", "import", str(FIXTURES / "fio333_seqread.txt"))
    assert again.exit_code == 2 and "already imported as run 1" in again.stderr


def test_binary_data_is_refused_from_its_first_block(data_dir: Path, tmp_path: Path) -> None:
    image = tmp_path / "disk.img"
    with open(image, "wb") as fh:
        fh.write(bytes(range(256)) * 256)  # 64 KiB, as a disk image starts
        fh.truncate(1 << 30)  # 1 GiB, beyond what is ever read: refused before the rest
    result = run("history", "import", str(image))
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"tierdeck: {image}: not imported: binary data, not text: not fio's output"
        " (JSON or text report)"
    )


def test_windows_utf16_text_is_read(data_dir: Path, tmp_path: Path) -> None:
    # Windows PowerShell's "fio ... > out.txt" saves UTF-16 with its BOM
    saved = tmp_path / "powershell.txt"
    text = (FIXTURES / "fio333_seqread.txt").read_text().replace("\n", "\r\n")
    saved.write_bytes(text.encode("utf-16"))
    result = run("history", "import", str(saved))
    assert result.exit_code == 0, result.stderr
    assert json.loads(run("history", "show", "1", "--json").stdout)["summary"]["read"]


def test_job_options_left_out_are_named_and_kept_as_warnings(data_dir: Path) -> None:
    path = FIXTURES / "fio333_path_name_jsonplus.json"
    result = run("history", "import", str(path))
    assert result.exit_code == 0
    assert result.stdout == f"imported {path} as run 1 (fio333_path_name_jsonplus.json)\n"
    assert (
        f"tierdeck: {path}: kept job '/dev/shm/tdpath'; fio option runtime=500ms not understood"
        in result.stderr.splitlines()
    )
    shown = json.loads(run("history", "show", "1", "--json").stdout)
    assert [j["name"] for j in shown["spec"]["jobs"]] == ["dev_shm_tdpath"]
    assert (
        shown["spec"]["jobs"][0]["size"] == "16Mi" and shown["spec"]["jobs"][0]["runtime"] is None
    )
    kinds = [w["kind"] for w in shown["warning_details"]]
    assert kinds == ["import-options", "import-options"]


# --------------------------------------------------------------------------- several runs
# where the several-runs import meets the normalised hash, the options left out and the
# binary check


def test_every_run_of_a_notes_file_names_the_options_it_left_out(
    data_dir: Path, tmp_path: Path
) -> None:
    notes = notes_leaving_options_out(tmp_path)
    result = run("history", "import", str(notes))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith(f"imported {notes} as runs 1, 2 (")
    assert result.stderr.splitlines() == [
        f"tierdeck: {notes}: run {n}: kept job {job!r}; fio option {option} not understood"
        for n, (job, option) in enumerate(LEFT_OUT, start=1)
    ]
    for run_id in (1, 2):
        shown = json.loads(run("history", "show", str(run_id), "--json").stdout)
        assert [w["kind"] for w in shown["warning_details"]] == ["import-options"]


def test_a_failed_run_of_a_notes_file_is_said_beside_the_options_left_out(
    data_dir: Path, tmp_path: Path
) -> None:
    # the second of two fio runs failed (EIO): the file's one line says which run, as
    # for a file of one run, and each run's options left out are still said on stderr
    notes = notes_with_a_failed_run(tmp_path)
    result = run("history", "import", str(notes))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == [
        f"imported {notes} as runs 1, 2 (notes.txt (1 of 2); notes.txt (2 of 2))"
        " (run 2 failed: fio error 5, Input/output error;"
        " listed by `tierdeck history list --status failed`)"
    ]
    assert result.stderr.splitlines() == [
        f"tierdeck: {notes}: run {n}: kept job {job!r}; fio option {option} not understood"
        for n, (job, option) in enumerate(LEFT_OUT, start=1)
    ]
    listed = run("history", "list", "--status", "failed", "--json")
    assert [r["id"] for r in json.loads(listed.stdout)] == [2]
    assert [r["id"] for r in json.loads(run("history", "list", "--json").stdout)] == [1]


def test_a_notes_file_saved_again_with_other_line_ends_is_refused_as_imported(
    data_dir: Path, tmp_path: Path
) -> None:
    notes = FIXTURES / "fio31_dyu_write_read_notes.txt"
    assert run("history", "import", str(notes)).exit_code == 0
    copy = tmp_path / "notes-crlf.txt"
    copy.write_bytes(notes.read_bytes().replace(b"\n", b"  \r\n"))
    again = run("history", "import", str(copy))
    assert again.exit_code == 2
    assert again.stderr.strip() == f"tierdeck: {copy}: not imported: already imported as run 1"
    assert len(HistoryStore(data_dir / "history.sqlite3").list(series=False)) == 2


def test_a_notes_file_whose_first_run_holds_its_bytes_hash_is_still_found(
    data_dir: Path,
) -> None:
    from dataclasses import replace

    from tierdeck.backends.fio.imports import bytes_hash, imported_runs

    data = (FIXTURES / "fio31_dyu_write_read_notes.txt").read_bytes()
    first = imported_runs(data, "old.txt", now=0.0)[0]
    assert first.imported is not None
    old = replace(first, imported=replace(first.imported, content_hash=bytes_hash(data)))
    HistoryStore(data_dir / "history.sqlite3").save(old)
    again = run("history", "import", str(FIXTURES / "fio31_dyu_write_read_notes.txt"))
    assert again.exit_code == 2 and "already imported as run 1" in again.stderr


def test_binary_data_between_two_runs_is_refused_before_any_run_is_read(
    data_dir: Path, tmp_path: Path
) -> None:
    notes = (FIXTURES / "fio31_dyu_write_read_notes.txt").read_bytes()
    cut = notes.index(b"*reads*")
    mixed = tmp_path / "mixed.txt"
    mixed.write_bytes(notes[:cut] + bytes(range(256)) * 4 + notes[cut:])
    result = run("history", "import", str(mixed))
    assert result.exit_code == 2
    assert "binary data, not text" in result.stderr
    assert HistoryStore(data_dir / "history.sqlite3").list(series=False) == []
