"""One mover run (issue 10): refuse a dangerous layout, take the layout's lock, recover
what a crash left, scan the cache branches, select and place files, forecast, move them
in batches through the Host's file mover, report and record.

No click, no Textual: the CLI (app/cli_mover.py) and the mover view both call
:func:`run_mover`, which blocks; the view runs it in a worker thread and gets
:class:`MoverProgress` through ``on_progress`` (from that thread).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from ..backends.host import Host
from ..core.errors import TierdeckError
from ..core.layout import Layout
from ..core.mover import MoveOutcome, PlannedMove, RecoveryOutcome, StopReason


@dataclass(frozen=True)
class MoverOptions:
    min_age_days: int | None = None  # overrides the layout's
    dry_run: bool = False
    verify: bool = False  # sha256 of every copy against its source: reads each file twice


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


@dataclass(frozen=True)
class MoverReport:
    layout_name: str
    started: float
    finished: float
    dry_run: bool
    planned: tuple[PlannedMove, ...]  # the forecast (dry run) or what was attempted
    outcomes: tuple[MoveOutcome, ...]
    recovered: tuple[RecoveryOutcome, ...]
    stopped: StopReason | None
    message: str
    forecast_seconds: float | None  # from history bandwidth; None when none was measured
    noatime_branches: tuple[str, ...]  # cache branches mounted noatime while age_basis is atime

    @property
    def files_moved(self) -> int:
        return sum(1 for o in self.outcomes if o.moved)

    @property
    def bytes_moved(self) -> int:
        return sum(o.move.file.size for o in self.outcomes if o.moved)

    @property
    def skipped(self) -> tuple[MoveOutcome, ...]:
        return tuple(o for o in self.outcomes if not o.moved)

    @property
    def ok(self) -> bool:
        return self.stopped is None


class RefusalKind(StrEnum):
    RULES = "rules"  # the layout has mover-source/mover-destination/branch-mounted errors
    LOCKED = "locked"  # another mover runs for this layout
    NOT_LIVE = "not-live"  # a recorded host cannot move files


class MoverRefused(TierdeckError):
    """The run did not start; nothing was touched."""

    def __init__(self, kind: RefusalKind, detail: str) -> None:
        super().__init__(f"mover refused: {detail}")
        self.kind = kind
        self.detail = detail


ProgressCallback = Callable[[MoverProgress], None]


def run_mover(
    host: Host,
    layout: Layout,
    layout_path: Path,
    options: MoverOptions,
    *,
    on_progress: ProgressCallback,
    cancel: threading.Event,
) -> MoverReport:
    """Run the mover once for ``layout`` (its file at ``layout_path`` names the lock).

    Raises :class:`MoverRefused` before touching anything. Not implemented yet: the
    body lands with the engine (backends/mover_files.py); until then it raises.
    """
    raise NotImplementedError("run_mover lands with the engine (issue 10)")
