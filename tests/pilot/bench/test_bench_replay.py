"""The run screen driven by keyboard, fed runs recorded on the lab NAS (no fio, no root).

The real runner and real fio are in test_bench_run.py; here the recordings make the
timing deterministic, so the cancel confirmation and coalescing can be tested exactly.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from textual.widgets import Static
from tierdeck.app.bench import events as ev
from tierdeck.core.bench_models import DeviceSample, RunRequest, RunResult, RunStatus
from tierdeck.core.compare.series import drawn
from tierdeck.core.units import fmt_rate
from tierdeck.screens.bench.run import RunScreen
from tierdeck.screens.modals.confirm import ConfirmScreen
from tierdeck.widgets.bench.device_panel import DevicePanel
from tierdeck.widgets.charts.run_charts import DiskRateChart
from tierdeck.widgets.charts.series_chart import SeriesChart

from tests.pilot.waiting import screen_text
from tests.snapshots.apps.bench_data import RunScreenApp, load_events, result_of
from tests.waiting import wait_until

SIZE = (80, 24)
MiB = 1024 * 1024


def run_screen(app: RunScreenApp) -> RunScreen:
    return next(s for s in app.screen_stack if isinstance(s, RunScreen))


async def test_replayed_run_draws_every_sample_and_is_saved() -> None:
    app = RunScreenApp("stonewall_step")
    recorded = result_of(app.events)
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        await wait_until(pilot, lambda: screen.saved_id is not None, "the saved run")
        bw = screen.query_one("#chart-bw", SeriesChart)
        full = [s for s in recorded.series if drawn(s)]  # the 0.45 s tail is not drawn
        assert bw.values("write") == [s.write.bw_bytes_per_s for s in full]
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
        await wait_until(pilot, lambda: screen.result is not None, "the end of the run")
        box = screen.query_one("#cache-warning", Static)
        assert box.display
        assert "cache warning: fio wrote 5.7G" in str(box.render())
        assert screen.cache_warnings == [w.text for w in result_of(app.events).warnings]


async def test_cancel_asks_first_and_no_keeps_running() -> None:
    app = RunScreenApp("pool_write", samples=3)
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        await wait_until(pilot, lambda: app.paused, "the run in progress")
        assert screen.running and screen.samples_seen == 3
        await pilot.press("c")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the confirmation")
        await pilot.press("n")
        await wait_until(pilot, lambda: app.screen is screen, "back on the run screen")
        assert screen.running and screen._cancel is not None and not screen._cancel.is_set()
        await pilot.press("escape")  # escape also cancels while running, after asking
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the confirmation")
        await pilot.press("y")
        await wait_until(pilot, lambda: screen.saved_id is not None, "the cancelled run saved")
        assert not screen.running
        assert screen.result is not None and screen.result.status is RunStatus.CANCELLED
        assert [r.status for r in app.store.saved] == [RunStatus.CANCELLED]
        assert "■ cancelled" in screen_text(app)
        await pilot.press("c")  # nothing left to cancel: no second confirmation
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("escape")  # now escape goes back
        await wait_until(pilot, lambda: not isinstance(app.screen, RunScreen), "the screen closed")


async def test_q_while_running_stops_the_run_then_quits() -> None:
    app = RunScreenApp("branch_randrw", samples=2)
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        await wait_until(pilot, lambda: app.paused, "the run in progress")
        assert screen.running
        await pilot.press("q")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the confirmation")
        assert "quit" in screen_text(app)
        await pilot.press("y")
        await wait_until(pilot, lambda: not app.is_running, "the app to exit")
    assert [r.status for r in app.store.saved] == [RunStatus.CANCELLED]


async def test_failed_run_shows_fios_words_and_no_charts() -> None:
    app = RunScreenApp("failed_engine")
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        await wait_until(pilot, lambda: screen.saved_id is not None, "the failed run saved")
        text = screen_text(app)
        assert "✘ failed" in text
        assert "fio: engine nosuchengine not loadable" in text
        assert not screen.query_one("#chart-bw", SeriesChart).display
        assert app.store.saved[0].status is RunStatus.FAILED


async def test_a_burst_of_samples_coalesces_without_losing_any() -> None:
    """A UI that falls behind gets fewer, bigger messages, never fewer points."""
    events = load_events("branch_randrw")
    # A full second: a partial one is counted in the average, not drawn (core/compare/series)
    template = next(e.sample for e in events if isinstance(e, ev.SampleReady) and drawn(e.sample))

    class Burst:
        async def run(
            self,
            inventory: object,
            req: RunRequest,
            on_event: Callable[[ev.BenchEvent], None],
            cancel: asyncio.Event | None = None,
        ) -> RunResult:
            on_event(ev.RunStarted(req, ("fio",)))
            for i in range(300):  # no await in between: the queue fills up
                sample = template.__class__(**{**template.__dict__, "t": float(i)})
                on_event(ev.SampleReady(sample))
            result = result_of(events)
            on_event(ev.RunEnded(result))
            return result

    app = RunScreenApp("branch_randrw", runner=Burst())  # type: ignore[arg-type]
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        await wait_until(pilot, lambda: screen.result is not None, "the burst to end")
        chart = screen.query_one("#chart-iops", SeriesChart)
        assert screen.samples_seen == 300
        assert chart.times == [float(i) for i in range(300)]
        assert screen.sample_batches < 300


async def test_the_live_screen_has_the_per_disk_strip() -> None:
    """The strip of the history's detail view, fed live from BenchDevices."""
    app = RunScreenApp("pool_write", samples=3)
    events = app.events
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        await wait_until(pilot, lambda: app.paused, "the run in progress")
        await wait_until(pilot, lambda: screen.device_intervals > 0, "device samples")
        strip = screen.query_one("#chart-disks", DiskRateChart)
        assert strip is screen.disk_chart
        intervals = [e.samples for e in events if isinstance(e, ev.DevicesReady)]
        seen = intervals[: screen.device_intervals]
        for disk in ("loop2", "loop3"):
            want = [
                next(s.read_bytes_per_s + s.write_bytes_per_s for s in i if s.device == disk)
                for i in seen
            ]
            assert strip.values(disk) == want
        assert strip.times == [i[0].t for i in seen]
        assert any(v for v in strip.values("loop2")) and not any(strip.values("loop3"))
        assert strip.visible_keys == ["loop2", "loop3"]  # the idle disk keeps its strip
        # Same class as the detail view's: one implementation.
        from tierdeck.screens.history.run_detail import DiskRateChart as DetailChart

        assert DetailChart is DiskRateChart


