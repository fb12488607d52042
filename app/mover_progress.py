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
    files_skipped: int = 0  # left on the cache (open, changed ...): not in files_done


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
        # Each file as it lands or is skipped (branch, rel) -> moved; a batch's final
        # outcomes overwrite it (a stop may undo a landed file).
        self.landed: dict[tuple[str, str], bool] = {}
        self.cursor = 0  # moves before it all have an outcome
        self.started = time.monotonic()
        self.lock = threading.Lock()
        self.stop = threading.Event()

    def on_bytes(self, n: int) -> None:
        with self.lock:
            self.bytes_done += n

    def on_outcome(self, outcome: MoveOutcome) -> None:
        """A file landed on its slow branch, or was skipped: counted now, not when its
        whole batch ends."""
        with self.lock:
            self.landed[_key(outcome.move)] = outcome.moved

    def settle(self, outcomes: Sequence[MoveOutcome]) -> None:
        with self.lock:
            self.landed.update((_key(o.move), o.moved) for o in outcomes)
            self.settled_bytes += sum(o.move.file.size for o in outcomes)
            self.bytes_done = max(self.bytes_done, self.settled_bytes)

    def snapshot(self) -> MoverProgress:
        with self.lock:
            done = min(self.bytes_done, self.total)
            moved = sum(self.landed.values())
            skipped = len(self.landed) - moved
            while self.cursor < len(self.moves) and _key(self.moves[self.cursor]) in self.landed:
                self.cursor += 1
            position = self.cursor
        elapsed = time.monotonic() - self.started
        rate = done / elapsed if elapsed > 0.5 and done else None
        eta = (self.total - done) / rate if rate else None
        # The first file without an outcome: a skipped file is never "now".
        current = self.moves[position].file.rel if position < len(self.moves) else None
        return MoverProgress(moved, len(self.moves), done, self.total, rate, eta, current, skipped)

    def tick(self) -> None:
        while not self.stop.wait(self.tick_seconds):
            self.callback(self.snapshot())


def _key(move: PlannedMove) -> tuple[str, str]:
    return (move.file.branch, move.file.rel)
