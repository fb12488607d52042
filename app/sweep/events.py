"""What a running sweep tells its caller, besides every BenchEvent of the run in
progress (passed through unchanged, so the run view's widgets draw the live run).

In order, for each cell to run: ``SweepCellStarted``, the run's BenchEvents
(``RunStarted`` ... ``RunEnded``, ``RunStored``), then ``SweepCellDone``. A cell the
preflight refuses at its turn (the target filled up meanwhile) gets a ``Notice`` and a
``SweepCellDone`` without a run. No Textual import here: the CLI and the tests use them.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...core.sweep.model import CellResult, SweepCell
from ..bench.events import BenchEvent


@dataclass(frozen=True)
class SweepCellStarted:
    index: int  # the cell's place in the whole sweep (0-based, expansion order)
    position: int  # k of n among the cells this call runs (1-based)
    total: int  # n: the cells this call runs (a resume runs only the missing ones)
    cell: SweepCell
    eta_s: float | None  # the rest of the sweep, this cell included; None: unknown


@dataclass(frozen=True)
class SweepCellDone:
    result: CellResult
    refusal: str | None = None  # why the cell could not start (no run then)


SweepEvent = SweepCellStarted | SweepCellDone | BenchEvent
