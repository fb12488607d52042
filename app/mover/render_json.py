"""The ``--json`` objects of ``tierdeck mover run`` and ``mover history``
(docs/mover-json.md documents every key)."""

from __future__ import annotations

from typing import Any

from ...core.mover import MoveOutcome, PlannedMove
from .history import MoverRecord
from .progress import MoverProgress
from .run import MoverRefused, MoverReport

RUN_SCHEMA = "tierdeck.mover-run/1"
HISTORY_SCHEMA = "tierdeck.mover-history/1"
PROGRESS_SCHEMA = "tierdeck.mover-progress/1"
REFUSED_SCHEMA = "tierdeck.mover-refused/1"


def _planned(m: PlannedMove) -> dict[str, Any]:
    f = m.file
    return {"branch": f.branch, "rel": f.rel, "size": f.size, "reason": str(m.reason),
            "destination": m.destination, "symlink": f.is_symlink}  # fmt: skip


def _outcome(o: MoveOutcome) -> dict[str, Any]:
    return {**_planned(o.move), "moved": o.moved,
            "skip": None if o.skip is None else str(o.skip), "detail": o.detail}  # fmt: skip


def report_to_dict(report: MoverReport, layout_path: str) -> dict[str, Any]:
    planned_bytes = sum(m.file.size for m in report.planned)
    return {
        "schema": RUN_SCHEMA,
        "layout": {"name": report.layout_name, "path": layout_path},
        "dry_run": report.dry_run,
        "started": report.started,
        "finished": report.finished,
        "forecast": {
            "files": len(report.planned),
            "bytes": planned_bytes,
            "seconds": report.forecast_seconds,
            "note": report.forecast_note,
        },
        "planned": [_planned(m) for m in report.planned],
        "outcomes": [_outcome(o) for o in report.outcomes],
        "unplaced": [
            {
                "branch": u.file.branch,
                "rel": u.file.rel,
                "size": u.file.size,
                "reason": str(u.reason),
                "error": None if u.error is None else str(u.error),
            }
            for u in report.unplaced
        ],  # fmt: skip
        "unplaced_reason": report.unplaced_reason,
        "recovered": [
            {
                "rel": r.rel,
                "source": r.source,
                "destination": r.destination,
                "action": str(r.action),
                "detail": r.detail,
            }
            for r in report.recovered
        ],  # fmt: skip
        "noatime_branches": list(report.noatime_branches),
        "files_moved": report.files_moved,
        "bytes_moved": report.bytes_moved,
        "skipped": len(report.skipped),
        "stopped": None if report.stopped is None else str(report.stopped),
        "ok": report.ok,
        "message": report.message,
    }


def record_to_dict(record: MoverRecord) -> dict[str, Any]:
    return {
        "id": record.id,
        "layout": {"name": record.layout_name, "path": record.layout_path},
        "started": record.started,
        "duration_seconds": record.duration,
        "dry_run": record.dry_run,
        "files_planned": record.files_planned,
        "bytes_planned": record.bytes_planned,
        "files_moved": record.files_moved,
        "bytes_moved": record.bytes_moved,
        "skipped": [
            {"rel": s.rel, "reason": str(s.reason), "detail": s.detail} for s in record.skipped
        ],  # fmt: skip
        "recovered": record.recovered,
        "stopped": None if record.stopped is None else str(record.stopped),
        "refused": record.refused,
        "failed": record.failed,
        "message": record.message,
        "unplaced": record.unplaced,
    }


def history_to_dict(records: list[MoverRecord]) -> dict[str, Any]:
    return {"schema": HISTORY_SCHEMA, "runs": [record_to_dict(r) for r in records]}


def progress_to_dict(p: MoverProgress) -> dict[str, Any]:
    step = None if p.step is None else {"phase": str(p.step.phase), "files": p.step.files,
                                        "size": p.step.size}  # fmt: skip
    return {
        "schema": PROGRESS_SCHEMA,
        "files_done": p.files_done,
        "files_total": p.files_total,
        "files_skipped": p.files_skipped,
        "bytes_done": p.bytes_done,
        "bytes_total": p.bytes_total,
        "rate_bps": p.rate_bps,
        "eta_seconds": p.eta_seconds,
        "current": p.current,
        "step": step,
    }


def refused_to_dict(refused: MoverRefused) -> dict[str, Any]:
    return {"schema": REFUSED_SCHEMA, "kind": str(refused.kind), "detail": refused.detail}
