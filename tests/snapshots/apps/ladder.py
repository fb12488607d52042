"""The layer-penalty ladder with fixed data, for snapshots and Pilot tests.

``LADDER``: seed 000's evening in one table: the SSD branch 1240 MiB/s, the mergerfs
pool over it 374 MiB/s (the "raw pool 1240 vs mergerfs 374" of the seed), a throwaway
pool over tmpfs and one with nullrw, and a second branch skipped for want of room.
Typed values (core.ladder.Rung with DirectionSummary figures), nothing from the clock.
``ScriptedLadder`` stands in for app.ladder_run.run_ladder.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from textual.app import App
from tierdeck.app.tui.navigation import Navigator
from tierdeck.core.ladder.model import LadderResult, Rung, RungKind, with_penalties

from tests.snapshots.apps.sweep import Gate, replay_run, write_summary

POOL = "/mnt/storage"

RUNGS = (
    Rung(RungKind.BRANCH, "/mnt/cache", 51, write_summary(1240.3, 0.80)),
    Rung(
        RungKind.BRANCH,
        "/mnt/disk1",
        skipped="no room: 1.2 GiB free above minfreespace, the job writes 2.0 GiB",
    ),
    Rung(RungKind.POOL, POOL, 52, write_summary(374.1, 2.67)),
    Rung(RungKind.TMPFS, "/run/tierdeck/ladder-4242/tmpfs", 53, write_summary(1655.0, 0.60)),
    Rung(RungKind.NULLRW, "/run/tierdeck/ladder-4242/nullrw", 54, write_summary(1987.5, 0.50)),
)
LADDER = LadderResult(id=5, pool=POOL, rungs=with_penalties(RUNGS))


class ScriptedLadder(Gate):
    """For each rung of ``rungs``, waiting for ``step()``: RungStarted, a recorded run
    (none for a skipped rung), RungDone; a cancel skips the rest, as the real one."""

    def __init__(self, rungs: tuple[Rung, ...] = RUNGS) -> None:
        super().__init__()
        self.rungs = rungs

    async def __call__(
        self, on_event: Callable[[object], None], cancel: asyncio.Event
    ) -> LadderResult:
        from tierdeck.app.ladder.events import RungDone, RungStarted

        done: list[Rung] = []
        for index, rung in enumerate(self.rungs):
            if not await self.next(cancel):
                break
            on_event(RungStarted(index, len(self.rungs), rung.kind, rung.path, rung.label))
            if rung.skipped is None and rung.run_id is not None:
                await replay_run(on_event, rung.run_id)
            on_event(RungDone(rung))
            done.append(rung)
        return LadderResult(5, POOL, with_penalties(done))


class LadderApp(Navigator, App[None]):
    """Just the ladder view: the finished ``LADDER``, or with ``run`` a scripted one."""

    CSS_PATH = "../../../app/tui/tierdeck.tcss"
    ENABLE_COMMAND_PALETTE = False  # as in TierdeckApp

    def __init__(self, run: ScriptedLadder | None = None) -> None:
        super().__init__()
        self.scripted = run
        self.title = "tierdeck — nas"

    def on_mount(self) -> None:
        from tierdeck.screens.sequence.ladder import LadderScreen

        result = None if self.scripted is not None else LADDER
        self.push_screen(LadderScreen(POOL, self.scripted, result=result))
