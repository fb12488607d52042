"""A long history is listed a page at a time: the newest runs first, the next page when
the cursor reaches the last row (10,000 runs at once took 8 s to show)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from textual.widgets import DataTable, Static
from tierdeck.app.history.store import HistoryStore
from tierdeck.screens.history.history import PAGE

from tests.pilot.waiting import history_listed
from tests.snapshots.apps.bench_data import HistoryApp, load_events, result_of
from tests.waiting import wait_until

EXTRA = 5


def fill(path: Path, count: int) -> None:
    store = HistoryStore(path)
    base = result_of(load_events("pool_write"))
    for i in range(count):
        store.save(dataclasses.replace(base, id=None, name=f"run {i + 1}", started_at=1e9 + i))


async def test_the_last_row_loads_the_next_page(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    fill(path, PAGE + EXTRA)
    app = HistoryApp(path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await history_listed(pilot, app)
        table = screen.query_one("#history-table", DataTable)
        assert table.row_count == PAGE
        assert screen.runs[0].name == f"run {PAGE + EXTRA}"  # newest first
        legend = screen.query_one("#history-legend", Static)
        assert "the last row loads more" in str(legend.render())

        await pilot.press("ctrl+end")
        await wait_until(pilot, lambda: table.row_count == PAGE + EXTRA, "the second page")
        assert not screen.more
        # the cursor stayed on the run it was on, and the oldest run is now listed
        assert screen.selected_run is not None
        assert screen.selected_run.name == "run 6"
        assert screen.runs[-1].name == "run 1"
