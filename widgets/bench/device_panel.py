"""Per-disk I/O during a benchmark: which physical disks really take the load.

One row per disk under the target (in the target's order, so rows never jump):
read and write rate (MiB/s, binary as fio prints them; read before write), IOPS, a
utilisation bar, and the bytes moved since the run began.
The disks doing the work stand out (bold, coloured bar); idle ones are dimmed. That is
the whole point: a mergerfs create policy putting every byte on one branch, or a ZFS
mirror splitting reads, is visible at a glance.

Fed with ``DeviceSample`` tuples (one per interval) from /proc/diskstats deltas. Live,
it shows the latest interval; ``mode="average"`` (history) shows the run's averages.
Text only (no ProgressBar: a hidden animating one keeps burning CPU).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from rich.text import Text
from textual.widget import Widget

from ...core.bench_models import DeviceSample
from ...core.units import fmt_bytes, fmt_count, fmt_rate_short

IDLE_BYTES_PER_S = 64 * 1024  # below this and IDLE_UTIL a disk counts as idle
IDLE_UTIL = 1.0
NAME_WIDTH = 9
BAR_WIDTH = 10
RATE_WIDTH = 10  # "1023 MiB/s"
MOVED_WIDTH = 8  # "1023 MiB"


@dataclass
class DiskStats:
    """What the panel knows about one disk."""

    name: str
    latest: DeviceSample | None = None
    intervals: int = 0
    read_bytes: float = 0.0  # integrated over the intervals: rate x interval length
    written_bytes: float = 0.0
    read_ios: float = 0.0
    write_ios: float = 0.0
    util_sum: float = 0.0
    seconds: float = 0.0
    last_t: float = 0.0

    def add(self, sample: DeviceSample) -> None:
        span = max(0.0, sample.t - self.last_t)
        self.last_t = sample.t
        self.latest = sample
        self.intervals += 1
        self.seconds += span
        self.read_bytes += sample.read_bytes_per_s * span
        self.written_bytes += sample.write_bytes_per_s * span
        self.read_ios += sample.read_iops * span
        self.write_ios += sample.write_iops * span
        self.util_sum += sample.util_pct * span

    @property
    def moved(self) -> float:
        return self.read_bytes + self.written_bytes

    def rates(self, average: bool) -> tuple[float, float, float, float]:
        """(read B/s, write B/s, IOPS, util %): the latest interval, or the average."""
        if average:
            if self.seconds <= 0:
                return 0.0, 0.0, 0.0, 0.0
            s = self.seconds
            return (
                self.read_bytes / s,
                self.written_bytes / s,
                (self.read_ios + self.write_ios) / s,
                self.util_sum / s,
            )
        d = self.latest
        if d is None:
            return 0.0, 0.0, 0.0, 0.0
        return d.read_bytes_per_s, d.write_bytes_per_s, d.read_iops + d.write_iops, d.util_pct


def util_bar(percent: float, width: int = BAR_WIDTH, *, busy: bool = True) -> Text:
    percent = min(max(percent, 0.0), 100.0)
    filled = round(percent / 100 * width)
    style = "red" if percent >= 90 else "yellow" if percent >= 50 else "green"
    bar = Text()
    bar.append("█" * filled, style=style if busy else "dim")
    bar.append("░" * (width - filled), style="dim")
    return bar


class DevicePanel(Widget):
    """The disks under a benchmark target, one row each."""

    DEFAULT_CSS = """
    DevicePanel {
        height: auto;
    }
    """

    def __init__(
        self,
        disks: Sequence[str] = (),
        *,
        models: Mapping[str, str] | None = None,
        average: bool = False,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.models = dict(models or {})
        self.average = average
        self.stats: dict[str, DiskStats] = {disk: DiskStats(disk) for disk in disks}

    def set_disks(self, disks: Sequence[str], models: Mapping[str, str] | None = None) -> None:
        self.stats = {disk: DiskStats(disk) for disk in disks}
        if models is not None:
            self.models = dict(models)
        self.refresh(layout=True)

    def add_interval(self, samples: Iterable[DeviceSample]) -> None:
        """One DevicesReady worth of samples (one per disk)."""
        rows = len(self.stats)
        self._add(samples)
        if self.is_mounted and self.screen.is_current:
            # Once a second: a page layout only when a disk adds a row.
            self.refresh(layout=len(self.stats) != rows)

    def add_intervals(self, intervals: Iterable[Iterable[DeviceSample]]) -> None:
        """Several DevicesReady in a row (the screen's messages coalesce them)."""
        for samples in intervals:
            self.add_interval(samples)

    def load_series(self, samples: Iterable[DeviceSample]) -> None:
        """A whole stored device series (history): one redraw."""
        self._add(samples)
        self.refresh(layout=True)

    def _add(self, samples: Iterable[DeviceSample]) -> None:
        for sample in samples:
            stats = self.stats.get(sample.device)
            if stats is None:  # a disk the target did not list: still show it
                stats = self.stats[sample.device] = DiskStats(sample.device)
            stats.add(sample)

    def busy(self, name: str) -> bool:
        read, write, _iops, util = self.stats[name].rates(self.average)
        return read + write >= IDLE_BYTES_PER_S or util >= IDLE_UTIL

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        return 1 + max(1, len(self.stats))

    def render(self) -> Text:
        return self.render_at(self.content_size.width or self.size.width)

    def render_at(self, width: int) -> Text:
        out = Text(no_wrap=True, overflow="crop")
        what = "average" if self.average else "now"
        out.append(
            f"{'Disks':<{NAME_WIDTH}}{'read':>{RATE_WIDTH}} {'write':>{RATE_WIDTH}} "
            f"{'IOPS':>7}  {'util (' + what + ')':<{BAR_WIDTH + 6}}{'moved':>{MOVED_WIDTH}}",
            style="bold",
        )
        if not self.stats:
            out.append("\n")
            out.append(
                "no physical disk under this target: nothing to compare fio against",
                style="dim",
            )
            return out
        show_models = width >= 100
        for name, stats in self.stats.items():
            read, write, iops, util = stats.rates(self.average)
            busy = self.busy(name)
            style = "bold" if busy else "dim"
            out.append("\n")
            out.append(
                f"{name[: NAME_WIDTH - 1]:<{NAME_WIDTH}}", style="bold cyan" if busy else "dim"
            )
            out.append(
                f"{fmt_rate_short(read):>{RATE_WIDTH}} {fmt_rate_short(write):>{RATE_WIDTH}} ",
                style=style,
            )
            out.append(f"{fmt_count(iops):>7}  ", style=style)
            out.append_text(util_bar(util, busy=busy))
            out.append(f"{util:4.0f}%", style=style)
            out.append(f"{fmt_bytes(stats.moved):>{MOVED_WIDTH + 1}}", style=style)
            if show_models and name in self.models:
                out.append(f"  {self.models[name]}", style="dim")
        return out
