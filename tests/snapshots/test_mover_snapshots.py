"""SVG snapshots of the mover view at 80x24 with fixed data (tests/snapshots/apps/mover):
the forecast (six files by age and fill, a time from the history, the noatime note),
the last run's report (moved, skipped with reasons, a recovered move) and a move in
progress (two files of six, the bar, the figures, the current file). Plain sync
functions, fixed sizes, nothing from the clock. Update after a deliberate UI change
with ``pytest tests/snapshots --snapshot-update`` and look at the SVGs.
"""

from __future__ import annotations

import pytest
from textual.pilot import Pilot
from tierdeck.screens.layout.mover import MoverScreen, Phase
from tierdeck.screens.modals.confirm import ConfirmScreen

from tests.snapshots.apps.mover import MoverApp
from tests.waiting import wait_until

SMALL = (80, 24)


async def _opened(pilot: Pilot[None]) -> MoverScreen:
    def ready() -> bool:
        screen = pilot.app.screen
        return (
            isinstance(screen, MoverScreen)
            and screen.phase is Phase.READY
            and screen.last_run is not None
        )

    await wait_until(pilot, ready, "the forecast and the last run")
    screen = pilot.app.screen
    assert isinstance(screen, MoverScreen)
    return screen


async def _forecast(pilot: Pilot[None]) -> None:
    await _opened(pilot)


async def _last_run(pilot: Pilot[None]) -> None:
    await _opened(pilot)
    await pilot.press("2")


async def _moving(pilot: Pilot[None]) -> None:
    screen = await _opened(pilot)
    await pilot.press("m")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen), "the question")
    await pilot.press("y")
    app = pilot.app
    assert isinstance(app, MoverApp)
    app.scripted.step(2)
    await wait_until(
        pilot, lambda: screen.progress is not None and screen.progress.files_done == 2, "2 files"
    )


@pytest.mark.usefixtures("utc")
def test_mover_forecast_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(MoverApp(), terminal_size=SMALL, run_before=_forecast)


@pytest.mark.usefixtures("utc")
def test_mover_last_run_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(MoverApp(), terminal_size=SMALL, run_before=_last_run)


@pytest.mark.usefixtures("utc")
def test_mover_moving_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(MoverApp(), terminal_size=SMALL, run_before=_moving)
