"""/proc/diskstats parsing and per-interval rates, on recorded real files
(tests/fixtures/diskstats) and on generated ones."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tierdeck.backends.diskstats import DiskCounters, DiskstatsSampler, parse_diskstats
from tierdeck.core.bench_models import DeviceSample
from tierdeck.core.errors import ParseError

from ...paths import FIXTURES as ALL_FIXTURES

FIXTURES = ALL_FIXTURES / "diskstats"
MiB = 1024 * 1024


def text(name: str) -> str:
    return (FIXTURES / name).read_text()


class ScriptedHost:
    """Answers /proc/diskstats with the next text of a script, like a live kernel
    whose counters move between reads. Only what DiskstatsSampler uses."""

    def __init__(self, *texts: str) -> None:
        self.texts = list(texts)
        self.reads = 0

    def read_text(self, path: str) -> str:
        assert path == "/proc/diskstats"
        self.reads += 1
        return self.texts.pop(0)


# --------------------------------------------------------------------------- parsing


def test_devvm_20_fields_exact() -> None:
    stats = parse_diskstats(text("devvm-6.18-t0.diskstats"))
    assert list(stats)[:4] == ["loop0", "loop1", "loop2", "loop3"]
    assert stats["loop2"] == DiskCounters(
        major=7, minor=2, name="loop2",
        reads=616, reads_merged=0, sectors_read=15526, read_ms=36,
        writes=363, writes_merged=1462, sectors_written=269181, write_ms=190,
        in_flight=0, io_ticks_ms=136, weighted_ms=279,
        discards=7, discards_merged=0, sectors_discarded=3014662, discard_ms=0,
        flushes=48, flush_ms=52,
    )  # fmt: skip
    assert stats["loop2"].write_bytes == 269181 * 512
    assert stats["vda"].major == 254 and stats["zram0"].major == 253


def test_centos7_14_fields_have_no_discards_or_flushes() -> None:
    stats = parse_diskstats(text("centos7-3.10.diskstats"))
    assert sorted(stats) == ["sda", "sda1", "sda2", "sdb", "sdc"]
    sda = stats["sda"]
    assert (sda.reads, sda.sectors_read, sda.writes, sda.sectors_written) == (
        20076, 798556, 23573766, 253002144,
    )  # fmt: skip
    assert (sda.io_ticks_ms, sda.weighted_ms) == (9814563, 24947775)
    assert sda.discards is None and sda.flushes is None and sda.flush_ms is None
    assert stats["sdc"].minor == 32


def test_kernel_doc_old_partition_line_is_skipped() -> None:
    stats = parse_diskstats(text("kernel-doc-2.6.diskstats"))
    assert list(stats) == ["hda"]  # "hda1 35486 38030 38030 38030" has 4 counters only
    assert stats["hda"].sectors_read == 9550688


def test_kernel_doc_18_and_20_fields() -> None:
    hda = parse_diskstats(text("kernel-doc-4.18.diskstats"))["hda"]
    assert (hda.discards, hda.discard_ms, hda.flushes) == (0, 0, None)
    nvme = parse_diskstats(text("kernel-doc-nvme.diskstats"))
    assert nvme["nvme0n1"].flushes == 60602 and nvme["nvme0n1"].flush_ms == 106555
    assert nvme["nvme0n1p2"].io_ticks_ms == 344336


def test_netdata_multipath_nodes_with_major_zero() -> None:
    stats = parse_diskstats(text("netdata-9560-nvme.diskstats"))
    assert len(stats) == 19
    hidden = stats["nvme1c1n1"]
    assert (hidden.major, hidden.minor, hidden.reads) == (0, 0, 15574215)
    assert stats["nvme3n1p3"].sectors_written == 1628185952
    assert stats["nvme2n1"].discards == 0 and stats["nvme2n1"].flushes is None


def test_empty_text_is_no_devices() -> None:
    assert parse_diskstats("") == {}
    assert parse_diskstats("\n  \n") == {}


@pytest.mark.parametrize(
    "line",
    [
        "8 0 sda 1 2 3",  # truncated
        "8 0 sda " + " ".join(["1"] * 12),  # 15 fields
        "8 0 sda " + " ".join(["1"] * 16),  # 19 fields
        "8 0 sda 1 2 3 4 5 6 7 8 9 ten 11",  # a word where a counter belongs
        "8 0 sda 1 2 3 4 5 6 7 8 9 -10 11",  # negative
        "x 0 sda 1 2 3 4 5 6 7 8 9 10 11",  # bad major
        "8 0 sda 1 2 3 4 5 6 7 8 9 ١٠ 11",  # non-ASCII digits
    ],
)
def test_bad_lines_raise_parse_error(line: str) -> None:
    with pytest.raises(ParseError):
        parse_diskstats(line)


def test_future_kernel_with_more_fields_keeps_the_first_twenty() -> None:
    line = "8 0 sda " + " ".join(str(i) for i in range(1, 20))  # 22 fields
    sda = parse_diskstats(line)["sda"]
    assert (sda.reads, sda.flushes, sda.flush_ms) == (1, 16, 17)


# --------------------------------------------------------------------------- sampling


def test_sampler_rates_from_recorded_seconds() -> None:
    host = ScriptedHost(
        text("devvm-6.18-t0.diskstats"),
        text("devvm-6.18-t1.diskstats"),
        text("devvm-6.18-t2.diskstats"),
    )
    sampler = DiskstatsSampler(host, ["loop2", "loop3", "nosuchdisk", "loop2"])  # type: ignore[arg-type]
    assert sampler.devices == ("loop2", "loop3", "nosuchdisk")
    assert sampler.sample(0.0) == ()  # baseline
    first = sampler.sample(1.0)
    assert [s.device for s in first] == ["loop2", "loop3"]
    assert first[0] == DeviceSample(
        t=1.0, device="loop2",
        read_bytes_per_s=0.0, write_bytes_per_s=81920 * 512.0,  # 40 MiB/s: fio's rate=40m
        read_iops=0.0, write_iops=80.0, util_pct=pytest.approx(5.2),
    )  # fmt: skip
    assert first[1].write_bytes_per_s == 0.0 and first[1].util_pct == 0.0
    second = sampler.sample(2.0)
    assert second[0].write_bytes_per_s == 83968 * 512.0
    assert second[0].write_iops == 82.0
    assert sampler.totals["loop2"] == (0, (81920 + 83968) * 512)
    assert sampler.totals["loop3"] == (0, 0)


def test_sampler_uses_the_interval_length() -> None:
    host = ScriptedHost(text("devvm-6.18-t0.diskstats"), text("devvm-6.18-t2.diskstats"))
    sampler = DiskstatsSampler(host, ["loop2"])  # type: ignore[arg-type]
    sampler.sample(10.0)
    (two_seconds,) = sampler.sample(12.0)
    assert two_seconds.t == 12.0
    assert two_seconds.write_bytes_per_s == (435069 - 269181) * 512 / 2
    assert two_seconds.util_pct == pytest.approx((236 - 136) / 20)


def test_sampler_same_instant_keeps_the_baseline() -> None:
    host = ScriptedHost(
        text("devvm-6.18-t0.diskstats"),
        text("devvm-6.18-t1.diskstats"),
        text("devvm-6.18-t2.diskstats"),
    )
    sampler = DiskstatsSampler(host, ["loop2"])  # type: ignore[arg-type]
    sampler.sample(1.0)
    assert sampler.sample(1.0) == ()
    (sample,) = sampler.sample(2.0)  # measured against the t0 baseline
    assert sample.write_bytes_per_s == (435069 - 269181) * 512


def test_counter_reset_gives_zero_not_a_negative_rate() -> None:
    before = "7 2 loop2 100 0 5000 0 100 0 9000 0 0 700 0"
    after = "7 2 loop2 5 0 100 0 3 0 80 0 0 10 0"  # device re-attached: counters restart
    sampler = DiskstatsSampler(ScriptedHost(before, after), ["loop2"])  # type: ignore[arg-type]
    sampler.sample(0.0)
    (sample,) = sampler.sample(1.0)
    assert (sample.read_bytes_per_s, sample.write_bytes_per_s, sample.util_pct) == (0, 0, 0)


def test_util_is_capped_at_100() -> None:
    before = "7 2 loop2 0 0 0 0 0 0 0 0 0 0 0"
    after = "7 2 loop2 0 0 0 0 0 0 0 0 1 1040 1040"  # jiffies vs wall clock
    sampler = DiskstatsSampler(ScriptedHost(before, after), ["loop2"])  # type: ignore[arg-type]
    sampler.sample(0.0)
    assert sampler.sample(1.0)[0].util_pct == 100.0


def test_no_devices_reads_nothing() -> None:
    host = ScriptedHost()
    sampler = DiskstatsSampler(host, [])  # type: ignore[arg-type]
    assert sampler.sample(0.0) == () and sampler.sample(1.0) == ()
    assert host.reads == 0


# --------------------------------------------------------------------------- properties

counters = st.integers(min_value=0, max_value=2**64 - 1)


@st.composite
def diskstats_lines(draw: st.DrawFn) -> tuple[str, list[int], str]:
    width = draw(st.sampled_from([14, 18, 20]))
    name = draw(st.from_regex(r"[a-z][a-z0-9]{0,11}", fullmatch=True))
    values = draw(st.lists(counters, min_size=width - 3, max_size=width - 3))
    major, minor = draw(counters), draw(counters)
    pad = draw(st.sampled_from([" ", "  ", "   ", "\t"]))
    line = pad.join([str(major), str(minor), name, *map(str, values)])
    return name, [major, minor, *values], line


@given(diskstats_lines())
def test_generated_lines_round_trip(case: tuple[str, list[int], str]) -> None:
    name, numbers, line = case
    parsed = parse_diskstats("   " + line + "\n")[name]
    assert (parsed.major, parsed.minor) == (numbers[0], numbers[1])
    assert parsed.reads == numbers[2] and parsed.weighted_ms == numbers[12]
    assert parsed.sectors_written * 512 == parsed.write_bytes
    width = len(numbers) + 1
    assert (parsed.discards is None) == (width == 14)
    assert (parsed.flushes is None) == (width < 20)


@settings(max_examples=300)
@given(st.text())
def test_garbage_parses_or_raises_parse_error(garbage: str) -> None:
    try:
        result = parse_diskstats(garbage)
    except ParseError:
        return
    assert all(isinstance(c, DiskCounters) for c in result.values())


@given(st.lists(st.sampled_from(["8", "0", "sda", "x", "-1", "٣", "\x00", " ", "\n"]), max_size=40))
def test_near_miss_tokens_parse_or_raise_parse_error(tokens: list[str]) -> None:
    try:
        parse_diskstats(" ".join(tokens))
    except ParseError:
        pass


@given(
    st.lists(st.integers(min_value=0, max_value=10**6), min_size=3, max_size=3),
    st.floats(min_value=0.05, max_value=10.0),
)
def test_rates_are_deltas_over_time(steps: list[int], seconds: float) -> None:
    base = [10, 0, 100, 1, 20, 0, 300, 2, 0, 50, 60]
    after = list(base)
    after[0] += steps[0]  # reads
    after[2] += steps[1] * 8  # sectors read
    after[9] += steps[2] % 1000  # io_ticks
    line = "8 16 sdb {}"
    sampler = DiskstatsSampler(
        ScriptedHost(line.format(" ".join(map(str, base))), line.format(" ".join(map(str, after)))),  # type: ignore[arg-type]
        ["sdb"],
    )
    sampler.sample(5.0)
    (sample,) = sampler.sample(5.0 + seconds)
    assert sample.read_iops == pytest.approx(steps[0] / seconds)
    assert sample.read_bytes_per_s == pytest.approx(steps[1] * 8 * 512 / seconds)
    assert 0.0 <= sample.util_pct <= 100.0
    assert sampler.totals["sdb"] == (steps[1] * 8 * 512, 0)
