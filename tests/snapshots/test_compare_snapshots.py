"""SVG snapshots of the compare view, on runs recorded on the lab NAS
(tests/snapshots/apps/compare.py): the table at 80x24 (three runs, a job matched by
position, both directions) and 160x50 (five runs, seed 002's four jobs), the
comparability panel, the overlay charts, and the history list with runs marked.
Plain sync functions, fixed sizes, nothing from the clock. Update after a deliberate UI
change with ``pytest tests/snapshots --snapshot-update`` and look at the SVGs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from tierdeck.screens.history.compare import CompareScreen
from tierdeck.screens.history.history import HistoryScreen

from tests.snapshots.apps.bench_data import HistoryApp
from tests.snapshots.apps.compare import CompareApp, fill_compare_history
from tests.waiting import wait_until

SMALL = (80, 24)
LARGE = (160, 50)


@pytest.fixture
def history_path(tmp_path: Path) -> Path:
    path = tmp_path / "history.sqlite3"
    assert fill_compare_history(path) == [1, 2, 3, 4, 5]
    return path


def compared(*keys: str):  # type: ignore[no-untyped-def]
    async def run_before(pilot: Pilot[None]) -> None:
        def loaded() -> bool:
            screen = pilot.app.screen
            return isinstance(screen, CompareScreen) and screen.comparison is not None

        await wait_until(pilot, loaded, "the comparison")
        await pilot.press(*keys)
        await pilot.pause()

    return run_before


def test_compare_table_80x24(snap_compare, history_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Three runs: the randrw's read rows, the stonewall step's two jobs by position."""
    app = CompareApp(history_path, [1, 2, 3])
    assert snap_compare(app, terminal_size=SMALL, run_before=compared())


def test_compare_table_160x50(snap_compare, history_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Five runs; the same pool write with direct=1 refused is within noise (≈)."""
    app = CompareApp(history_path, [1, 4, 2, 3, 5])
    assert snap_compare(app, terminal_size=LARGE, run_before=compared())


def test_compare_differences_80x24(snap_compare, history_path: Path) -> None:  # type: ignore[no-untyped-def]
    app = CompareApp(history_path, [1, 4])
    assert snap_compare(app, terminal_size=SMALL, run_before=compared("2"))


def test_compare_charts_160x50(snap_compare, history_path: Path) -> None:  # type: ignore[no-untyped-def]
    app = CompareApp(history_path, [1, 4, 2])
    assert snap_compare(app, terminal_size=LARGE, run_before=compared("3"))


def test_history_marked_80x24(snap_compare, history_path: Path, utc: None) -> None:  # type: ignore[no-untyped-def]
    """Two runs marked: their order in the first column, named above the table."""

    async def marked(pilot: Pilot[None]) -> None:
        screen = pilot.app.screen
        assert isinstance(screen, HistoryScreen)
        await wait_until(pilot, lambda: screen.loads > 0, "the history listing")
        await pilot.press("down", "space", "down", "space")
        await pilot.pause()

    assert snap_compare(HistoryApp(history_path), terminal_size=SMALL, run_before=marked)
