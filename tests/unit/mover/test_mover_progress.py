"""app/mover/progress.ProgressMeter: reports on a ticker while a slow file copies."""

from __future__ import annotations

import threading
import time
from dataclasses import replace

import pytest
from tierdeck.app.cli.mover_run import TtyProgress
from tierdeck.app.mover.progress import MoverProgress, ProgressMeter
from tierdeck.core.mover import (
    CachedFile,
    MoveOutcome,
    MovePhase,
    MoveReason,
    MoveStep,
    PlannedMove,
    SkipReason,
)
from tierdeck.widgets.layout.mover_views import progress_text

from tests.waiting import wait_until_sync


def move(rel: str, size: int) -> PlannedMove:
    return PlannedMove(CachedFile("/c", rel, size, 0.0, 0.0), "/d", MoveReason.AGE)


def test_reports_every_tick_while_bytes_flow() -> None:
    moves = [move("a", 1000), move("b", 3000)]
    seen: list[tuple[float, MoverProgress]] = []
    meter = ProgressMeter(moves, lambda p: seen.append((time.monotonic(), p)), 0.05)
    ticker = threading.Thread(target=meter.tick)
    ticker.start()
    try:
        meter.on_bytes(500)
        wait_until_sync(lambda: len(seen) >= 4, "four reports", 5)
    finally:
        meter.stop.set()
        ticker.join()
    gaps = [b[0] - a[0] for a, b in zip(seen, seen[1:], strict=False)]
    assert max(gaps) < 0.25
    last = seen[-1][1]
    assert (last.files_done, last.files_total, last.bytes_done, last.bytes_total) == (
        0,
        2,
        500,
        4000,
    )
    assert last.current == "a"


def test_settle_counts_skipped_files_whole_and_rate_eta() -> None:
    moves = [move("a", 1000), move("b", 3000)]
    meter = ProgressMeter(moves, lambda p: None, 1.0)
    meter.started -= 10  # as if 10 s ago
    meter.on_bytes(200)  # the engine copied a little of a before skipping it
    meter.settle([MoveOutcome(moves[0], False)])
    snap = meter.snapshot()
    # A skip is a skip: not a file done, and never the file "now" being moved.
    assert (snap.files_done, snap.files_skipped, snap.bytes_done, snap.current) == (
        0, 1, 1000, "b")  # fmt: skip
    assert snap.rate_bps is not None and 99 < snap.rate_bps < 101
    assert snap.eta_seconds is not None and 29 < snap.eta_seconds < 31
    meter.on_bytes(3000)
    meter.settle([MoveOutcome(moves[1], True)])
    done = meter.snapshot()
    assert (done.files_done, done.files_skipped, done.bytes_done, done.current) == (
        1, 1, 4000, None)  # fmt: skip


def test_files_count_as_they_land_not_when_their_batch_ends() -> None:
    moves = [move("held", 10), move("a", 1000), move("b", 3000)]
    meter = ProgressMeter(moves, lambda p: None, 1.0)
    meter.on_outcome(MoveOutcome(moves[0], False, SkipReason.OPEN))
    meter.on_outcome(MoveOutcome(moves[1], True))
    snap = meter.snapshot()
    assert (snap.files_done, snap.files_skipped, snap.current) == (1, 1, "b")
    # The batch's final word wins (a stop undid a): counted once, as it ended.
    meter.settle([MoveOutcome(moves[0], False, SkipReason.OPEN),
                  MoveOutcome(moves[1], False, SkipReason.CHANGED), MoveOutcome(moves[2], True)])  # fmt: skip
    end = meter.snapshot()
    assert (end.files_done, end.files_skipped, end.current) == (1, 2, None)


SYNCING = MoveStep(MovePhase.SYNCING, 188, 254 * 2**20)


def test_the_cli_line_says_the_group_syncs_as_soon_as_it_starts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    copying = MoverProgress(0, 188, 253 * 2**20, 254 * 2**20, 50 * 2**20, 0.02, "a",
                            step=MoveStep(MovePhase.COPYING, 188, 254 * 2**20))  # fmt: skip
    line = TtyProgress()
    line(copying)
    line(replace(copying, eta_seconds=None, current=None, step=SYNCING))  # within the second
    out = capsys.readouterr().err.split("\r\x1b[K")  # the line is only drawn on a terminal
    assert out[1] == "0/188 files  253M/254M  50M/s  eta 0:00:00"
    assert out[2] == "0/188 files  253M/254M  50M/s  syncing 188 files (254M) to disk…"


def test_the_tui_says_the_group_syncs_in_place_of_the_file_now() -> None:
    progress = MoverProgress(0, 188, 253 * 2**20, 254 * 2**20, 50 * 2**20, None, None, 1, SYNCING)
    text = progress_text(progress).plain
    assert text.endswith("ETA --:--\nsyncing 188 files (254M) to disk…")
    assert "now:" not in text
