"""The mover view with fixed data, for snapshots and Pilot tests: a layout like seed 000's
(one SSD cache, two slow disks behind a slow pool), a dry-run forecast and a last run,
all typed values (app/mover/run's MoverReport, app/mover/history's MoverRecord), nothing from the clock or the machine.

``ScriptedRun`` stands in for app.mover.run_mover: the dry run returns ``FORECAST``;
a real run reports progress file by file, waiting for the test to ``step()`` between
files, and stops at once when cancelled, as the engine does.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from textual.app import App
from tierdeck.app.mover.history import MoverRecord, SkippedFile
from tierdeck.app.mover.run import MoverOptions, MoverProgress, MoverReport
from tierdeck.core.layout.model import Branch, Layout, default_layout
from tierdeck.core.mover import (
    CachedFile,
    MoveOutcome,
    MoveReason,
    PlannedMove,
    SkipReason,
    StopReason,
    Unplaced,
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
    forecast_note="best write bandwidth measured: /mnt/disk1 162M/s, /mnt/disk2 158M/s",
    unplaced=(Unplaced(_move("backup/vm.qcow2", 900 * G, DISK1).file, MoveReason.FILL, None),),
)

LAST_RUN = MoverRecord(
    layout_name="media",
    layout_path=str(LAYOUT_PATH),
    started=STARTED - 86400,
    duration=47.0,
    dry_run=False,
    files_planned=5,
    bytes_planned=int(4.24 * G),
    files_moved=3,
    bytes_moved=int(3.5 * G),
    skipped=(
        SkippedFile("downloads/seeding.iso", SkipReason.OPEN, "qbittorrent"),
        SkippedFile("music/linked.flac", SkipReason.HARD_LINK, "2 links"),
    ),
    recovered=1,
    stopped=None,
    refused=None,
    message="moved 3 files, 3.5G; skipped 2; recovered 1 moves a crash left",
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
    """Just the mover view on ``layout``: fed by ``run`` and the last run ``last`` by
    default; with ``live=True`` by the real run_mover, the mover history and ``host``."""

    CSS_PATH = "../../../app/tui/tierdeck.tcss"
    ENABLE_COMMAND_PALETTE = False  # as in TierdeckApp

    def __init__(
        self,
        run: ScriptedRun | None = None,
        last: MoverRecord | None = LAST_RUN,
        *,
        live: bool = False,
        host: Any = None,
        layout: Layout = LAYOUT,
        layout_path: Path = LAYOUT_PATH,
    ) -> None:
        super().__init__()
        self.scripted = run or ScriptedRun()
        self.last = last
        self.live = live
        self.host = host  # a scripted run never reads it
        self.tier_layout = layout
        self.layout_path = layout_path
        self.title = "tierdeck — nas"

    def on_mount(self) -> None:
        from tierdeck.screens.layout.mover import MoverScreen

        if self.live:
            self.push_screen(MoverScreen(self.tier_layout, self.layout_path))
            return
        self.push_screen(
            MoverScreen(
                self.tier_layout, self.layout_path, run=self.scripted, last_run=lambda: self.last
            )
        )
