"""A ``--clients`` run as the ``tierdeck.clients/1`` JSON object (docs/bench-json.md)
and as text; each ``summary`` is the one of ``tierdeck.run/1``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.bench_models import DirectionSummary, RunStatus
from ..history.run_json import DIRECTIONS, direction_json
from .run import ClientsResult
from .store import StoredClients, StoredRow

SCHEMA = "tierdeck.clients/1"


def summary_json(summary: Mapping[str, DirectionSummary]) -> dict[str, Any]:
    return {d: direction_json(summary.get(d)) for d in DIRECTIONS}


def clients_json(result: ClientsResult, stored: StoredClients | None) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "id": None if stored is None else stored.set_id,
        "hosts": [
            {
                "host": h.name,
                "run_id": None if stored is None else stored.run_ids.get(h.name),
                "summary": summary_json(h.summary),
                "status": RunStatus(h.status).value,
                "error": h.error,
            }
            for h in result.hosts
        ],
        "aggregate": {"summary": summary_json(result.aggregate)},
    }


def clients_lines(result: ClientsResult, stored: StoredClients | None) -> list[str]:
    rows = [(h.name, h.summary, h.error) for h in result.hosts]
    rows.append(("all clients", result.aggregate, None))
    width = max(len(r[0]) for r in rows)
    lines = [f"{'host':<{width}}  dir    MiB/s       IOPS  lat mean    lat p99"]
    for name, summary, error in rows:
        if error is not None:
            lines.append(f"{name:<{width}}  failed: {error}")
        for direction in DIRECTIONS:
            d = summary.get(direction)
            if d is None:
                continue
            lines.append(
                f"{name:<{width}}  {direction:<5} {d.bw_bytes / 1048576:>8.1f} "
                f"{_num(d.iops):>10}  {_lat(d.lat_mean_ns):>8}  {_lat(d.lat_p99_ns):>9}"
            )
    if len(result.hosts) > 1:
        lines.append(_p99_note(result.aggregate))
    lines.append(f"set-up before the first I/O: {result.setup_s:.2f} s")
    if stored is not None:
        lines.append(
            f"saved as clients:{stored.set_id}, runs "
            + ", ".join(f"#{i}" for i in stored.run_ids.values())
            + (f", all clients #{stored.aggregate_id}" if stored.aggregate_id else "")
        )
    return lines


def summary_line(summary: Mapping[str, DirectionSummary]) -> str:
    """A run's figures on one line: each direction's MiB/s, IOPS and p99."""
    parts = [
        f"{direction} {d.bw_bytes / 1048576:.1f} MiB/s {_num(d.iops)} IOPS p99 {_lat(d.lat_p99_ns)}"
        for direction in DIRECTIONS
        if (d := summary.get(direction)) is not None
    ]
    return "; ".join(parts) or "no I/O"


def row_line(row: StoredRow) -> str:
    """A stored set's host (or total) on one line: its figures, or why it failed."""
    return summary_line(row.summary) if row.ok else row.why or "failed"


def _p99_note(aggregate: Mapping[str, DirectionSummary]) -> str:
    """How the total's p99 was had: fio's "All clients" has no percentiles."""
    if any(d.lat_p99_ns is not None for d in aggregate.values()):
        return "all clients' p99: every host's latency histogram merged (a true percentile)"
    return "all clients' p99: none (fio gave no latency histograms to merge)"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"


def _lat(ns: float | None) -> str:
    if ns is None:
        return "-"
    return f"{ns / 1000:.0f} us" if ns < 10_000_000 else f"{ns / 1e6:.1f} ms"
