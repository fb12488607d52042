"""The mover view with fixed data, for snapshots and Pilot tests: a layout like seed 000's
(one SSD cache, two slow disks behind a slow pool), a dry-run forecast and a last run,
all typed values (app/mover's MoverReport), nothing from the clock or the machine.

``ScriptedRun`` stands in for app.mover.run_mover: the dry run returns ``FORECAST``;
a real run reports progress file by file, waiting for the test to ``step()`` between
files, and stops at once when cancelled, as the engine does.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from textual.app import App
from tierdeck.app.mover import MoverOptions, MoverProgress, MoverReport
from tierdeck.core.layout import Branch, Layout, default_layout
from tierdeck.core.mover import (
    CachedFile,
    MoveOutcome,
    MoveReason,
    PlannedMove,
    RecoveryAction,
    RecoveryOutcome,
    SkipReason,
    StopReason,
)

G = 1024**3
M = 1024**2
CACHE = "/mnt/cache"
DISK1, DISK2 = "/mnt/disk1", "/mnt/disk2"
STARTED = 1_718_000_000.0  # 2024-06-10 06:13:20 UTC

LAYOUT: Layout = default_layout(
    cache=(CACHE,), slow=(Branch(DISK1), Branch(DISK2)), pool="/mnt/storage", slow_pool="/mnt/slow"
)
LAYOUT_PATH = Path("/etc/tierdeck/media.toml")


def _move(rel: str, size: int, dest: str, reason: MoveReason = MoveReason.AGE) -> PlannedMove:
    f = CachedFile(CACHE, rel, size, atime=STARTED - 9 * 86400, mtime=STARTED - 20 * 86400)
    return PlannedMove(f, dest, reason)


PLANNED = (
    _move("tv/Show/S01E01.mkv", int(1.4 * G), DISK1),
    _move("tv/Show/S01E02.mkv", int(1.3 * G), DISK2),
    _move("movies/Film (2019)/Film.mkv", int(7.9 * G), DISK1),
    _move("music/Album/01 Track.flac", 31 * M, DISK2),
    _move("downloads/iso/debian-12.5.0-amd64-netinst.iso", 629 * M, DISK2, MoveReason.FILL),
    _move("photos/2023/IMG_0001.jpg", 6 * M, DISK1, MoveReason.FILL),
)

FORECAST = MoverReport(
    layout_name="media",
    started=STARTED,
    finished=STARTED + 0.4,
    dry_run=True,
    planned=PLANNED,
    outcomes=(),
    recovered=(),
    stopped=None,
    message="",
    forecast_seconds=71.0,
    noatime_branches=(CACHE,),
)

_LAST_PLANNED = (
    _move("tv/Old/S02E01.mkv", int(1.2 * G), DISK1),
    _move("tv/Old/S02E02.mkv", int(1.2 * G), DISK2),
    _move("tv/Old/S02E03.mkv", int(1.1 * G), DISK1),
    _move("downloads/seeding.iso", 700 * M, DISK2),
    _move("music/linked.flac", 40 * M, DISK1),
)
LAST_RUN = MoverReport(
    layout_name="media",
    started=STARTED - 86400,
    finished=STARTED - 86400 + 47,
    dry_run=False,
    planned=_LAST_PLANNED,
    outcomes=(
        MoveOutcome(_LAST_PLANNED[0], moved=True),
        MoveOutcome(_LAST_PLANNED[1], moved=True),
        MoveOutcome(_LAST_PLANNED[2], moved=True),
        MoveOutcome(_LAST_PLANNED[3], moved=False, skip=SkipReason.OPEN, detail="qbittorrent"),
        MoveOutcome(_LAST_PLANNED[4], moved=False, skip=SkipReason.HARD_LINK, detail="2 links"),
    ),
    recovered=(RecoveryOutcome("tv/Old/S01E09.mkv", CACHE, DISK2, RecoveryAction.FINISHED),),
    stopped=None,
    message="",
    forecast_seconds=None,
    noatime_branches=(),
)


class ScriptedRun:
    """run_mover's stand-in (see the module doc). ``calls`` lists the options it got."""

    def __init__(self, forecast: MoverReport = FORECAST) -> None:
        self.forecast = forecast
        self.calls: list[MoverOptions] = []
        self._steps = threading.Semaphore(0)

    def step(self, files: int = 1) -> None:
        """Let the run move ``files`` more files."""
        for _ in range(files):
            self._steps.release()

    def __call__(self, host: Any, layout: Layout, layout_path: Path, options: MoverOptions,
                 *, on_progress: Any, cancel: threading.Event) -> MoverReport:  # fmt: skip
        self.calls.append(options)
        if options.dry_run:
            return self.forecast
        moves = self.forecast.planned
        total = sum(m.file.size for m in moves)
        outcomes: list[MoveOutcome] = []
        done = 0
        stopped = None
        for move in moves:
            on_progress(MoverProgress(len(outcomes), len(moves), done, total, 100.0 * M,
                                      (total - done) / (100.0 * M), move.file.rel))  # fmt: skip
            while not self._steps.acquire(timeout=0.01):
                if cancel.is_set():
                    stopped = StopReason.CANCELLED
                    break
            if stopped is not None:
                break
            done += move.file.size
            outcomes.append(MoveOutcome(move, moved=True))
        on_progress(MoverProgress(len(outcomes), len(moves), done, total, 100.0 * M, 0.0, None))
        return MoverReport(
            layout_name="media",
            started=STARTED,
            finished=STARTED + 90,
            dry_run=False,
            planned=moves,
            outcomes=tuple(outcomes),
            recovered=(),
            stopped=stopped,
            message="",
            forecast_seconds=self.forecast.forecast_seconds,
            noatime_branches=self.forecast.noatime_branches,
        )


class MoverApp(App[None]):
    """Just the mover view on ``LAYOUT``, fed by ``run`` and the last run ``last``."""

    CSS_PATH = "../../app/tierdeck.tcss"
    ENABLE_COMMAND_PALETTE = False  # as in TierdeckApp

    def __init__(self, run: ScriptedRun | None = None, last: MoverReport | None = LAST_RUN) -> None:
        super().__init__()
        self.scripted = run or ScriptedRun()
        self.last = last
        self.host = None  # the scripted run never reads it
        self.title = "tierdeck — nas"

    def on_mount(self) -> None:
        from tierdeck.screens.mover import MoverScreen

        self.push_screen(
            MoverScreen(LAYOUT, LAYOUT_PATH, run=self.scripted, last_run=lambda: self.last)
        )
