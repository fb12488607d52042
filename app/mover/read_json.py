"""The mover's JSON read back into its types: what another machine's ``tierdeck mover
run --json-lines`` and ``mover history --json`` print (docs/mover-json.md), so the
mover view draws a host's run exactly as it draws one of this machine.

Only the keys the schema documents are read; one that is missing or of the wrong type
is a ``MoverJsonError`` (an older or newer tierdeck on the host), never a crash.
"""

from __future__ import annotations

from typing import Any

from ...core.errors import TierdeckError
from ...core.mergerfs_policy import CreateErrno
from ...core.mover import (
    CachedFile,
    MoveOutcome,
    MovePhase,
    MoveReason,
    MoveStep,
    PlannedMove,
    RecoveryAction,
    RecoveryOutcome,
    SkipReason,
    StopReason,
    Unplaced,
)
from .history import MoverRecord, SkippedFile
from .progress import MoverProgress
from .render_json import HISTORY_SCHEMA, PROGRESS_SCHEMA, REFUSED_SCHEMA, RUN_SCHEMA
from .run import MoverRefused, MoverReport, RefusalKind


class MoverJsonError(TierdeckError):
    """A document that is not what this tierdeck's schema says."""


def _file(d: dict[str, Any]) -> CachedFile:
    # A forecast's file: its times are not in the JSON (the view never draws them).
    return CachedFile(branch=str(d["branch"]), rel=str(d["rel"]), size=int(d["size"]),
                      atime=0.0, mtime=0.0, is_symlink=bool(d.get("symlink", False)))  # fmt: skip


def _planned(d: dict[str, Any]) -> PlannedMove:
    return PlannedMove(_file(d), str(d["destination"]), MoveReason(d["reason"]))


def _outcome(d: dict[str, Any]) -> MoveOutcome:
    skip = None if d.get("skip") is None else SkipReason(d["skip"])
    return MoveOutcome(_planned(d), bool(d["moved"]), skip, str(d.get("detail") or ""))


def _unplaced(d: dict[str, Any]) -> Unplaced:
    error = None if d.get("error") is None else CreateErrno(d["error"])
    return Unplaced(_file(d), MoveReason(d["reason"]), error)


def _recovered(d: dict[str, Any]) -> RecoveryOutcome:
    return RecoveryOutcome(str(d["rel"]), str(d["source"]), str(d["destination"]),
                           RecoveryAction(d["action"]), str(d.get("detail") or ""))  # fmt: skip


def _stop(value: Any) -> StopReason | None:
    return None if value is None else StopReason(value)


def _checked(d: Any, schema: str) -> dict[str, Any]:
    if not isinstance(d, dict) or d.get("schema") != schema:
        found = d.get("schema") if isinstance(d, dict) else type(d).__name__
        raise MoverJsonError(f"expected {schema}, got {found}")
    return d


def report_from_dict(d: Any) -> MoverReport:
    d = _checked(d, RUN_SCHEMA)
    try:
        forecast = d["forecast"]
        return MoverReport(
            layout_name=str(d["layout"]["name"]),
            started=float(d["started"]),
            finished=float(d["finished"]),
            dry_run=bool(d["dry_run"]),
            planned=tuple(_planned(m) for m in d["planned"]),
            outcomes=tuple(_outcome(o) for o in d["outcomes"]),
            recovered=tuple(_recovered(r) for r in d["recovered"]),
            stopped=_stop(d["stopped"]),
            message=str(d["message"]),
            forecast_seconds=forecast["seconds"],
            noatime_branches=tuple(d["noatime_branches"]),
            forecast_note=str(forecast.get("note") or ""),
            unplaced=tuple(_unplaced(u) for u in d["unplaced"]),
            unplaced_reason=str(d.get("unplaced_reason") or ""),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise MoverJsonError(f"{RUN_SCHEMA}: {type(exc).__name__} {exc}") from None


def progress_from_dict(d: Any) -> MoverProgress:
    d = _checked(d, PROGRESS_SCHEMA)
    try:
        step = d.get("step")
        return MoverProgress(
            files_done=int(d["files_done"]),
            files_total=int(d["files_total"]),
            bytes_done=int(d["bytes_done"]),
            bytes_total=int(d["bytes_total"]),
            rate_bps=d["rate_bps"],
            eta_seconds=d["eta_seconds"],
            current=d["current"],
            files_skipped=int(d.get("files_skipped", 0)),
            step=None
            if step is None
            else MoveStep(MovePhase(step["phase"]), int(step["files"]), int(step["size"])),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise MoverJsonError(f"{PROGRESS_SCHEMA}: {type(exc).__name__} {exc}") from None


def refused_from_dict(d: Any) -> MoverRefused:
    d = _checked(d, REFUSED_SCHEMA)
    try:
        return MoverRefused(RefusalKind(d["kind"]), str(d["detail"]))
    except (KeyError, ValueError) as exc:
        raise MoverJsonError(f"{REFUSED_SCHEMA}: {type(exc).__name__} {exc}") from None


def _record(d: dict[str, Any]) -> MoverRecord:
    skipped = tuple(SkippedFile(str(s["rel"]), SkipReason(s["reason"]), str(s.get("detail") or ""))
                    for s in d["skipped"])  # fmt: skip
    return MoverRecord(
        layout_name=str(d["layout"]["name"]),
        layout_path=str(d["layout"]["path"]),
        started=float(d["started"]),
        duration=float(d["duration_seconds"]),
        dry_run=bool(d["dry_run"]),
        files_planned=int(d["files_planned"]),
        bytes_planned=int(d["bytes_planned"]),
        files_moved=int(d["files_moved"]),
        bytes_moved=int(d["bytes_moved"]),
        skipped=skipped,
        recovered=int(d["recovered"]),
        stopped=_stop(d["stopped"]),
        refused=d["refused"],
        message=str(d["message"]),
        id=d.get("id"),
        unplaced=int(d.get("unplaced", 0)),
    )


def history_from_dict(d: Any) -> list[MoverRecord]:
    d = _checked(d, HISTORY_SCHEMA)
    try:
        return [_record(r) for r in d["runs"]]
    except (KeyError, TypeError, ValueError) as exc:
        raise MoverJsonError(f"{HISTORY_SCHEMA}: {type(exc).__name__} {exc}") from None
