"""Progress of a mover run: bytes and files done, rate and ETA, reported from a
ticker thread (app/mover.py starts it around the batches)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..core.mover import MoveOutcome, PlannedMove


@dataclass(frozen=True)
class MoverProgress:
    """Sent to ``on_progress`` at least every 0.25 s while moving."""

    files_done: int
    files_total: int
    bytes_done: int
    bytes_total: int
    rate_bps: float | None
    eta_seconds: float | None
    current: str | None  # the file being moved (branch-relative), None between files


class ProgressMeter:
    """Bytes and files done, reported from a ticker thread so a slow file still gets
    a report every ``tick`` seconds."""

    def __init__(
        self, moves: Sequence[PlannedMove], callback: Callable[[MoverProgress], None], tick: float
    ) -> None:
        self.moves = moves
        self.tick_seconds = tick
        self.callback = callback
        self.total = sum(m.file.size for m in moves)
        self.bytes_done = 0  # copied, as the engine reports it
        self.settled_bytes = 0  # of files the engine finished with (moved or skipped)
        self.files_done = 0
        self.started = time.monotonic()
        self.lock = threading.Lock()
        self.stop = threading.Event()

    def on_bytes(self, n: int) -> None:
        with self.lock:
            self.bytes_done += n

    def settle(self, outcomes: Sequence[MoveOutcome]) -> None:
        with self.lock:
            self.files_done += len(outcomes)
            self.settled_bytes += sum(o.move.file.size for o in outcomes)
            self.bytes_done = max(self.bytes_done, self.settled_bytes)

    def snapshot(self) -> MoverProgress:
        with self.lock:
            done = min(self.bytes_done, self.total)
            files = self.files_done
        elapsed = time.monotonic() - self.started
        rate = done / elapsed if elapsed > 0.5 and done else None
        eta = (self.total - done) / rate if rate else None
        current = self.moves[files].file.rel if files < len(self.moves) else None
        return MoverProgress(files, len(self.moves), done, self.total, rate, eta, current)

    def tick(self) -> None:
        while not self.stop.wait(self.tick_seconds):
            self.callback(self.snapshot())
