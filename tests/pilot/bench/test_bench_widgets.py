"""The units, the device panel, the run-screen messages and the result renderers, on
fixed data (the charts: test_series_chart.py)."""

from __future__ import annotations

import dataclasses
import io

from rich.console import Console
from rich.text import Text
from textual.message import Message
from tierdeck.app.tui.bench_messages import BenchDevices, BenchProgress, BenchSamples
from tierdeck.core.bench_models import DeviceSample
from tierdeck.core.fio_models import DirectionSample, Sample
from tierdeck.core.units import fmt_bytes, fmt_count, fmt_ns, fmt_rate, fmt_rate_short
from tierdeck.widgets.bench.device_panel import DevicePanel
from tierdeck.widgets.bench.run_view import ClippedLines, list_rate_cells, summary_table

from tests.snapshots.apps.bench_data import load_events, result_of

MiB = 1024 * 1024
RW = (("read", "read", "green"), ("write", "write", "magenta"))


def sample(t: float, read_bw: float = 0.0, write_bw: float = 0.0) -> Sample:
    return Sample(
        t=t,
        interval_s=1.0,
        read=DirectionSample(read_bw, read_bw / 4096, None, None),
        write=DirectionSample(write_bw, write_bw / 4096, None, None),
    )


# -- formatting ----------------------------------------------------------------------


def test_units() -> None:
    assert fmt_rate(0) == "0 B/s"
    assert fmt_rate(150 * MiB) == "150.0 MiB/s"
    assert fmt_rate(5.5 * 1024 * MiB) == "5.5 GiB/s"
    assert fmt_count(950) == "950"
    assert fmt_count(12_345) == "12.3k"
    assert fmt_ns(850) == "850 ns"
    assert fmt_ns(179_700) == "179.7 µs"
    assert fmt_ns(104_300_000) == "104.3 ms"
    assert fmt_ns(2_500_000_000) == "2.50 s"
    # One convention in every table: binary units spelled as fio spells them.
    assert fmt_rate_short(97.4 * MiB) == "97.4 MiB/s"
    assert fmt_rate_short(813 * 1024) == "813 KiB/s"
    assert fmt_rate_short(1023 * MiB) == "1023 MiB/s"
    assert fmt_bytes(116.4 * MiB) == "116 MiB"


# -- the device panel ---------------------------------------------------------------------------


def test_device_panel_shows_which_disk_took_the_io() -> None:
    """From the recorded run through mergerfs pool/slow (create=mfs): one branch disk
    wrote everything, the other nothing."""
    events = load_events("pool_write")
    panel = DevicePanel(("loop2", "loop3"))
    for event in events:
        samples = getattr(event, "samples", None)
        if samples is not None:
            panel.load_series(samples)
    busy = panel.stats["loop2"]
    idle = panel.stats["loop3"]
    assert busy.moved > 100 * MiB and idle.moved == 0
    assert panel.busy("loop2") and not panel.busy("loop3")
    text = panel.render_at(80).plain.splitlines()
    assert text[0].split() == ["Disks", "read", "write", "IOPS", "util", "(now)", "moved"]
    assert text[1].split()[0] == "loop2" and text[1].split()[-2:] == ["116", "MiB"]
    assert text[2].split() == ["loop3", "0", "B/s", "0", "B/s", "0", "░░░░░░░░░░", "0%", "0", "B"]
    # read before write, as everywhere
    assert text[0].index("read") < text[0].index("write")
    assert all(len(line) <= 80 for line in text)


def test_device_panel_average_mode_and_no_disks() -> None:
    panel = DevicePanel(("sdb",), average=True)
    panel.load_series(
        [
            DeviceSample(1.0, "sdb", 0.0, 100 * MiB, 0.0, 100.0, 50.0),
            DeviceSample(2.0, "sdb", 0.0, 200 * MiB, 0.0, 200.0, 100.0),
        ]
    )
    assert panel.stats["sdb"].rates(True) == (0.0, 150 * MiB, 150.0, 75.0)
    assert "util (average)" in panel.render_at(80).plain
    empty = DevicePanel(())
    assert "no physical disk under this target" in empty.render_at(80).plain


# -- messages -----------------------------------------------------------------------------


def test_sample_messages_coalesce_without_losing_points() -> None:
    first, second = BenchSamples((sample(1.0),)), BenchSamples((sample(2.0),))
    assert first.can_replace(second)
    assert [s.t for s in second.samples] == [1.0, 2.0]  # the older points moved along
    devices = BenchDevices(((DeviceSample(1.0, "sdb", 0, 0, 0, 0, 0),),))
    later = BenchDevices(((DeviceSample(2.0, "sdb", 0, 0, 0, 0, 0),),))
    assert devices.can_replace(later) and len(later.intervals) == 2
    assert BenchProgress(0.1, None, "measuring").can_replace(BenchProgress(0.2, 5.0, "measuring"))
    assert not first.can_replace(BenchProgress(0.1, None, "measuring"))
    assert not first.can_replace(Message())


# -- result renderers ---------------------------------------------------------------------------


def plain(renderable: object, width: int = 80) -> str:
    console = Console(width=width, file=io.StringIO(), record=True, legacy_windows=False)
    console.print(renderable)
    return console.export_text(styles=False)


def test_read_comes_before_write_whatever_order_fio_gave() -> None:
    result = result_of(load_events("branch_randrw"))
    flipped = dataclasses.replace(result, summary=dict(reversed(list(result.summary.items()))))
    assert list(flipped.summary) == ["write", "read"]
    lines = plain(summary_table(flipped)).splitlines()
    assert lines[1].split()[0] == "read" and lines[2].split()[0] == "write"


def test_a_long_error_is_cut_with_a_count() -> None:
    lines = [Text("fio exited with status 1")] + [
        Text(f"fio: io_u error on file /mnt/x/.tierdeck-bench.job.{i}.0: No space left")
        for i in range(10)
    ]
    out = plain(ClippedLines(lines, 4, "the history has them all"), width=40).splitlines()
    assert len(out) == 4
    assert out[0] == "fio exited with status 1"
    assert out[-1].startswith("… 9 more lines") or out[-1].startswith("… 10 more lines")
    everything = plain(ClippedLines(lines, None), width=200).splitlines()
    assert len(everything) == 11  # the detail view shows them all
    one_row_each = plain(ClippedLines(lines[:3], 3, wrap=False), width=30).splitlines()
    assert len(one_row_each) == 3 and one_row_each[1].endswith("…")


def test_a_suite_in_the_list_counts_jobs_per_direction() -> None:
    suite = result_of(load_events("suite_mixed"))
    assert [c.plain for c in list_rate_cells(suite)] == ["2 jobs", "2 jobs"]
    single = result_of(load_events("stonewall_step"))  # two jobs, both write 1M: alike
    assert not single.mixed_jobs
    assert [c.plain for c in list_rate_cells(single)] == [
        "—",
        "64.7",
    ]  # under a "write MiB/s" heading
