"""The demo's history: seed 000's results imported from its own text, kept apart from
the user's history."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from tierdeck.app.history.demo import DEMO_RUNS, RUNS_DIR, demo_history_folder, demo_runs
from tierdeck.app.history.store import HistoryStore
from tierdeck.core.imports import ImportNotice, RunOrigin

from ..cli_support import run
from .test_history import recorded_result

SEEDS = Path("/work/shared/seeds")
MIB = 1024**2


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(folder))
    monkeypatch.delenv("TIERDECK_CACHE_DIR")  # the user's own cache folder, as platformdirs has it
    return folder


def test_every_snippet_is_a_verbatim_cut_of_seed_000() -> None:
    seeds = sorted(SEEDS.glob("000_*.txt"))
    if not seeds:
        pytest.skip("seed 000 is not on this machine")
    seed = seeds[0].read_text(encoding="utf-8")
    files = sorted(RUNS_DIR.glob("*.txt"))
    assert {d.file for d in DEMO_RUNS} | {"command.txt"} == {f.name for f in files}
    for path in files:
        assert path.read_text(encoding="utf-8") in seed, path.name


def test_demo_runs_are_the_seeds_figures() -> None:
    runs = {r.imported.file_name: r for r in demo_runs() if r.imported}
    write_mib = {name: r.summary["write"].bw_bytes / MIB for name, r in runs.items()}
    assert write_mib == pytest.approx(
        {
            "raw-zfs-pool.txt": 1240,
            "mergerfs-zfs-0.8.txt": 374,
            "mergerfs-zfs-2.1.txt": 944,
            "slow-pool.txt": 185,
            "btrfs.txt": 902,
            "btrfs-mergerfs.txt": 771,
            "btrfs-raid1.txt": 438,
            "btrfs-raid1-mergerfs.txt": 296,
            "autotier-zfs.txt": 184,
            "autotier-ext4.txt": 658,
        }  # fmt: skip
    )
    assert all(r.origin is RunOrigin.IMPORTED and r.jobs for r in runs.values())
    assert runs["raw-zfs-pool.txt"].target.path == "/cache"
    assert runs["raw-zfs-pool.txt"].jobs[0].bs == "1M"  # the seed's command
    assert runs["raw-zfs-pool.txt"].job_summaries[0].rw == "write"
    partial = runs["btrfs-raid1-mergerfs.txt"].imported
    assert partial is not None and ImportNotice.GROUP_STATUS_ONLY in partial.notices


def test_demo_history_never_touches_the_users(
    data_dir: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    users = HistoryStore(data_dir / "history.sqlite3")
    users.save(recorded_result())
    before = hashlib.sha256((data_dir / "history.sqlite3").read_bytes()).hexdigest()
    listed = run("--demo", "history", "list")
    assert listed.exit_code == 0
    assert "raw ZFS pool /cache (ZFS 0.8.4)" in listed.stdout
    assert "seed000-seqwrite on cache" not in listed.stdout  # the user's run
    after = hashlib.sha256((data_dir / "history.sqlite3").read_bytes()).hexdigest()
    assert after == before
    assert [p.name for p in (cache / "tierdeck").iterdir()][0].startswith("demo-history-")
    # --demo points its own process at the demo; the next tierdeck is a new process
    monkeypatch.setenv("TIERDECK_DATA_DIR", str(data_dir))
    mine = run("history", "list")
    assert "seed000-seqwrite on cache" in mine.stdout and "raw ZFS" not in mine.stdout


def test_demo_history_is_rebuilt_when_missing(tmp_path: Path) -> None:
    folder = demo_history_folder(tmp_path)
    store = HistoryStore(folder / "history.sqlite3")
    assert len(store.list()) == len(DEMO_RUNS)
    store.delete(1)
    assert demo_history_folder(tmp_path) == folder  # there: kept as it is
    assert len(HistoryStore(folder / "history.sqlite3").list()) == len(DEMO_RUNS) - 1
    (folder / "history.sqlite3").unlink()
    again = demo_history_folder(tmp_path)
    assert len(HistoryStore(again / "history.sqlite3").list()) == len(DEMO_RUNS)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_demo_show_says_an_imported_run_was_not_sampled(data_dir: Path, cache: Path) -> None:
    shown = run("--demo", "history", "show", "1")
    assert shown.exit_code == 0, shown.output
    lines = shown.stdout.splitlines()
    # the pasted text names the filesystem but no mount options, and no disk was sampled
    assert "env:      zfs, zfs 0.8.4" in lines
    assert "disks under zfs cache: not sampled (imported)" in lines
    assert "0B" not in shown.stdout and "()" not in shown.stdout
