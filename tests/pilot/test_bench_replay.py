"""The run screen driven by keyboard, fed runs recorded on the lab NAS (no fio, no root).

The real runner and real fio are in test_bench_run.py; here the recordings make the
timing deterministic, so the cancel confirmation and coalescing can be tested exactly.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from textual.widgets import Static
from tierdeck.app import bench_events as ev
from tierdeck.core.bench_models import RunRequest, RunResult, RunStatus
from tierdeck.screens.confirm import ConfirmScreen
from tierdeck.screens.run import RunScreen
from tierdeck.widgets.device_panel import DevicePanel
from tierdeck.widgets.live_chart import LiveChart

from tests.pilot.waiting import screen_text
from tests.snapshot_apps.bench_data import (
    RunScreenApp,
    load_events,
    result_of,
    until,
)

SIZE = (80, 24)
MiB = 1024 * 1024


def run_screen(app: RunScreenApp) -> RunScreen:
    return next(s for s in app.screen_stack if isinstance(s, RunScreen))


async def test_replayed_run_draws_every_sample_and_is_saved() -> None:
    app = RunScreenApp("stonewall_step")
    recorded = result_of(app.events)
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        await until(pilot, lambda: screen.saved_id is not None, "the saved run")
        bw = screen.query_one("#chart-bw", LiveChart)
        assert bw.values("write") == [s.write.bw_bytes_per_s for s in recorded.series]
        assert screen.samples_seen == len(recorded.series) == 9
        # The capped job (rate=20m) then the uncapped one: a step, not a ramp.
        writes = bw.values("write")
        assert all(18 * MiB < (w or 0) < 22 * MiB for w in writes[:3])
        assert all((w or 0) > 80 * MiB for w in writes[5:8])
        assert app.store.saved == [recorded]
        assert screen.saved_id == 7
        text = screen_text(app)
        assert "✔ ok" in text and "saved as run #7" in text
        assert "64.7 MiB/s" in text  # fio's own summary of the whole run
        panel = screen.query_one(DevicePanel)
        assert panel.busy("loop2")


async def test_cache_warning_is_shown_in_its_box() -> None:
    app = RunScreenApp("pool_write")
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        await until(pilot, lambda: screen.result is not None, "the end of the run")
        box = screen.query_one("#cache-warning", Static)
        assert box.display
        assert "cache warning: fio wrote 5.7G" in str(box.render())
        assert screen.cache_warnings == list(result_of(app.events).warnings)


async def test_cancel_asks_first_and_no_keeps_running() -> None:
    app = RunScreenApp("pool_write", samples=3)
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        await until(pilot, lambda: app.paused, "the run in progress")
        assert screen.running and screen.samples_seen == 3
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the confirmation")
        await pilot.press("n")
        await until(pilot, lambda: app.screen is screen, "back on the run screen")
        assert screen.running and screen._cancel is not None and not screen._cancel.is_set()
        await pilot.press("escape")  # escape also cancels while running, after asking
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the confirmation")
        await pilot.press("y")
        await until(pilot, lambda: screen.saved_id is not None, "the cancelled run saved")
        assert not screen.running
        assert screen.result is not None and screen.result.status is RunStatus.CANCELLED
        assert [r.status for r in app.store.saved] == [RunStatus.CANCELLED]
        assert "■ cancelled" in screen_text(app)
        await pilot.press("c")  # nothing left to cancel: no second confirmation
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("escape")  # now escape goes back
        await until(pilot, lambda: not isinstance(app.screen, RunScreen), "the screen closed")


async def test_q_while_running_stops_the_run_then_quits() -> None:
    app = RunScreenApp("branch_randrw", samples=2)
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        await until(pilot, lambda: app.paused, "the run in progress")
        assert screen.running
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the confirmation")
        assert "quit" in screen_text(app)
        await pilot.press("y")
        await until(pilot, lambda: not app.is_running, "the app to exit")
    assert [r.status for r in app.store.saved] == [RunStatus.CANCELLED]


async def test_failed_run_shows_fios_words_and_no_charts() -> None:
    app = RunScreenApp("failed_engine")
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        await until(pilot, lambda: screen.saved_id is not None, "the failed run saved")
        text = screen_text(app)
        assert "✘ failed" in text
        assert "fio: engine nosuchengine not loadable" in text
        assert not screen.query_one("#chart-bw", LiveChart).display
        assert app.store.saved[0].status is RunStatus.FAILED


async def test_a_burst_of_samples_coalesces_without_losing_any() -> None:
    """A UI that falls behind gets fewer, bigger messages, never fewer points."""
    events = load_events("branch_randrw")
    template = next(e.sample for e in events if isinstance(e, ev.SampleReady))

    async def burst(
        host: object,
        req: RunRequest,
        on_event: Callable[[ev.BenchEvent], None],
        cancel: asyncio.Event | None = None,
    ) -> RunResult:
        on_event(ev.RunStarted(req, ("fio",)))
        for i in range(300):  # no await in between: the queue fills up
            on_event(ev.SampleReady(template.__class__(**{**template.__dict__, "t": float(i)})))
        result = result_of(events)
        on_event(ev.RunEnded(result))
        return result

    app = RunScreenApp("branch_randrw", runner=burst)
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        await until(pilot, lambda: screen.result is not None, "the burst to end")
        chart = screen.query_one("#chart-iops", LiveChart)
        assert screen.samples_seen == 300
        assert chart.times == [float(i) for i in range(300)]
        assert screen.sample_batches < 300
