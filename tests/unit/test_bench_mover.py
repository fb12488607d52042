"""bench/mover.py's layout: a minfreespace its work disk can keep free, or the mover it
times would move nothing (or be refused) on a small disk."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from types import ModuleType

import pytest
from tierdeck.app.layout.files import load_layout
from tierdeck.core.layout.destination import destination_of

from ..paths import REPO

GIB = 2**30
LARGEST_SET = 3 * 128 * 2**20  # bench/mover.py's 3 large files


def bench_mover() -> ModuleType:
    path = REPO / "bench" / "mover.py"
    spec = importlib.util.spec_from_file_location("bench_mover", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def free_space(monkeypatch: pytest.MonkeyPatch, free: int) -> None:
    real = os.statvfs

    def statvfs(path: object) -> os.statvfs_result:
        st = real(path)  # type: ignore[arg-type]
        fields = list(st)
        fields[0], fields[1], fields[4] = 4096, 4096, free // 4096  # bsize, frsize, bavail
        return os.statvfs_result(fields)

    monkeypatch.setattr(os, "statvfs", statvfs)


def test_a_small_work_disk_gets_a_minfreespace_it_can_keep(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = bench_mover()
    free_space(monkeypatch, 2 * GIB)
    minfree = bench.bench_minfreespace(tmp_path)
    # Pristine, cache and slow copies of the largest set still leave it free, twice over.
    assert minfree == (2 * GIB - 3 * LARGEST_SET) // 2
    bench.write_layout(tmp_path / "bench.toml", tmp_path / "cache", tmp_path / "slow", minfree)
    layout = load_layout(tmp_path / "bench.toml")
    assert destination_of(layout).minfreespace_bytes == minfree  # the slow branch keeps this
    assert destination_of(layout).branches == (str(tmp_path / "slow"),)
    assert layout.tiered_pool.options.minfreespace_bytes == minfree


def test_a_roomy_work_disk_keeps_mergerfs_default_and_a_full_one_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = bench_mover()
    free_space(monkeypatch, 100 * GIB)
    assert bench.bench_minfreespace(tmp_path) == 4 * GIB
    free_space(monkeypatch, 3 * LARGEST_SET)
    with pytest.raises(SystemExit, match="too little free space"):
        bench.bench_minfreespace(tmp_path)


def test_the_goal_line_is_against_rsync_then_sync_and_comes_first() -> None:
    bench = bench_mover()
    times = {"tierdeck": [1.0, 2.0, 4.0], "rsync": [0.5, 0.5, 0.5],
             "rsync --fsync": [2.0, 2.0, 2.0], "rsync; sync": [2.0, 1.0, 1.0]}  # fmt: skip
    name, goal, *others = bench.report_lines({"2000 small files": times})[:4]
    assert name == "2000 small files:"
    # Per round 2/1, 1/2, 1/4: the median and the range, and the goal named.
    assert "vs rsync; sync" in goal and " 0.50x (range 0.25-2.00" in goal and "goal" in goal
    assert [line.split(":")[0].strip() for line in others] == ["vs rsync", "vs rsync --fsync"]


def test_the_cpu_of_each_tool_is_said_last() -> None:
    bench = bench_mover()
    times = {"tierdeck": [1.0], "rsync": [0.5], "rsync --fsync": [2.0], "rsync; sync": [1.0]}
    cpu = {"2000 small files": {tool: [0.25] for tool in times}}
    lines = bench.report_lines({"2000 small files": times}, cpu)
    assert lines[-1] == ("  (CPU, user + system, medians: tierdeck 0.25 s, rsync 0.25 s, "
                         "rsync --fsync 0.25 s, rsync; sync 0.25 s)")  # fmt: skip


def test_figures_land_at_the_end_of_the_mover_speed_section(tmp_path: Path) -> None:
    bench = bench_mover()
    doc = tmp_path / "performance.md"
    doc.write_text(f"# Performance\n\n{bench.DOC_SECTION}\n\nolder text\n\n## Sweeps\n\nx\n")
    section = bench.DOC_SECTION.removeprefix("## ")
    bench.append_run(section, "run one", ["a:", "  vs rsync; sync: 1.00x"], doc, load=1.5)
    bench.append_run(section, "run two", ["b:"], doc)
    text = doc.read_text()
    assert text.index("older text") < text.index("### run one") < text.index("### run two")
    assert text.index("### run two") < text.index("## Sweeps")
    assert " UTC (load 1.5)\n\n```\na:\n  vs rsync; sync: 1.00x\n```\n\n### run two" in text
    assert text.endswith("```\n\n## Sweeps\n\nx\n")
