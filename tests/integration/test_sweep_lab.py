"""``tierdeck bench sweep`` as a real subprocess on the lab NAS: a 2x2 sweep is four
real fio runs stored with the sweep's tag, and a sweep stopped with SIGTERM after its
second cell resumes with ``--resume ID``, running only the two missing cells.

fio stays tiny (8 MiB files, 1 s per cell). Each test uses its own history folder and
its own directory on the lab's ext4 branch, removed afterwards; no test file, fio or
tierdeck process outlives a test.
"""

from __future__ import annotations

import json
import shutil
import signal
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tierdeck.app.history.store import HistoryStore

from tests.integration.test_cli_bench import bench_files, start_tierdeck, stop, tierdeck
from tests.waiting import wait_until_sync

pytestmark = pytest.mark.integration

SWEEP = """
schema = "tierdeck.sweep/1"
name = "lab 2x2"
[base]
rw = "randread"
size = "8m"
direct = 1
[axes]
bs = ["64k", "128k"]
iodepth = [1, 4]
"""


@pytest.fixture
def where(lab_nas: Path, tmp_path: Path) -> Iterator[tuple[Path, Path, Path]]:
    """(sweep file, target directory on hdd0, history folder)."""
    target = lab_nas / "mnt" / "hdd0" / f"sweep-{uuid.uuid4().hex[:8]}"
    target.mkdir()
    sweep = tmp_path / "lab.toml"
    sweep.write_text(SWEEP)
    try:
        yield sweep, target, tmp_path / "data"
    finally:
        shutil.rmtree(target, ignore_errors=True)


def tagged(data_dir: Path, tag: str) -> list[Any]:
    path = data_dir / "history.sqlite3"
    return HistoryStore(path).list(tag=tag) if path.exists() else []


def test_a_2x2_sweep_is_four_tagged_runs(where: tuple[Path, Path, Path]) -> None:
    sweep, target, data = where
    done = tierdeck(data, "bench", "sweep", str(sweep), "--target", str(target),
                    "--runtime", "1", "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["schema"] == "tierdeck.sweep-result/1" and len(doc["cells"]) == 4
    assert [c["axes"] for c in doc["cells"]] == [
        {"bs": bs, "iodepth": qd} for bs in ("64k", "128k") for qd in (1, 4)]  # fmt: skip
    assert {c["status"] for c in doc["cells"]} == {"ok"}
    runs = {r.id: r for r in tagged(data, f"sweep:{doc['id']}")}
    assert sorted(runs) == sorted(c["run_id"] for c in doc["cells"])
    for cell in doc["cells"]:
        run = runs[cell["run_id"]]
        assert (run.jobs[0].bs, run.jobs[0].iodepth) == (
            cell["axes"]["bs"],
            cell["axes"]["iodepth"],
        )
        assert cell["summary"]["read"]["bw_bytes"] == run.summary["read"].bw_bytes > 0
    assert bench_files(target) == []


def test_an_interrupted_sweep_resumes_with_only_the_missing_cells(
    where: tuple[Path, Path, Path],
) -> None:
    sweep, target, data = where
    args = ("bench", "sweep", str(sweep), "--target", str(target), "--runtime", "1")
    proc = start_tierdeck(data, *args)
    try:
        wait_until_sync(lambda: len(tagged(data, "sweep:1")) >= 2, "two cells stored", timeout=90)
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=60)
    finally:
        stop(proc, target)
    assert proc.returncode == 143, stderr
    assert "--resume 1" in stderr
    assert bench_files(target) == []
    ok_before = {r.id for r in tagged(data, "sweep:1") if r.status == "ok"}
    assert len(ok_before) == 2

    # --resume alone: the sweep file, its target and runtime come from the history
    resumed = tierdeck(data, "bench", "sweep", "--resume", "1", "--json")
    assert resumed.returncode == 0, resumed.stderr
    assert "2 of 4 cells to run" in resumed.stderr
    doc = json.loads(resumed.stdout)
    assert doc["id"] == 1 and {c["status"] for c in doc["cells"]} == {"ok"}
    ids = [c["run_id"] for c in doc["cells"]]
    assert set(ids[:2]) == ok_before  # the first two cells were not run again
    assert len(set(ids)) == 4
    assert bench_files(target) == []
    # with the file again, as it was started: accepted, nothing left to run
    again = tierdeck(data, *args, "--resume", "1", "--json")
    assert again.returncode == 0 and "0 of 4 cells to run" in again.stderr, again.stderr
    assert [c["run_id"] for c in json.loads(again.stdout)["cells"]] == ids
    different = tierdeck(data, *args[:-1], "2", "--resume", "1")  # another runtime
    assert different.returncode == 2 and "runtime" in different.stderr, different.stderr
