"""Progress of a mover run: bytes and files done, rate and ETA, reported from a
ticker thread (app/mover/run.py starts it around the batches)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from ...core.mover import MoveOutcome, MovePhase, MoveStep, PlannedMove
from ...core.units import counted, format_bytes

# While the disk writes a group out, the copied bytes say nothing of the time left.
_WAITING_ON_DISK = (MovePhase.SYNCING, MovePhase.VERIFYING)


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
    step: MoveStep | None = None  # the phase of the group at hand (None between batches)

    @property
    def waiting_on_disk(self) -> bool:
        """Copied, not landed yet: the group is being made durable (or read back)."""
        return self.step is not None and self.step.phase in _WAITING_ON_DISK


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
        self.step: MoveStep | None = None
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

    def on_step(self, step: MoveStep) -> None:
        with self.lock:
            self.step = step

    def settle(self, outcomes: Sequence[MoveOutcome]) -> None:
        """A batch ended (or stopped): its final outcomes."""
        with self.lock:
            self.step = None
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
            step = self.step
        elapsed = time.monotonic() - self.started
        rate = done / elapsed if elapsed > 0.5 and done else None
        eta = (self.total - done) / rate if rate else None
        # The first file without an outcome: a skipped file is never "now".
        current = self.moves[position].file.rel if position < len(self.moves) else None
        progress = MoverProgress(moved, len(self.moves), done, self.total, rate, eta, current,
                                 skipped, step)  # fmt: skip
        if progress.waiting_on_disk:  # "eta 0s" for the seconds a sync takes reads as a hang
            progress = replace(progress, eta_seconds=None, current=None)
        return progress

    def tick(self) -> None:
        while not self.stop.wait(self.tick_seconds):
            self.callback(self.snapshot())


def _key(move: PlannedMove) -> tuple[str, str]:
    return (move.file.branch, move.file.rel)


def step_text(step: MoveStep | None) -> str | None:
    """What a group of files goes through when it is not bytes flowing (the CLI's line
    and the TUI's say it in place of the file at hand); None while copying."""
    if step is None or step.phase is MovePhase.COPYING:
        return None
    files, size = counted(step.files, "file"), format_bytes(step.size)
    if step.phase is MovePhase.SYNCING:
        return f"syncing {files} ({size}) to disk…"
    return f"syncing {files} ({size}) to disk and verifying…"
