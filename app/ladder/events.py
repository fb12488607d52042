"""What a running ladder tells its caller, besides every BenchEvent of the rung in
progress (passed through unchanged, so the run view's widgets draw the live run).

In order, for each rung: ``RungStarted``, the run's BenchEvents (``RunStarted`` ...
``RunEnded``, ``RunStored``), then ``RungDone``. A rung that cannot run (O_DIRECT
refused, no room in RAM, a mount that failed) gets ``RungStarted`` and a ``RungDone``
whose rung says why (``Rung.skipped``), with no run between. No Textual import here:
the CLI and the tests use them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...core.ladder.model import Rung, RungKind
from ..bench.events import BenchEvent


@dataclass(frozen=True)
class RungStarted:
    index: int  # 0-based, in the ladder's order
    total: int
    kind: RungKind
    path: str  # where fio runs (a throwaway pool's mountpoint once mounted)
    label: str = ""  # "branch", "cache.files=off": what the table calls the rung


@dataclass(frozen=True)
class RungDone:
    rung: Rung  # measured, or skipped with the reason; penalties not filled yet


LadderEvent = RungStarted | RungDone | BenchEvent
LadderEventSink = Callable[[LadderEvent], None]
