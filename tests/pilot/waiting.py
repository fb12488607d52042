"""Pilot tests: the app's own conditions to wait for (through tests.waiting.wait_until,
never a sleep: the Harlequin habit) and the screen as text."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from rich.console import Console
from textual import events
from textual.app import App
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Static
from tierdeck.app.tui.app import TierdeckApp

from tests.waiting import wait_until

if TYPE_CHECKING:
    from tierdeck.screens.history.history import HistoryScreen


async def wait_for_inventory(pilot: Pilot[None], app: TierdeckApp, *, after: int = 0) -> None:
    """Wait until more than ``after`` inventories have loaded."""
    await wait_until(pilot, lambda: app.refreshes > after, f"inventory #{after + 1}")


async def wait_for_health(pilot: Pilot[None], app: TierdeckApp, *, after: int = 0) -> None:
    """Wait until more than ``after`` health reports (SMART, read after the inventory)
    have reached the dashboard, and the disk pane's chart of kept readings (read in a
    worker once health is in) shows the highlighted disk's."""
    await wait_until(pilot, lambda: app.health_reads > after, f"health report #{after + 1}")
    await wait_for_trend(pilot, app)


async def wait_for_trend(pilot: Pilot[None], app: TierdeckApp) -> None:
    """Wait until the disk pane's chart (if there is one) has drawn the disk asked for."""
    from tierdeck.widgets.dashboard.health_trend import HealthTrend

    def settled() -> bool:
        return all(trend.settled for trend in app.screen.query(HealthTrend))

    await wait_until(pilot, settled, "the disk's kept readings drawn")


async def press_p_on_pool(pilot: Pilot[None], app: TierdeckApp, pool: str) -> None:
    """The dashboard's inventory loaded, its mergerfs tab (3) on ``pool``, and p: the
    ladder's menu for that pool is asked for."""
    from tierdeck.widgets.dashboard.mergerfs_tables import MergerfsPoolTable

    await wait_for_inventory(pilot, app)
    await pilot.press("3")
    table = app.screen.query_one(MergerfsPoolTable)
    rows = [p.mountpoint for p in table.pools]
    assert pool in rows, rows
    table.move_cursor(row=rows.index(pool))
    await pilot.press("p")


async def open_history(pilot: Pilot[None], app: TierdeckApp) -> HistoryScreen:
    """h from the dashboard, once its inventory is in: the history, its first listing
    loaded."""
    await wait_for_inventory(pilot, app)
    await pilot.press("h")
    return await history_listed(pilot, app)


async def history_listed(pilot: Pilot[None], app: App[None]) -> HistoryScreen:
    """The history screen, once it is the current one and its first listing is loaded."""
    from tierdeck.screens.history.history import HistoryScreen

    await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen), "the history")
    screen = app.screen
    assert isinstance(screen, HistoryScreen)
    await wait_until(pilot, lambda: screen.loads > 0, "the first listing")
    return screen


async def paste_text(pilot: Pilot[None], text: str) -> None:
    """A terminal's bracketed paste into the focused widget: how a long path or a job
    file arrives over SSH, at a tenth of the time of a key press per character."""
    pilot.app.post_message(events.Paste(text))
    await pilot.pause()


async def wait_for_failure(pilot: Pilot[None], app: TierdeckApp) -> None:
    await wait_until(pilot, lambda: app.last_error is not None, "a failed refresh")


def screen_text(app: App[None]) -> str:
    """The screen as plain text, the way a user on an 80x24 console reads it."""
    width, height = app.size
    console = Console(
        width=width, height=height, file=io.StringIO(), record=True, legacy_windows=False
    )
    console.print(
        app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    )
    return console.export_text(styles=False)


def shown_text(widget: Widget) -> str:
    """What ``widget`` shows, as plain text without the wrapping the terminal gives it
    (which depends on the width, and on the length of pytest's tmp paths). Fails unless
    the widget is displayed and at least partly on screen, so a test still checks that
    the user can see it."""
    assert widget.display and widget.visible, f"{widget!r} is hidden"
    visible = widget.screen._compositor.visible_widgets  # noqa: SLF001 - what is painted
    assert widget in visible, f"{widget!r} is not on screen"
    region, clip = visible[widget]
    assert region.intersection(clip).area > 0, f"{widget!r} is scrolled out of view"
    content = widget.content if isinstance(widget, Static) else widget.render()
    console = Console(width=10_000, file=io.StringIO(), record=True, legacy_windows=False)
    console.print(content)
    return "\n".join(line.rstrip() for line in console.export_text(styles=False).splitlines())