async def test_a_disk_the_target_did_not_list_gets_a_strip() -> None:
    strip = DiskRateChart(("sdb",))
    strip.add_intervals(
        [
            (DeviceSample(1.0, "sdb", 0, 5.0, 0, 1, 1),),
            (
                DeviceSample(2.0, "sdb", 0, 6.0, 0, 1, 1),
                DeviceSample(2.0, "sdc", 1.0, 2.0, 1, 1, 1),
            ),
        ]
    )
    assert strip.values("sdb") == [5.0, 6.0]
    assert strip.values("sdc") == [None, 3.0]
    assert strip.visible_keys == ["sdb", "sdc"]


async def test_a_long_fio_error_does_not_push_the_charts_away() -> None:
    """ENOSPC on a real ext4: fio's lines (folded by the runner) are more than the
    failure screen shows; it cuts them with a count, the charts stay on screen."""
    app = RunScreenApp("failed_nospace")
    result = result_of(app.events)
    assert result.error is not None and len(result.error.splitlines()) >= 4
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        await wait_until(pilot, lambda: screen.saved_id is not None, "the failed run saved")
        text = screen_text(app)
        assert "✘ failed" in text and "No space left on device" in text
        assert "more line" in text  # "… N more lines (…)"
        assert "Choose a smaller size" not in text  # the last line: in the history
        summary = screen.query_one("#run-summary", Static)
        assert summary.region.height <= 1 + RunScreen.ERROR_ROWS + 2
        chart = screen.query_one("#chart-bw", SeriesChart)
        assert chart.display and chart.region.bottom <= app.size.height - 1  # visible


async def test_a_suite_shows_each_job_and_all_jobs_is_not_the_headline() -> None:
    app = RunScreenApp("suite_mixed")
    result = result_of(app.events)
    assert result.mixed_jobs and len(result.job_summaries) == 4
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        await wait_until(pilot, lambda: screen.saved_id is not None, "the suite saved")
        lines = screen_text(app).splitlines()
        for job in result.job_summaries:
            [row] = [line for line in lines if f" {job.name} " in line]
            [(direction, stats)] = job.directions.items()
            assert fmt_rate(stats.bw_bytes) in row
            assert direction in row  # "randwrite 4K", "read 1M" ...
        [every] = [line for line in lines if "all jobs " in line and "read" in line]
        assert fmt_rate(result.summary["read"].bw_bytes) in every
        assert any("compare the jobs" in line for line in lines)
        # the headline order: jobs first, the whole run after them
        first_job = next(i for i, line in enumerate(lines) if "write_throughput" in line)
        assert first_job < lines.index(every)


@pytest.mark.parametrize(("size", "rows"), [((80, 24), 6), ((160, 50), 9)])
async def test_charts_grow_on_a_tall_terminal_and_fit_a_small_one(
    size: tuple[int, int], rows: int
) -> None:
    app = RunScreenApp("branch_randrw", samples=4)
    async with app.run_test(size=size) as pilot:
        screen = run_screen(app)
        await wait_until(pilot, lambda: app.paused, "the run in progress")
        await pilot.pause()
        assert [c.rows for c in screen.all_charts] == [rows] * 4
        bw = screen.query_one("#chart-bw", SeriesChart)
        assert bw.size.height == 1 + rows  # the legend line, then the plot
        assert bw.region.bottom <= size[1] - 1  # the first chart whole, under the head
        if size[1] >= 50:  # every chart, and the disk table, on one screen
            panel = screen.query_one(DevicePanel)
            assert panel.region.bottom <= size[1] - 1
