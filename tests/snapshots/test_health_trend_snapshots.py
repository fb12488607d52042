"""SVG snapshots of a disk's health over time in its detail pane, at 80x24 (where the
pane is scrolled to the chart: a compact form, two rows of data) and 160x50: a disk
with ten weekly readings whose pending sectors rose, and one with a single reading.
Fixed readings and dates (tests/snapshots/apps/health_trend.py), dates in UTC."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.widgets.dashboard.disk_table import DiskTable
from tierdeck.widgets.dashboard.health_trend import HealthTrend
from tierdeck.widgets.detail_pane import DetailPane

from tests.pilot.waiting import wait_for_health, wait_for_inventory
from tests.snapshots.apps.health_trend import trend_host
from tests.waiting import wait_until

SMALL = (80, 24)
LARGE = (160, 50)


def trend_app(folder: Path) -> TierdeckApp:
    return TierdeckApp(trend_host(folder), hotplug=False)


async def on_disk(pilot: Pilot[None], name: str, *, scroll: bool) -> None:
    """``name`` highlighted, its readings drawn; the pane scrolled to them (``scroll``)."""
    assert isinstance(pilot.app, TierdeckApp)
    app = pilot.app
    await wait_for_inventory(pilot, app)
    await wait_for_health(pilot, app)
    table = app.screen.query_one(DiskTable)
    while table.selected_disk is not None and table.selected_disk.name != name:
        await pilot.press("down")
    await wait_for_health(pilot, app)  # the new disk's readings drawn
    trend = app.screen.query_one(HealthTrend)
    await wait_until(pilot, lambda: trend.readings and trend.readings[0].name == name, name)
    if scroll:
        pane = app.screen.query_one("#disk-detail", DetailPane)
        pane.scroll_to_widget(trend, top=True, animate=False)
        await wait_until(pilot, lambda: pane.scroll_y > 0, "the pane scrolled to the chart")
        await wait_until(pilot, lambda: trend.settled, "the chart drawn in view")
    await pilot.pause()


async def trended(pilot: Pilot[None]) -> None:
    await on_disk(pilot, "sda", scroll=pilot.app.size.height < 40)


async def once(pilot: Pilot[None]) -> None:
    await on_disk(pilot, "sdb", scroll=pilot.app.size.height < 40)


def test_trend_80x24(snap_compare, tmp_path: Path, utc: None) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(trend_app(tmp_path / "nas"), terminal_size=SMALL, run_before=trended)


def test_trend_160x50(snap_compare, tmp_path: Path, utc: None) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(trend_app(tmp_path / "nas"), terminal_size=LARGE, run_before=trended)


def test_one_reading_80x24(snap_compare, tmp_path: Path, utc: None) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(trend_app(tmp_path / "nas"), terminal_size=SMALL, run_before=once)


def test_one_reading_160x50(snap_compare, tmp_path: Path, utc: None) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(trend_app(tmp_path / "nas"), terminal_size=LARGE, run_before=once)
