"""A disk's health over time in its detail pane: temperature and wear (percentage used)
from the readings kept in the history file (app/history/health_readings.py), drawn with
the one chart widget (widgets/charts/series_chart.py), and the sector counts that moved
("pending sectors 0 → 3 since 12 Nov").

The readings are read in a thread worker, for the disk shown only, once its health has
been read (after the first paint): the pane says so meanwhile. One reading or none is
said in words, never drawn as a trend.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from ...core.cache_wear import DAY_S, HealthReading

if TYPE_CHECKING:  # textual-plot and numpy: ~160 ms, imported in the worker (_load)
    from ..charts.series_chart import SeriesChart
    from ..charts.series_data import NamedSeries

# Both figures are whole numbers from 0 to about 100: one scale, from just under the
# lowest drawn (a temperature moves a few degrees: from 0 it would be a flat line).
UNIT_LABEL = "°C, %"
SMALL_ROWS = 5  # 80x24, where the pane has ~7 rows: two rows of data, sparkline-like
LARGE_ROWS = 10
LARGE_FROM_HEIGHT = 40  # terminal rows from which the chart is drawn taller
NO_READINGS = (
    "no readings kept yet: each `tierdeck health` keeps one (a daily timer draws the trend)"
)
NO_IDENTITY = "no serial or WWN: its readings cannot be kept apart from another disk's"
COUNTERS = (("pending_sectors", "pending sectors"), ("reallocated_sectors", "reallocated sectors"))


def _date(t: float, newest: float) -> str:
    """ "12 Nov", with the year when it is not the newest reading's."""
    when, last = time.localtime(t), time.localtime(newest)
    return time.strftime("%-d %b" if when.tm_year == last.tm_year else "%-d %b %Y", when)


def counter_changes(readings: Sequence[HealthReading]) -> list[Text]:
    """ "pending sectors 0 → 3 since 12 Nov" for each sector count that moved between
    the first reading reporting it and the newest, dated by the last reading before
    it moved; a rise in yellow."""
    out = []
    newest = readings[-1].t if readings else 0.0
    for field, label in COUNTERS:
        known = [(r.t, v) for r in readings if (v := getattr(r, field)) is not None]
        if len(known) < 2 or known[0][1] == known[-1][1]:
            continue
        first, last = known[0][1], known[-1][1]
        before = max(t for t, v in known if v == first and t < _first_move(known))
        style = "bold yellow" if last > first else ""
        out.append(Text(f"{label} {first:,} → {last:,} since {_date(before, newest)}", style))
    return out


def _first_move(known: list[tuple[float, int]]) -> float:
    return next(t for t, v in known if v != known[0][1])


def trend_note(readings: Sequence[HealthReading]) -> Text:
    """What the chart rests on, or why there is none."""
    if not readings:
        return Text(NO_READINGS, style="dim")
    newest = readings[-1].t
    if len(readings) == 1:
        return Text(
            f"one reading so far ({_date(newest, newest)}): trend after the next", style="dim"
        )
    first, last = _date(readings[0].t, 0.0), _date(newest, 0.0)  # both with their year
    text = Text(f"{len(readings)} readings kept, {first} – {last}", style="dim")
    if not drawable(readings):
        text.append(", none with a temperature or wear (asleep when read)")
    return text


def drawable(readings: Sequence[HealthReading]) -> bool:
    """Two readings or more, and a figure to draw in them."""
    figures = (r.temperature_c or r.percentage_used for r in readings)
    return len(readings) >= 2 and any(v is not None and v > 0 for v in figures)


def trend_series(readings: Sequence[HealthReading]) -> list[NamedSeries]:
    """Temperature and wear over days since the first reading (None: not reported, as
    when the disk was asleep)."""
    from ..charts.series_data import NamedSeries

    t0 = readings[0].t
    days = [(r.t - t0) / DAY_S for r in readings]
    temps = [(d, _num(r.temperature_c)) for d, r in zip(days, readings, strict=True)]
    wear = [(d, _num(r.percentage_used)) for d, r in zip(days, readings, strict=True)]
    series = [NamedSeries("temperature °C", temps, "yellow")]
    if any(v is not None for _, v in wear):
        series.append(NamedSeries("wear % used", wear, "magenta"))
    return series


