"""The mover view on real branches (integration: root mounts three small tmpfs, a
cache and two slow disks): the forecast of the real dry run, a move confirmed by
keyboard that puts every old file on one slow branch with its content, the report, a
forecast with nothing left, and the move as the last run when the view opens again."""

from __future__ import annotations

import hashlib
import os
from contextlib import ExitStack
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import ProgressBar
from tierdeck.app.layout.files import save_layout
from tierdeck.backends.host import LiveHost
from tierdeck.core.mover import MoveReason
from tierdeck.screens.layout.mover import MoverScreen, Phase
from tierdeck.screens.modals.confirm import ConfirmScreen
from tierdeck.widgets.layout.mover_views import PlanTable

from tests.conftest import MountDir
from tests.snapshots.apps.mover import MoverApp
from tests.support.mover_tree import small_disk_layout
from tests.waiting import wait_until

from ..waiting import shown_text

pytestmark = pytest.mark.integration

SIZE = (80, 24)
OLD = 1_600_000_000  # 2020: older than any min age
KIB = 1024


def put(cache: Path, rel: str, size: int, *, old: bool) -> str:
    path = cache / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    data = os.urandom(size)
    path.write_bytes(data)
    if old:
        os.utime(path, (OLD, OLD))
    return hashlib.sha256(data).hexdigest()


async def settled(pilot: Pilot[None], phase: Phase) -> MoverScreen:
    app = pilot.app
    await wait_until(
        pilot,
        lambda: isinstance(app.screen, MoverScreen) and app.screen.phase is phase,
        phase.name,
    )
    assert isinstance(app.screen, MoverScreen)
    return app.screen


async def test_forecast_move_and_report_on_tmpfs_branches(
    tmpfs_dir: MountDir, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TIERDECK_DATA_DIR", str(tmp_path / "data"))
    with ExitStack() as mounts:
        cache = mounts.enter_context(tmpfs_dir("cache", size="16m"))
        slow = [mounts.enter_context(tmpfs_dir(name, size="4m")) for name in ("d1", "d2")]
        layout = small_disk_layout(cache, (slow[0], slow[1]), tmp_path / "pool", tmp_path / "slow")
        layout_path = tmp_path / "media.toml"
        save_layout(layout_path, layout)
        sums = {rel: put(cache, rel, 300 * KIB, old=True) for rel in ("tv/a.mkv", "tv/b.mkv", "c")}
        put(cache, "tv/new.mkv", KIB, old=False)

        app = MoverApp(live=True, host=LiveHost(), layout=layout, layout_path=layout_path)
        async with app.run_test(size=SIZE) as pilot:
            screen = await settled(pilot, Phase.READY)
            assert screen.forecast is not None
            planned = {(m.file.rel, m.reason) for m in screen.forecast.planned}
            assert planned == {(rel, MoveReason.AGE) for rel in sums}
            assert screen.query_one(PlanTable).row_count == 3
            assert "Would move 3 files, 900K (3 by age)" in shown_text(
                screen.query_one("#mover-forecast")
            )

            await pilot.press("m")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
            await pilot.press("y")
            await settled(pilot, Phase.DONE)
            report = screen.report
            assert report is not None and report.ok and report.files_moved == 3, report
            assert screen.progress is not None and screen.progress.files_done == 3
            assert screen.query_one(ProgressBar).percentage == 1.0
            shown = shown_text(screen.query_one("#mover-report"))
            assert "This run: " in shown and "Moved 3 files, 900K of 3 files planned" in shown

            for rel, digest in sums.items():
                places = [p for p in (cache, *slow) if (p / rel).exists()]
                assert len(places) == 1 and places[0] in slow, (rel, places)
                assert hashlib.sha256((places[0] / rel).read_bytes()).hexdigest() == digest
            assert (cache / "tv/new.mkv").exists()

            await pilot.press("f")  # forecast again: nothing old is left
            await settled(pilot, Phase.NOTHING)
            assert "Nothing to move now." in shown_text(screen.query_one("#mover-forecast"))
            assert not screen.check_action("move", ())  # nothing to move: no m
            # ... and the head does not offer it either.
            assert "m moves" not in shown_text(screen.query_one("#mover-head"))

        again = MoverApp(live=True, host=LiveHost(), layout=layout, layout_path=layout_path)
        async with again.run_test(size=SIZE) as pilot:
            screen = await settled(pilot, Phase.NOTHING)
            await wait_until(pilot, lambda: screen.last_run is not None, "the last run")
            await pilot.press("2")
            shown = shown_text(screen.query_one("#mover-report"))
            assert shown.startswith("Last run: ") and "Moved 3 files, 900K" in shown
