"""The compare view over a history of recorded runs (tests/fixtures/bench_screens),
for snapshots and Pilot tests: nothing on it comes from the clock.

``COMPARED`` are real lab NAS runs: a buffered 1M write through mergerfs (cache
warning), a 4k randrw on one branch (both directions), the stonewall step (two jobs,
matched by position), the same pool write with direct=1 refused, and seed 002's
four-job suite. ``fill_compare_history`` stores them as runs 1 to 5 in that order.
"""

from __future__ import annotations

from pathlib import Path

from textual.app import App
from tierdeck.app.history.store import HistoryStore

from tests.snapshots.apps.bench_data import fill_history

COMPARED = ("pool_write", "branch_randrw", "stonewall_step", "pool_buffered", "suite_mixed")


def fill_compare_history(path: Path) -> list[int]:
    return fill_history(HistoryStore(path), COMPARED)


class CompareApp(App[None]):
    """Just the compare screen, for the runs ``run_ids`` of the history at ``store_path``."""

    CSS_PATH = "../../../app/tui/tierdeck.tcss"
    ENABLE_COMMAND_PALETTE = False  # as in TierdeckApp

    def __init__(self, store_path: Path, run_ids: list[int]) -> None:
        super().__init__()
        self.store_path = store_path
        self.run_ids = run_ids
        self.title = "tierdeck — nas"

    def on_mount(self) -> None:
        from tierdeck.screens.history.compare import CompareScreen

        self.push_screen(
            CompareScreen(self.run_ids, store_factory=lambda: HistoryStore(self.store_path))
        )
