"""The demo's history in the TUI: seed 000's imported runs, marked as imported."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Static
from tierdeck.app.history.demo import DEMO_RUNS, use_demo_history
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.backends.host import RecordedHost
from tierdeck.screens.history.run_detail import RunDetailScreen

from tests.pilot.history.test_bench_history import SIZE
from tests.pilot.waiting import open_history, shown_text
from tests.waiting import wait_until


async def test_demo_history_lists_the_seed_runs_marked_imported(
    demo_host: RecordedHost, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TIERDECK_DATA_DIR", str(tmp_path / "user"))  # restored afterwards
    use_demo_history(tmp_path / "cache")  # what `tierdeck --demo` does first
    app = TierdeckApp(demo_host, demo=True, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_history(pilot, app)
        assert len(screen.runs) == len(DEMO_RUNS)
        table = screen.query_one("#history-table", DataTable)
        names = [str(table.get_cell(key, "name")) for key in table.rows]
        assert all(name.startswith("⇲ ") for name in names)
        legend = str(screen.query_one("#history-legend", Static).render())
        assert "⇲ imported from a file" in legend
        partial = next(
            r for r in screen.runs if r.name.startswith("mergerfs /mnt/cached over btrfs raid1")
        )
        table.move_cursor(row=table.get_row_index(str(partial.id)))
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, RunDetailScreen), "the detail")
        detail = app.screen
        assert isinstance(detail, RunDetailScreen)
        await wait_until(pilot, lambda: detail.run is not None, "the run loaded")
        summary = " ".join(shown_text(detail.query_one("#run-summary")).split())
        assert "imported from a file: btrfs-raid1-mergerfs.txt" in summary
        assert "no IOPS or latency" in summary
        # no empty charts "waiting for data": it has no seconds to draw, and says so
        assert not any(chart.display for chart in detail.charts)
        note = shown_text(detail.query_one("#detail-no-series"))
        assert (
            note == "No per-second series to draw: it was imported from a file, fio's totals only."
        )
    assert not (tmp_path / "user").exists()  # the user's history was never opened
