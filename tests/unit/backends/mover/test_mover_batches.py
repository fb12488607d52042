"""Several batches in one pipeline (``move_batches``): the open files are looked up
before each batch's first copy, a failed look-up stops the run with every file once,
the run's first group is small (it copies with nothing settling beside it), and the
GIL's short turns last as long as the pipeline."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import pytest
from tierdeck.backends.mover.engine import (
    FIRST_GROUP_FILES,
    GIL_TURN_SECONDS,
    LocalFileMover,
    MoveStopped,
)
from tierdeck.core.errors import HostError
from tierdeck.core.mover import TEMP_PREFIX, MovePhase, MoveStep, SkipReason, StopReason

from tests.support.mover_tree import planned


@pytest.fixture
def tiers(tmp_path: Path) -> tuple[Path, Path, Path]:
    cache, slow, journal = tmp_path / "cache", tmp_path / "slow", tmp_path / "journal"
    cache.mkdir()
    slow.mkdir()
    for index in range(6):
        (cache / f"f{index}").write_bytes(os.urandom(100))
    return cache, slow, journal


def test_open_files_are_looked_up_again_before_each_batch(tiers: tuple[Path, Path, Path]) -> None:
    cache, slow, journal = tiers
    moves = planned(cache, slow)
    looked: list[int] = []

    def open_paths() -> frozenset[str]:
        looked.append(len(list(slow.iterdir())))  # what had landed or was copied by then
        # f4 is opened once the first batch is under way: only a new look-up sees it.
        return frozenset({str(cache / "f4")}) if looked[1:] else frozenset()

    outcomes = LocalFileMover(str(journal)).move_batches(
        [moves[:3], moves[3:]], open_paths, threading.Event(), lambda n: None)  # fmt: skip
    assert len(looked) == 2 and looked[0] == 0 and looked[1] >= 3  # the 2nd after 3 copies
    skipped = {o.move.file.rel: o.skip for o in outcomes if not o.moved}
    assert skipped == {"f4": SkipReason.OPEN}
    assert sorted(p.name for p in slow.iterdir()) == ["f0", "f1", "f2", "f3", "f5"]
    assert [p.name for p in cache.iterdir()] == ["f4"]


def test_a_failed_look_up_stops_the_run_and_keeps_the_batches_before(
    tiers: tuple[Path, Path, Path],
) -> None:
    cache, slow, journal = tiers
    moves = planned(cache, slow)
    calls: list[int] = []

    def open_paths() -> frozenset[str]:
        calls.append(1)
        if len(calls) == 2:
            raise HostError("/proc unreadable")
        return frozenset()

    with pytest.raises(MoveStopped) as stopped:
        LocalFileMover(str(journal)).move_batches(
            [moves[:2], moves[2:]], open_paths, threading.Event(), lambda n: None)  # fmt: skip
    assert stopped.value.reason is StopReason.ERROR and "/proc unreadable" in stopped.value.detail
    assert [o.move.file.rel for o in stopped.value.outcomes if o.moved] == ["f0", "f1"]
    assert sorted(p.name for p in slow.iterdir()) == ["f0", "f1"]
    assert sorted(p.name for p in cache.iterdir()) == ["f2", "f3", "f4", "f5"]
    assert not list(slow.rglob(f"{TEMP_PREFIX}*")) and os.listdir(journal) == []


def test_the_first_group_of_a_run_is_small_and_the_next_batches_are_not(tmp_path: Path) -> None:
    cache, slow, journal = tmp_path / "cache", tmp_path / "slow", tmp_path / "journal"
    cache.mkdir()
    slow.mkdir()
    for index in range(400):
        (cache / f"f{index:03d}").write_bytes(b"x")
    moves = planned(cache, slow)
    steps: list[MoveStep] = []
    LocalFileMover(str(journal)).move_batches(
        [moves[:300], moves[300:]], lambda: frozenset(), threading.Event(), lambda n: None,
        on_step=steps.append)  # fmt: skip
    copying = [s.files for s in steps if s.phase is MovePhase.COPYING]
    # 300 files: groups of a quarter (75), the first cut to FIRST_GROUP_FILES; the
    # second batch (100 files: quarters of 25) starts with a whole group.
    assert copying == [FIRST_GROUP_FILES, 75, 75, 75, 50, 25, 25, 25, 25]
    assert len(list(slow.iterdir())) == 400


def test_short_gil_turns_hold_during_the_run_only_even_when_it_stops(
    tiers: tuple[Path, Path, Path],
) -> None:
    cache, slow, journal = tiers
    moves = planned(cache, slow)
    before = sys.getswitchinterval()
    during: list[float] = []

    def open_paths() -> frozenset[str]:
        during.append(sys.getswitchinterval())
        if len(during) == 2:
            raise HostError("/proc unreadable")
        return frozenset()

    with pytest.raises(MoveStopped):
        LocalFileMover(str(journal)).move_batches(
            [moves[:2], moves[2:]], open_paths, threading.Event(), lambda n: None)  # fmt: skip
    assert during[1] == pytest.approx(GIL_TURN_SECONDS) and during[1] < before  # in the pipeline
    assert sys.getswitchinterval() == before
