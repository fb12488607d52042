"""The fleet as ``tierdeck.fleet/1`` JSON (docs/fleet-json.md) and as the short cells
the table of ``tierdeck fleet`` and the fleet screen show."""

from __future__ import annotations

from typing import Any

from ...core.models import Problem, Severity
from .status import CacheState, HostStatus, PoolState

SCHEMA = "tierdeck.fleet/1"
COLUMNS = ("host", "state", "problems", "pools", "cache", "last bench")


def _pool_dict(pool: PoolState) -> dict[str, Any]:
    return {"kind": pool.kind, "name": pool.name, "state": pool.state,
            "health": pool.health, "used_pct": _round(pool.used_pct)}  # fmt: skip


def _cache_dict(cache: CacheState) -> dict[str, Any]:
    return {"pool": cache.pool, "used_pct": _round(cache.used_pct),
            "fill_high_pct": cache.high_pct, "fill_low_pct": cache.low_pct,
            "layout_known": cache.high_pct is not None,
            "above_high": cache.above_high}  # fmt: skip


def _problem_dict(problem: Problem) -> dict[str, str]:
    return {"severity": str(problem.severity), "subject": problem.subject,
            "message": problem.message}  # fmt: skip


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def host_dict(status: HostStatus) -> dict[str, Any]:
    return {
        "name": status.name,
        "target": status.target,
        "reachable": status.reachable,
        "error": status.error,
        "hostname": status.hostname,
        "problems": [_problem_dict(p) for p in status.problems],
        "pools": [_pool_dict(p) for p in status.pools],
        "cache": [_cache_dict(c) for c in status.cache],
        "last_bench": status.last_bench,
        "seconds": _round(status.seconds),
        "needs_secret": status.needs_secret,
    }


def fleet_dict(statuses: list[HostStatus], timeout: float) -> dict[str, Any]:
    return {"schema": SCHEMA, "timeout": timeout, "hosts": [host_dict(s) for s in statuses]}


# ----------------------------------------------------------------------------- cells


# What the fleet screen's row says of a host that wants a secret: enter asks for it.
SIGN_IN_ON_ENTER = "enter to sign in"


def state_cell(status: HostStatus) -> str:
    if status.needs_secret:
        return "login"  # up, and asking for a password or passphrase
    return "up" if status.reachable else "down"


def problems_cell(status: HostStatus, *, screen: bool = False) -> str:
    """Counts by severity ("2 crit, 1 warn", "none"); a host that is down: its error (without the target,
    which the row already names). A host that wants a secret: what to run, or on the
    fleet screen (``screen``), that enter signs in."""
    if status.needs_secret and screen:
        return f"needs {status.needs_secret} ({SIGN_IN_ON_ENTER})"
    if not status.reachable:
        error = status.error or "unreachable"
        return error.removeprefix(f"{status.target}: ")
    counts = {s: sum(p.severity is s for p in status.problems) for s in Severity}
    parts = [f"{counts[Severity.CRITICAL]} crit" if counts[Severity.CRITICAL] else "",
             f"{counts[Severity.WARNING]} warn" if counts[Severity.WARNING] else "",
             f"{counts[Severity.INFO]} info" if counts[Severity.INFO] else ""]  # fmt: skip
    return ", ".join(p for p in parts if p) or "none"


def pools_cell(status: HostStatus) -> str:
    """How many pools, and how many are not healthy: "3 ok", "2: 1 crit"."""
    if not status.reachable:
        return ""
    if not status.pools:
        return "none"
    bad = [f"{n} {short}" for health, short in (("critical", "crit"), ("warning", "warn"))
           if (n := sum(p.health == health for p in status.pools))]  # fmt: skip
    return f"{len(status.pools)}: {', '.join(bad)}" if bad else f"{len(status.pools)} ok"


def cache_cell(status: HostStatus) -> str:
    """The fullest cache against its mover's high watermark ("83% >80"), or, with no
    layout known, the fullest mergerfs pool ("45% pool")."""
    if not status.reachable or not status.cache:
        return ""
    known = [c for c in status.cache if c.high_pct is not None and c.used_pct is not None]
    if known:
        worst = max(known, key=lambda c: (c.above_high, c.used_pct or 0.0))
        mark = ">" if worst.above_high else "<="
        return f"{worst.used_pct:.0f}% {mark}{worst.high_pct}"
    fills = [c.used_pct for c in status.cache if c.used_pct is not None]
    return f"{max(fills):.0f}% pool" if fills else ""


def bench_cell(status: HostStatus) -> str:
    return status.last_bench or ""


def row_cells(status: HostStatus, *, screen: bool = False) -> tuple[str, ...]:
    """The row's cells; ``screen``: the fleet screen's (enter signs in there)."""
    return (status.name, state_cell(status), problems_cell(status, screen=screen),
            pools_cell(status), cache_cell(status), bench_cell(status))  # fmt: skip


def fleet_text(statuses: list[HostStatus], width: int | None = None) -> str:
    """A plain table, columns as wide as their widest cell; a host that is down has its
    error after its state, across the other columns. Lines are cut to ``width`` (a
    terminal's) when given."""
    up = [row_cells(s) for s in statuses if s.reachable]
    widths = [max(len(r[i]) for r in [COLUMNS, *up]) for i in range(len(COLUMNS))]
    widths[0] = max([widths[0], *(len(s.name) for s in statuses)])
    lines = []
    for status in [None, *statuses]:
        if status is not None and not status.reachable:
            cells: tuple[str, ...] = (status.name, state_cell(status), problems_cell(status))
        else:
            cells = COLUMNS if status is None else row_cells(status)
        line = "  ".join(cell.ljust(w) for cell, w in zip(cells, widths, strict=False)).rstrip()
        if width is not None and len(line) > width:
            line = line[: width - 1] + "…"
        lines.append(line)
    return "\n".join(lines)
