"""A ladder as the history keeps it, rebuilt: the run set (kind LADDER, its definition
from ``LadderPlan.definition``) and its cells, one per rung (``PlannedRung.key``:
``branch:PATH``, ``pool``, ``tmpfs``, ``nullrw``, ``network`` (a client over its mount
of the pool), or ``NAME=VALUE`` of an option rung), each naming the rung's run.

A rung skipped before fio ran has no run; its cell keeps the reason (``notes``), shown
again. A rung whose run was deleted from the history comes back skipped as "no run
stored". A cancelled or failed run comes back skipped with its status, as
``run_ladder`` reported it.
"""

from __future__ import annotations

from typing import Any

from ...core.bench_models import RunResult, RunStatus
from ...core.errors import TierdeckError
from ...core.ladder.model import (
    BranchRole,
    LadderResult,
    Rung,
    RungKind,
    bandwidth_spread,
    with_penalties,
)
from ..history.run_sets import RunSetKind, RunSetStore

BRANCH_KEY = "branch:"
NOT_STORED = "no run stored (skipped before fio ran, or its run was deleted)"
_LAYERS = (RungKind.POOL, RungKind.TMPFS, RungKind.NULLRW)
NETWORK_KEY = RungKind.NETWORK.value


class LadderNotFound(TierdeckError):
    """No ladder with that id in the history (or the id is a sweep's)."""


def rung_of_key(key: str) -> tuple[RungKind, str | None, tuple[str, str] | None]:
    """A cell key's rung: its kind, a branch rung's path, an option rung's (name, value)."""
    if key.startswith(BRANCH_KEY):
        return RungKind.BRANCH, key[len(BRANCH_KEY) :], None
    if key in {k.value for k in (*_LAYERS, RungKind.NETWORK)}:
        return RungKind(key), None, None
    name, _, value = key.partition("=")
    return RungKind.OPTION, None, (name, value)


def expected_keys(definition: dict[str, Any]) -> list[str]:
    """The rungs every ladder of this definition has (branch rungs depend on the pool's
    policy at the time, so only those stored are known)."""
    option = definition.get("option")
    if isinstance(option, dict):
        name = str(option.get("name"))
        return ["pool", *(f"{name}={v}" for v in option.get("values") or ())]
    network = [NETWORK_KEY] if isinstance(definition.get("client"), dict) else []
    return [k.value for k in _LAYERS] + network


def stored_role(definition: dict[str, Any], path: str | None) -> BranchRole | None:
    """A branch rung's role as the plan named it (ladders stored before: None)."""
    roles = definition.get("branch_roles")
    if path is None or not isinstance(roles, dict):
        return None
    try:
        return BranchRole(str(roles.get(path)))
    except ValueError:
        return None


def _rung(
    key: str, run: RunResult | None, note: str | None = None, role: BranchRole | None = None
) -> Rung:
    kind, path, option = rung_of_key(key)
    if run is None:
        return Rung(kind, path or "-", option=option, skipped=note or NOT_STORED, role=role)
    where = run.target.path  # a throwaway rung's mountpoint, as it was
    if kind is RungKind.NETWORK:
        where = run.target.label  # HOST:PATH, the client and its mount of the pool
    status = RunStatus(run.status)
    if status is RunStatus.CANCELLED:
        return Rung(kind, where, run.id, skipped="cancelled", option=option, role=role)
    if status is RunStatus.FAILED:
        why = f"fio failed: {run.error or 'no message'}"
        return Rung(kind, where, run.id, skipped=why, option=option, role=role)
    spread = bandwidth_spread(run.summary, run.series)
    return Rung(kind, where, run.id, dict(run.summary), option=option, role=role, spread_pct=spread)


def stored_text(definition: dict[str, Any], key: str) -> str | None:
    value = definition.get(key)
    return value if isinstance(value, str) else None


def load_ladder(store: RunSetStore, set_id: int) -> LadderResult:
    """Stored ladder ``set_id`` with its penalties; raises LadderNotFound."""
    found = store.get_set(set_id)
    if found is None or found.kind is not RunSetKind.LADDER:
        raise LadderNotFound(f"no ladder #{set_id} in the history")
    runs = store.cells(set_id)  # in rung order
    notes = store.notes(set_id)
    keys = [k for k in {**runs, **notes} if k.startswith(BRANCH_KEY)]
    layers = not isinstance(found.definition.get("option"), dict)
    if layers and not keys:  # no branch rung ran: still a row, as run_ladder showed it
        keys.append(f"{BRANCH_KEY}-")
    keys += expected_keys(found.definition)
    keys += [k for k in runs if k not in keys]  # anything else stored, in its order
    definition = found.definition
    rungs = [
        _rung(
            key,
            store.get(runs[key]) if key in runs else None,
            notes.get(key),
            stored_role(definition, rung_of_key(key)[1]),
        )
        for key in keys
    ]
    pool = str(definition.get("pool") or found.name)
    job, refused = stored_text(definition, "job"), stored_text(definition, "direct_refused")
    return LadderResult(set_id, pool, with_penalties(rungs), job, refused)
