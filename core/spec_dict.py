"""A job spec as a dict: how the history stores a run's jobs and how ``--json`` prints
them. Field names are JobSpec's; an option an imported file did not state is null.

Apart from the inventory's JSON (serialize.py) because every read of the history needs
it and none needs the inventory's types (their dataclasses cost a CLI's start ~10 ms).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .jobspec import SPEC_OPTIONS, JobSpec


def spec_to_dict(job: JobSpec) -> dict[str, Any]:
    """A job as JSON; an option its imported file did not state is null, never fio's
    default ("stated" lists the ones it did; null: all are known)."""
    out = {f.name: getattr(job, f.name) for f in dataclasses.fields(job)}
    out["extra"] = dict(job.extra)
    out["stated"] = None if job.stated is None else sorted(job.stated)
    for option in SPEC_OPTIONS:
        if not job.states(option):
            out[option] = None
    return out


def spec_from_dict(data: dict[str, Any]) -> JobSpec:
    """The inverse of spec_to_dict, also for runs stored before "stated" existed."""
    stated = data.get("stated")
    known = {k: v for k, v in data.items() if v is not None and k != "stated"}
    # rw is the one option JobSpec cannot be without: an imported job whose rw was not
    # understood was built with fio's default and stored as null (unknown); it comes back
    # the same way, still unknown because "stated" leaves it out.
    known.setdefault("rw", "read")
    return JobSpec(**known, stated=None if stated is None else frozenset(stated))
