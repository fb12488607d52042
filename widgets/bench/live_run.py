"""The run in progress inside a sequence (a sweep's cell, a ladder's rung): the run
screen's head (target, disks, phase bar, ETA) and its bandwidth chart, fed by the same
messages (``app.bench_messages``), restarted for each run of the sequence.

The run screen keeps its full set (IOPS, latency, disks, fio's command); a sequence's
view has its table to show, so one chart is what fits beside it at 80x24.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from ...app.bench.events import RunPhase
from ...core.bench_models import RunRequest, RunResult
from ...core.fio_models import Sample
from ...core.jobspec import expected_seconds
from ..charts.run_charts import BW_KEYS, intervals
from ..charts.series_axes import RATE
from ..charts.series_chart import SeriesChart
from .run_view import in_order, run_head, status_text


class LiveRun(Vertical):
    DEFAULT_CSS = """
    LiveRun { height: auto; }
    LiveRun > #live-head { height: 2; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.request: RunRequest | None = None
        self.result: RunResult | None = None
        self.progress: tuple[RunPhase, float, float | None] = (RunPhase.PREPARING, 0.0, None)
        self.last_t = 0.0
        self.samples_seen = 0

    def compose(self) -> ComposeResult:
        yield Static(Text("waiting for the first run", style="dim"), id="live-head")
        yield SeriesChart(
            "Bandwidth",
            (("read", "read", "green"), ("write", "write", "magenta")),
            unit=RATE,
            id="live-bw",
        )

    @property
    def chart(self) -> SeriesChart:
        return self.query_one(SeriesChart)

    def started(self, request: RunRequest) -> None:
        """A new run of the sequence: its target, an empty chart over its expected span."""
        self.request, self.result = request, None
        self.progress = (RunPhase.PREPARING, 0.0, None)
        self.last_t = 0.0
        chart = self.chart
        chart.span = expected_seconds(request.jobs)
        chart.clear()
        self._draw_head()

    def samples(self, samples: Sequence[Sample]) -> None:
        self.chart.extend(intervals(samples, BW_KEYS))
        self.samples_seen += len(samples)
        if samples:
            self.last_t = samples[-1].t
        self._draw_head()

    def set_progress(self, phase: RunPhase, fraction: float, eta_s: float | None) -> None:
        self.progress = (phase, fraction, eta_s)
        self._draw_head()

    def ended(self, result: RunResult) -> None:
        self.result = result
        self._draw_head()

    def _draw_head(self) -> None:
        head = self.query_one("#live-head", Static)
        if self.request is None:
            return
        if self.result is None:
            head.update(run_head(self.request.target, None, self.progress, self.last_t))
            return
        line = Text(self.request.target.label + "  ", style="bold", no_wrap=True)
        line.append_text(status_text(self.result.status))
        for direction, stats in in_order(self.result.summary):
            line.append(f"  {direction} {stats.bw_bytes / 1024**2:,.1f} MiB/s", style="dim")
        head.update(line)
