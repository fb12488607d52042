"""One mover run: refuse a dangerous layout, take the layout's lock, recover
what a crash left, scan the cache branches, select and place files, forecast, move them
in batches through the Host's file mover, report and record.

No click, no Textual: the CLI (app/cli/mover.py) and the mover view both call
:func:`run_mover`, which blocks; the view runs it in a worker thread and gets
:class:`MoverProgress` through ``on_progress`` (from that thread).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from ...backends.host import Host
from ...backends.locks import LockHeld
from ...backends.mounts import read_mounts
from ...backends.mover.engine import FileMover, MoveStopped
from ...core.errors import TierdeckError
from ...core.layout.branch_facts import BranchFacts
from ...core.layout.model import Layout
from ...core.layout.rules import RuleSeverity, check_layout
from ...core.models import Inventory, SourceNote, ZfsInfo
from ...core.mover import MoveOutcome, PlannedMove, RecoveryOutcome, StopReason, Unplaced
from ...core.units import counted, format_bytes
from ..history.paths import default_history_path
from ..layout.facts import branch_facts
from .history import MoverHistory, MoverHistoryError, MoverRecord, SkippedFile
from .plan import HistoryWrites, WriteHistory, forecast
from .progress import MoverProgress, ProgressMeter

__all__ = ["MoverOptions", "MoverProgress", "MoverRefused", "MoverReport", "RefusalKind",
           "run_mover"]  # fmt: skip

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class MoverOptions:
    min_age_days: int | None = None  # overrides the layout's
    dry_run: bool = False
    verify: bool = False  # sha256 of every copy against its source: reads each file twice


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
    # Additions to the design's fields: why there is no forecast (or where it came
    # from), and selected files no slow branch had room for (never attempted).
    forecast_note: str = ""
    unplaced: tuple[Unplaced, ...] = ()
    unplaced_reason: str = ""  # why they fit on no slow branch, one line

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
        """What ``mover run``'s exit 0 says: not stopped, and a move left no selected
        file without a slow branch."""
        return self.stopped is None and (self.dry_run or not self.unplaced)


class RefusalKind(StrEnum):
    RULES = "rules"  # an error-severity rule, as layout check and apply refuse
    LOCKED = "locked"  # another mover runs for this layout
    NOT_LIVE = "not-live"  # a recorded host cannot move files


class MoverRefused(TierdeckError):
    """The run did not start; nothing was touched."""

    def __init__(self, kind: RefusalKind, detail: str) -> None:
        super().__init__(f"mover refused: {detail}")
        self.kind = kind
        self.detail = detail


ProgressCallback = Callable[[MoverProgress], None]

BATCH_FILES = 1000  # open files are looked up again before each batch (~0.3 s of small files)
BATCH_BYTES = 4 * 2**30
TICK = 0.2  # seconds between progress reports (the contract asks for at most 0.25)


def journal_dir(layout_path: Path) -> Path:
    """Where the engine journals this layout's moves: beside the history, one folder
    per layout file, so the next run of the same layout finds what a crash left."""
    return default_history_path().parent / "mover-journal" / layout_path.stem


def mounts_inventory(host: Host) -> Inventory:
    """The inventory the mover needs: the mounts alone (the refusing rules ask whether
    each branch exists and is mounted; the forecast reads mount options). Disks, pools
    and redundancy cost ~0.1 s (udev, zpool, lsscsi) and decide nothing here."""
    try:
        mounts, notes = read_mounts(host)
    except (TierdeckError, OSError) as exc:  # as collect_inventory: a note, no mounts
        mounts, notes = (), (SourceNote("mounts", str(exc)),)
    return Inventory(hostname=host.hostname, disks=(), mounts=mounts, mergerfs=(),
                     zfs=ZfsInfo(available=False), btrfs=(), md=(), notes=notes,
                     is_root=host.is_root, kernel=host.kernel)  # fmt: skip


def run_mover(
    host: Host,
    layout: Layout,
    layout_path: Path,
    options: MoverOptions,
    *,
    on_progress: ProgressCallback,
    cancel: threading.Event,
    history: MoverHistory | None = None,
    bench_history: WriteHistory | None = None,
) -> MoverReport:
    """Run the mover once for ``layout`` (its file at ``layout_path`` names the lock,
    the journal and the records). Blocks; call from a worker thread in a UI.

    Raises :class:`MoverRefused` before touching anything (recorded as a refusal).
    Any stop after that (no space, read-only, cancel, an error) is in the report.
    """
    started = time.time()
    try:
        return _run(host, layout, layout_path, options, started, on_progress, cancel,
                    history, bench_history)  # fmt: skip
    except MoverRefused as refused:
        _record_refusal(history, layout_path, options, started, refused)
        raise


def _run(
    host: Host,
    layout: Layout,
    layout_path: Path,
    options: MoverOptions,
    started: float,
    on_progress: ProgressCallback,
    cancel: threading.Event,
    history: MoverHistory | None,
    bench_history: WriteHistory | None,
) -> MoverReport:
    caps = host.capabilities  # once: a live host's asks udevd on its socket each time
    if not (caps.live and caps.move_files):
        raise MoverRefused(RefusalKind.NOT_LIVE, caps.no_move_reason)
    inv = mounts_inventory(host)
    paths = (*layout.cache, *(b.path for b in layout.slow))
    facts = branch_facts(inv, host, paths)
    # The rules layout check/apply refuse on: a layout they would not apply is not moved
    # (nor forecast) either.
    errors = [r for r in check_layout(layout, facts) if r.severity is RuleSeverity.ERROR]
    if errors:
        raise MoverRefused(RefusalKind.RULES, "; ".join(f"{r.rule}: {r.message}" for r in errors))
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(host.exclusive(f"mover-{layout_path.stem}"))
        except LockHeld:
            raise MoverRefused(RefusalKind.LOCKED, f"another mover runs {layout_path}") from None
        report = _locked(host, layout, layout_path, options, started, inv, facts, on_progress,
                         cancel, bench_history)  # fmt: skip
    _record(history, layout_path, report)
    return report


def _locked(
    host: Host,
    layout: Layout,
    layout_path: Path,
    options: MoverOptions,
    started: float,
    inv: Inventory,
    facts: Mapping[str, BranchFacts],
    on_progress: ProgressCallback,
    cancel: threading.Event,
    bench_history: WriteHistory | None,
) -> MoverReport:
    name = layout_path.stem
    recovered: tuple[RecoveryOutcome, ...] = ()

    def report(**kw: Any) -> MoverReport:
        base: dict[str, Any] = {
            "layout_name": name, "started": started, "finished": time.time(),
            "dry_run": options.dry_run, "planned": (), "outcomes": (), "recovered": recovered,
            "stopped": None, "message": "", "forecast_seconds": None, "noatime_branches": (),
        }  # fmt: skip
        return MoverReport(**{**base, **kw})

    engine: FileMover | None = None
    try:
        if not options.dry_run:
            journal = journal_dir(layout_path)
            host.make_dirs(str(journal))
            engine = host.file_mover(str(journal), verify=options.verify)
            recovered = engine.recover()
        bench = bench_history if bench_history is not None else _bench_history()
        fc = forecast(host, layout, inv, facts, started,
                      min_age_days=options.min_age_days, history=bench)  # fmt: skip
    except MoveStopped as stop:
        return report(stopped=stop.reason, message=f"recovery stopped: {stop.detail}")
    except TierdeckError as exc:
        return report(stopped=StopReason.ERROR, message=str(exc))
    plan = fc.plan
    planned = report(
        planned=plan.moves, forecast_seconds=fc.seconds, forecast_note=fc.note,
        noatime_branches=fc.noatime_branches, unplaced=plan.unplaced,
        unplaced_reason=fc.unplaced_reason,
    )  # fmt: skip
    if engine is None:  # a dry run stops at the forecast
        return dataclasses.replace(planned, message=_summary(planned))
    try:
        # The engine makes the folders under a destination, not the destination itself
        # (a folder of the slow pool the branch may not have yet).
        for folder in sorted({m.destination for m in plan.moves}):
            host.make_dirs(folder)
    except (TierdeckError, OSError) as exc:
        return dataclasses.replace(planned, stopped=StopReason.ERROR, message=str(exc))
    outcomes, stopped, detail = _execute(host, engine, plan.moves, on_progress, cancel)
    done = dataclasses.replace(planned, outcomes=outcomes, stopped=stopped, finished=time.time())
    message = _summary(done) + (f"; stopped: {detail}" if detail else "")
    return dataclasses.replace(done, message=message)


def _bench_history() -> WriteHistory:
    # Not the run store: its import is a cost paid before the first byte (the store
    # still opens a file of another schema version, migrating or refusing it).
    return HistoryWrites(default_history_path())


def _batches(moves: Sequence[PlannedMove]) -> list[Sequence[PlannedMove]]:
    out: list[Sequence[PlannedMove]] = []
    start, size = 0, 0
    for i, m in enumerate(moves):
        if i > start and (i - start >= BATCH_FILES or size + m.file.size > BATCH_BYTES):
            out.append(moves[start:i])
            start, size = i, 0
        size += m.file.size
    if start < len(moves):
        out.append(moves[start:])
    return out


def _execute(
    host: Host,
    engine: FileMover,
    moves: Sequence[PlannedMove],
    on_progress: ProgressCallback,
    cancel: threading.Event,
) -> tuple[tuple[MoveOutcome, ...], StopReason | None, str]:
    progress = ProgressMeter(moves, on_progress, TICK)
    ticker = threading.Thread(target=progress.tick, name="mover-progress", daemon=True)
    ticker.start()
    outcomes: tuple[MoveOutcome, ...] = ()
    stopped: StopReason | None = None
    detail = ""
    try:
        # One call for every batch: the engine looks up the open files before each
        # and keeps its copies going from one batch to the next.
        outcomes = engine.move_batches(_batches(moves), lambda: host.open_files().paths, cancel,
                                       progress.on_bytes, progress.on_outcome,
                                       progress.on_step)  # fmt: skip
    except MoveStopped as stop:
        outcomes = stop.outcomes
        stopped, detail = stop.reason, stop.detail
    except TierdeckError as exc:
        stopped, detail = StopReason.ERROR, str(exc)
    finally:
        progress.stop.set()
        ticker.join()
    progress.settle(outcomes)
    on_progress(progress.snapshot())
    return tuple(outcomes), stopped, detail


def _summary(report: MoverReport) -> str:
    if report.dry_run:
        size = sum(m.file.size for m in report.planned)
        text = f"would move {counted(len(report.planned), 'file')}, {format_bytes(size)}"
    else:
        text = f"moved {counted(report.files_moved, 'file')}, {format_bytes(report.bytes_moved)}"
        if report.skipped:
            text += f"; skipped {len(report.skipped)}"
    if report.unplaced:
        text += f"; {counted(len(report.unplaced), 'selected file')} fit on no slow branch"
        text += f" ({report.unplaced_reason})" if report.unplaced_reason else ""
    if report.recovered:
        text += f"; recovered {counted(len(report.recovered), 'move')} a crash left"
    return text


def record_of(report: MoverReport, layout_path: str) -> MoverRecord:
    """What the mover history keeps of ``report`` (the view draws its runs from it too)."""
    skipped = tuple(SkippedFile(o.move.file.rel, o.skip, o.detail)
                    for o in report.skipped if o.skip is not None)  # fmt: skip
    return MoverRecord(
        report.layout_name, layout_path, report.started,
        report.finished - report.started, report.dry_run, len(report.planned),
        sum(m.file.size for m in report.planned), report.files_moved, report.bytes_moved,
        skipped, len(report.recovered), report.stopped, None, report.message,
        unplaced=len(report.unplaced),
    )  # fmt: skip


def _record(history: MoverHistory | None, layout_path: Path, report: MoverReport) -> None:
    _store(history, record_of(report, str(layout_path.absolute())))


def _record_refusal(history: MoverHistory | None, layout_path: Path, options: MoverOptions,
                    started: float, refused: MoverRefused) -> None:  # fmt: skip
    _store(history, MoverRecord(
        layout_path.stem, str(layout_path.absolute()), started, time.time() - started,
        options.dry_run, 0, 0, 0, 0, (), 0, None, str(refused.kind), refused.detail,
    ))  # fmt: skip


def _store(history: MoverHistory | None, record: MoverRecord) -> None:
    # A record that cannot be written must not turn a finished move into a failure:
    # the report (and the journal, systemd's log) still say what happened.
    try:
        (history or MoverHistory()).add(record)
    except MoverHistoryError as exc:
        log.warning("mover run not recorded: %s", exc)
