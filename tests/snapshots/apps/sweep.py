"""Sweeps and ladders with fixed data, for snapshots and Pilot tests.

``SWEEP``: seed 003's matrix (numjobs 1-3 x buffer_compress_percentage 0/50/100 on a
128k write), eight cells stored and one missing; ``WIDE``: three axes (bs as the third).
The figures are typed summaries (core.bench_models.DirectionSummary), shaped like fio's
on the lab NAS: more jobs write more, compressible data more still. Nothing from the
clock or the machine.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from textual.app import App
from tierdeck.app.tui.navigation import Navigator
from tierdeck.core.bench_models import DirectionSummary
from tierdeck.core.sweep.model import Axis, CellResult, SweepResult, SweepSpec

MiB = 1024 * 1024

SPEC = SweepSpec(
    axes=(Axis("numjobs", (1, 2, 3)), Axis("buffer_compress_percentage", (0, 50, 100))),
    base={"rw": "write", "bs": "128k", "size": "16M"},
    name="seed 003 compressibility",
    target="/mnt/cache",
)


def write_summary(mib_s: float, lat_ms: float) -> dict[str, DirectionSummary]:
    bw = int(mib_s * MiB)
    return {
        "write": DirectionSummary(
            bw_bytes=bw,
            iops=bw / (128 * 1024),
            lat_mean_ns=lat_ms * 1e6,
            lat_p99_ns=int(lat_ms * 3.1e6),
        )
    }


FIGURES = {  # (numjobs, compress) -> (MiB/s, mean ms)
    (1, 0): (148.2, 0.84),
    (1, 50): (201.7, 0.62),
    (1, 100): (612.4, 0.20),
    (2, 0): (151.0, 1.65),
    (2, 50): (236.9, 1.05),
    (2, 100): (1010.3, 0.25),
    (3, 0): (149.6, 2.50),
    (3, 50): (240.2, 1.56),
}


def result_of(
    spec: SweepSpec, figures: dict[tuple[int, int], tuple[float, float]], first_id: int = 40
) -> SweepResult:
    cells = []
    for cell in spec.cells():
        key = (cell.value("numjobs"), cell.value("buffer_compress_percentage"))
        found = figures.get(key)  # type: ignore[arg-type]
        if found is None:
            cells.append(CellResult(cell))
            continue
        cells.append(CellResult(cell, first_id + cell.index, "ok", write_summary(*found)))
    return SweepResult(id=3, spec=spec, cells=tuple(cells))


SWEEP = result_of(SPEC, FIGURES)


# -- a sweep that runs: scripted, cell by cell -------------------------------------------


class Gate:
    """Lets a scripted runner go ``step()`` units at a time, or stop on a cancel."""

    def __init__(self) -> None:
        self.allowed = 0
        self.started = 0  # units started so far (tests wait on it)
        self._go = asyncio.Event()

    def step(self, units: int = 1) -> None:
        self.allowed += units
        self._go.set()

    async def next(self, cancel: asyncio.Event) -> bool:
        """Wait for the next unit's turn: False when cancelled first."""
        while self.allowed <= self.started and not cancel.is_set():
            self._go.clear()
            waiter = asyncio.ensure_future(self._go.wait())
            stopper = asyncio.ensure_future(cancel.wait())
            await asyncio.wait({waiter, stopper}, return_when=asyncio.FIRST_COMPLETED)
            waiter.cancel()
            stopper.cancel()
        if cancel.is_set():
            return False
        self.started += 1
        return True


async def replay_run(on_event: Callable[[object], None], run_id: int) -> None:
    """The recorded run ``pool_write``'s events, then RunStored as the service says it."""
    from tierdeck.app.bench import events as ev

    from tests.snapshots.apps.bench_data import load_events

    for event in load_events("pool_write"):
        on_event(event)
        await asyncio.sleep(0)
    on_event(ev.RunStored(run_id))


class ScriptedSweep(Gate):
    """Stands in for app.sweep_run.run_sweep (bound to its plan): for each missing cell
    of ``result``, in order, the events the real one sends (SweepCellStarted, a recorded
    run, RunStored, SweepCellDone with the cell's figures), waiting for ``step()`` before
    each cell. A cancel stops it between cells with the rest missing, as the real one."""

    def __init__(
        self,
        result: SweepResult,
        figures: dict[tuple[int, int], tuple[float, float]],
        *,
        hold_in_cell: bool = False,
    ):
        """``hold_in_cell``: after each SweepCellStarted, wait for another ``step()``
        before the cell's run (the running cell stays on screen)."""
        super().__init__()
        self.result = result
        self.figures = figures
        self.hold_in_cell = hold_in_cell

    async def __call__(
        self, on_event: Callable[[object], None], cancel: asyncio.Event
    ) -> SweepResult:
        from tierdeck.app.sweep.events import SweepCellDone, SweepCellStarted

        cells = list(self.result.cells)
        to_run = [i for i, c in enumerate(cells) if c.run_id is None]
        for k, i in enumerate(to_run, start=1):
            if not await self.next(cancel):
                break
            cell = cells[i].cell
            left = len(to_run) - k + 1
            on_event(SweepCellStarted(cell.index, k, len(to_run), cell, 3.0 * left))
            if self.hold_in_cell and not await self.next(cancel):
                break
            run_id = 100 + cell.index
            await replay_run(on_event, run_id)
            key = (cell.value("numjobs"), cell.value("buffer_compress_percentage"))
            summary = write_summary(*self.figures.get(key, (100.0, 1.0)))  # type: ignore[call-overload]
            done = CellResult(cell, run_id, "ok", summary)
            cells[i] = done
            on_event(SweepCellDone(done))
        return SweepResult(self.result.id, self.result.spec, tuple(cells))


class SweepApp(Navigator, App[None]):
    """Just the sweep view: a stored sweep (``SWEEP``), or with ``run`` a scripted one."""

    CSS_PATH = "../../../app/tui/tierdeck.tcss"
    ENABLE_COMMAND_PALETTE = False  # as in TierdeckApp

    def __init__(self, result: SweepResult = SWEEP, run: ScriptedSweep | None = None) -> None:
        super().__init__()
        self.result = result
        self.scripted = run
        self.title = "tierdeck — nas"

    def on_mount(self) -> None:
        from tierdeck.app.tui.sequence_messages import SweepStart
        from tierdeck.screens.sequence.sweep import SweepScreen

        scripted = self.scripted
        resume = None if scripted is None else (lambda: SweepStart(scripted.result, scripted))
        self.push_screen(SweepScreen(self.result, scripted, resume=resume))
