"""The runs marked for a comparison in the history list, in the order they were marked.

The first marked run is the comparison's baseline, so the order is kept, and a mark
survives a filter or the failed/cancelled view (the run simply is not listed there).
What cannot compare is refused as it is marked, with core.compare's own
``CompareRefused`` kinds, so the screen words its notice by kind, never by text:
a failed or cancelled run (NOT_OK), a ninth run (TOO_MANY); ``check`` refuses fewer
than two (TOO_FEW). Plain state, no Textual: the history screen holds one.
"""

from __future__ import annotations

from ...core.bench_models import RunResult, RunStatus
from ...core.compare.comparison import MAX_RUNS, MIN_RUNS, CompareRefused, RefusalKind


class CompareMarks:
    def __init__(self) -> None:
        self._runs: dict[int, RunResult] = {}  # insertion order is marking order

    def __len__(self) -> int:
        return len(self._runs)

    @property
    def ids(self) -> list[int]:
        return list(self._runs)

    def order(self, run_id: int | None) -> int | None:
        """1 for the baseline (the first marked), 2 for the next ...; None: unmarked."""
        if run_id is None or run_id not in self._runs:
            return None
        return self.ids.index(run_id) + 1

    def add(self, run: RunResult) -> None:
        """Mark ``run`` (nothing if it is marked already); CompareRefused if it cannot
        take part in a comparison or the comparison is full."""
        assert run.id is not None  # listed runs are stored ones
        if run.id in self._runs:
            return
        if run.status is not RunStatus.OK:
            raise CompareRefused(
                f"run #{run.id} {run.status}: only successful runs compare", RefusalKind.NOT_OK
            )
        if len(self._runs) >= MAX_RUNS:
            raise CompareRefused(f"compare takes at most {MAX_RUNS} runs", RefusalKind.TOO_MANY)
        self._runs[run.id] = run

    def toggle(self, run: RunResult) -> bool:
        """Unmark a marked run, else mark it (see ``add``); True when now marked."""
        if run.id in self._runs:
            del self._runs[run.id]
            return False
        self.add(run)
        return True

    def discard(self, run_id: int) -> None:
        self._runs.pop(run_id, None)

    def clear(self) -> None:
        self._runs.clear()

    def check(self) -> list[int]:
        """The marked ids, baseline first; CompareRefused (TOO_FEW) below two."""
        if len(self._runs) < MIN_RUNS:
            raise CompareRefused(
                f"compare needs at least {MIN_RUNS} runs, {len(self._runs)} marked",
                RefusalKind.TOO_FEW,
            )
        return self.ids