def _titled(text: Text) -> Text:
    return Text.assemble(("Over time: ", "bold"), text)


def _num(value: int | None) -> float | None:
    return None if value is None else float(value)


class HealthTrend(Vertical):
    """The disk pane's chart of its kept readings: ``show_disk`` with the disk's key
    (app/history/health_readings.disk_id) reads them in a worker and draws them."""

    DEFAULT_CSS = """
    HealthTrend { height: auto; margin-bottom: 1; }
    HealthTrend > Static { height: auto; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.wanted: tuple[str | None, float] | None = None  # (disk key, report time)
        self.shown: tuple[str | None, float] | None = None  # what is drawn now
        self.readings: list[HealthReading] = []

    @property
    def settled(self) -> bool:
        """What is drawn is the disk asked for, its chart (if any) drawn too: tests
        wait on it."""
        if self.wanted != self.shown:
            return False
        charts = [c for c in self.query("SeriesChart") if c.display]
        return all(c.is_mounted and c.draws and not c.pending for c in charts)  # type: ignore[attr-defined]

    def compose(self) -> ComposeResult:
        yield Static("", classes="trend-note")

    def _chart(self) -> SeriesChart:
        """The chart, mounted with the first readings to draw (its modules were
        imported by the worker that read them)."""
        from ..charts.series_axes import LABEL_CHARS, AxisUnit
        from ..charts.series_chart import SeriesChart

        found = self.query(SeriesChart)
        if found:
            return found.first()
        unit = AxisUnit(((1.0, UNIT_LABEL.ljust(LABEL_CHARS)),), lambda v: f"{v:.0f}")
        tall = self.app.size.height >= LARGE_FROM_HEIGHT
        rows = LARGE_ROWS if tall else SMALL_ROWS
        chart = SeriesChart("", unit=unit, rows=rows, from_zero=False)
        self.mount(chart)
        return chart

    def on_mount(self) -> None:
        self.call_after_refresh(self._start)  # is_mounted is True once this returns

    def show_disk(self, key: str | None, stamp: float) -> None:
        """The disk filed under ``key`` (None: it has no identity), as of the health
        report collected at ``stamp``: its readings are read again with each report."""
        if (key, stamp) != self.wanted:
            self.wanted = (key, stamp)
            self._start()

    def _start(self) -> None:
        if self.wanted is None or self.settled or not self.is_mounted:
            return  # mounting starts it
        key, stamp = self.wanted
        if key is None:
            self._draw((key, stamp), [], NO_IDENTITY)
            return
        self.query_one(".trend-note", Static).update(
            _titled(Text("reading the kept readings…", style="dim"))
        )
        self._load(key, stamp)

    @work(thread=True, exclusive=True, group="health-trend", exit_on_error=False)
    def _load(self, key: str | None, stamp: float) -> None:
        """The disk's kept readings, off the UI thread (sqlite3 on the history file)."""
        import sqlite3

        from ...app.history.paths import default_history_path
        from ...app.history.readings_file import kept
        from ...core.errors import TierdeckError
        from ..charts import series_chart  # noqa: F401 - loaded here, not on the UI thread

        note = None
        try:
            readings = kept(default_history_path(), key) if key is not None else []
        except (TierdeckError, OSError, sqlite3.Error) as exc:  # said in the pane, never fatal
            readings, note = [], f"kept readings unread: {exc}"
        self.app.call_from_thread(self._draw, (key, stamp), readings, note)

    def _draw(
        self, asked: tuple[str | None, float], readings: list[HealthReading], note: str | None
    ) -> None:
        if asked != self.wanted or not self.is_mounted:
            return  # another disk was highlighted meanwhile: its own load draws
        self.shown = asked
        self.readings = readings
        texts = [Text(note, style="yellow")] if note else [trend_note(readings)]
        texts.extend(counter_changes(readings))
        self.query_one(".trend-note", Static).update(_titled(Text("\n").join(texts)))
        if not drawable(readings):
            for chart in self.query("SeriesChart"):
                chart.display = False
            return
        from ..charts.series_axes import DateTicks

        chart = self._chart()
        chart.display = True
        span = (readings[-1].t - readings[0].t) / DAY_S
        chart.set_x_axis(DateTicks(readings[0].t), (0.0, max(span, 1.0)))
        chart.set_series(trend_series(readings))
