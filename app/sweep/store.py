"""A sweep as the history keeps it: its definition (the run set's JSON) and its cells.

The definition is what ``--resume`` compares against the file it is given, and what
``bench sweep-export ID`` rebuilds the sweep from: the spec as read (name, target,
base options or preset, axes in order) plus the command line's target, runtime and
size. :func:`load_result` gathers the cells' runs from the history; a cell whose run
was deleted comes back missing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ...core.errors import TierdeckError
from ...core.sweep.model import SWEEP_SCHEMA, Axis, CellResult, SweepResult, SweepSpec
from ..history.run_sets import RunSet, RunSetKind, RunSetStore


class SweepNotFound(TierdeckError):
    """No sweep with that id in the history (or the id is a ladder's)."""


@dataclass(frozen=True)
class SweepSettings:
    """What the command line adds to a sweep file."""

    target: str | None = None  # the target when the sweep has no targets axis
    runtime: int | None = None
    size: str | None = None


def definition_of(spec: SweepSpec, settings: SweepSettings) -> dict[str, Any]:
    """The run set's definition: plain JSON values, compared as JSON on resume."""
    definition = {
        "schema": SWEEP_SCHEMA,
        "name": spec.name,
        "target": spec.target,
        "preset": spec.preset,
        "base": dict(spec.base),
        "axes": [{"name": a.name, "values": list(a.values)} for a in spec.axes],
        "settings": {
            "target": settings.target,
            "runtime": settings.runtime,
            "size": settings.size,
        },
    }
    # through JSON once, so that it compares equal to what the store gives back
    normalised: dict[str, Any] = json.loads(json.dumps(definition, sort_keys=True))
    return normalised


def differences(stored: dict[str, Any], wanted: dict[str, Any]) -> list[str]:
    """The top-level keys (settings.* spelled out) on which two definitions differ."""
    keys: list[str] = []
    for key in sorted(set(stored) | set(wanted)):
        old, new = stored.get(key), wanted.get(key)
        if key == "settings" and isinstance(old, dict) and isinstance(new, dict):
            keys += [f"--{k}" for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]
        elif old != new:
            keys.append(key)
    return keys


def spec_of(definition: dict[str, Any]) -> tuple[SweepSpec, SweepSettings]:
    """The spec and settings back from a stored definition (written by definition_of)."""
    try:
        axes = tuple(Axis(str(a["name"]), tuple(a["values"])) for a in definition["axes"])
        settings = definition.get("settings") or {}
        return (
            SweepSpec(
                axes=axes,
                base=dict(definition.get("base") or {}),
                preset=definition.get("preset"),
                name=definition.get("name"),
                target=definition.get("target"),
            ),
            SweepSettings(settings.get("target"), settings.get("runtime"), settings.get("size")),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise TierdeckError(f"the stored sweep definition is unreadable: {exc}") from exc


def sweep_set(store: RunSetStore, set_id: int) -> RunSet:
    found = store.get_set(set_id)
    if found is None or found.kind is not RunSetKind.SWEEP:
        raise SweepNotFound(f"no sweep #{set_id} in the history (tierdeck bench sweeps)")
    return found


def load_result(store: RunSetStore, set_id: int) -> SweepResult:
    """Every cell of stored sweep ``set_id`` with its run's status and summary."""
    run_set = sweep_set(store, set_id)
    spec, _ = spec_of(run_set.definition)
    return result_of(store, set_id, spec)


def result_of(store: RunSetStore, set_id: int, spec: SweepSpec) -> SweepResult:
    runs = store.cells(set_id)
    cells: list[CellResult] = []
    for cell in spec.cells():
        run_id = runs.get(cell.key)
        run = store.get(run_id) if run_id is not None else None
        if run is None:
            cells.append(CellResult(cell))
            continue
        cells.append(CellResult(cell, run.id, str(run.status), dict(run.summary)))
    return SweepResult(set_id, spec, tuple(cells))
