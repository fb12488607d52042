"""A disk's health over time in its detail pane: read from the kept readings in a worker
thread after the first paint, for the disk shown only, and drawn again when another
disk is highlighted."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from tierdeck.app.history import readings_file
from tierdeck.app.tui import app as app_module
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.widgets.charts.series_chart import SeriesChart
from tierdeck.widgets.dashboard.disk_table import DiskTable
from tierdeck.widgets.dashboard.health_trend import HealthTrend

from tests.snapshots.apps.health_trend import (
    HDD,
    HDD_TEMPS,
    NVME,
    NVME_WEAR,
    ONCE,
    trend_host,
)

from ..waiting import shown_text, wait_for_health, wait_for_inventory, wait_until

SIZE = (160, 50)


class PaintWatch(TierdeckApp):
    """Notes what the disk pane held when the dashboard's first paint was done."""

    # A subclass reads its CSS beside its own module: point it at the app's.
    CSS_PATH = [str(Path(app_module.__file__).parent / p) for p in TierdeckApp.CSS_PATH]
    trends_at_first_paint: int | None = None

    def on_dashboard_painted(self) -> None:
        if self.trends_at_first_paint is None:
            self.trends_at_first_paint = len(self.screen.query(HealthTrend))
        super().on_dashboard_painted()


async def test_the_chart_comes_after_the_first_paint_and_follows_the_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, utc: None
) -> None:
    reads: list[tuple[str, bool]] = []
    real_kept = readings_file.kept

    def kept(path: Path, key: str) -> Any:
        reads.append((key, threading.current_thread() is threading.main_thread()))
        return real_kept(path, key)

    monkeypatch.setattr(readings_file, "kept", kept)
    app = PaintWatch(trend_host(tmp_path / "nas"), hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_inventory(pilot, app)
        await wait_for_health(pilot, app)
        assert app.trends_at_first_paint == 0  # nothing of it before the first frame
        trend = app.screen.query_one(HealthTrend)
        chart = trend.query_one(SeriesChart)
        assert app.screen.query_one(DiskTable).selected_disk.name == "sda"  # type: ignore[union-attr]
        assert chart.display and chart.values("temperature °C") == list(map(float, HDD_TEMPS))
        note = shown_text(trend.query_one(".trend-note"))
        assert "10 readings kept, 1 Sep 2025 – 3 Nov 2025" in note
        assert "pending sectors 0 → 3 since" in note

        await pilot.press("down")  # sdb: a single reading, said in words
        await wait_until(pilot, lambda: trend.settled and trend.readings[0].disk_id == ONCE, "sdb")
        assert not chart.display
        assert "one reading so far" in shown_text(trend.query_one(".trend-note"))

        await pilot.press("down")  # sdc: its wear over time
        await wait_until(pilot, lambda: trend.settled and trend.readings[0].disk_id == NVME, "sdc")
        assert chart.display and chart.values("wear % used") == list(map(float, NVME_WEAR))
    # one read per disk shown, each off the UI thread
    assert [key for key, _ in reads] == [HDD, ONCE, NVME]
    assert not any(on_main for _, on_main in reads)


async def test_a_history_that_cannot_be_read_is_said_in_the_pane(tmp_path: Path) -> None:
    from tierdeck.app.history.paths import default_history_path
    from tierdeck.backends.host import RecordedHost

    from tests.snapshots.apps.health_trend import TRENDED
    from tests.support.smart_recording import smart_recording

    default_history_path().write_bytes(b"not a database, " * 64)
    app = TierdeckApp(RecordedHost(smart_recording(tmp_path / "nas", TRENDED)), hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_inventory(pilot, app)
        await wait_for_health(pilot, app)
        trend = app.screen.query_one(HealthTrend)
        assert "kept readings unread" in shown_text(trend.query_one(".trend-note"))
        assert not trend.query(SeriesChart)
