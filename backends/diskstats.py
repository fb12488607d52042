"""/proc/diskstats: what each block device really moved, second by second.

The benchmark's device panel uses it to show which disks under a target take the I/O
(a mergerfs create policy picking a branch, a ZFS mirror splitting reads) and the runner
compares it with what fio claims, to catch page cache / ARC inflated results.

Format (kernel Documentation/admin-guide/iostats.rst, ABI/testing/procfs-diskstats):
``major minor name`` then 11 counters (14 fields, kernels < 4.18), 15 (18 fields, 4.18+:
discards) or 17 (20 fields, 5.5+: flushes). Kernels 2.6.0-2.6.24 printed partitions with
only 4 counters (7 fields); such lines are skipped, since tierdeck samples whole disks.
Sectors are always 512 bytes here, whatever the device's logical block size.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..core.bench_models import DeviceSample
from ..core.errors import ParseError
from .host import Host

SOURCE = "/proc/diskstats"
DISKSTATS = "/proc/diskstats"
SECTOR_BYTES = 512  # iostats.rst: the kernel counts 512-byte sectors for every device

_OLD_PARTITION_FIELDS = 7  # 2.6.0-2.6.24 partitions: reads, sectors, writes, sectors
_BASE_FIELDS = 14
_DISCARD_FIELDS = 18
_FLUSH_FIELDS = 20


@dataclass(frozen=True)
class DiskCounters:
    """One line of /proc/diskstats. Counters are cumulative since boot (or since the
    device appeared) and may wrap; ``in_flight`` is the only gauge."""

    major: int
    minor: int
    name: str
    reads: int  # reads completed
    reads_merged: int
    sectors_read: int
    read_ms: int
    writes: int
    writes_merged: int
    sectors_written: int
    write_ms: int
    in_flight: int
    io_ticks_ms: int  # time the device had I/O in progress: the basis of "util %"
    weighted_ms: int
    discards: int | None = None  # None: kernel < 4.18 does not count them
    discards_merged: int | None = None
    sectors_discarded: int | None = None
    discard_ms: int | None = None
    flushes: int | None = None  # None: kernel < 5.5
    flush_ms: int | None = None

    @property
    def read_bytes(self) -> int:
        return self.sectors_read * SECTOR_BYTES

    @property
    def write_bytes(self) -> int:
        return self.sectors_written * SECTOR_BYTES


def _parse_line(line: str, line_no: int) -> DiskCounters | None:
    fields = line.split()
    count = len(fields)
    if count == _OLD_PARTITION_FIELDS:
        return None
    if count < _BASE_FIELDS or _BASE_FIELDS < count < _DISCARD_FIELDS:
        raise ParseError(SOURCE, f"line {line_no}: {count} fields, expected 14, 18 or 20", line)
    if _DISCARD_FIELDS < count < _FLUSH_FIELDS:
        raise ParseError(SOURCE, f"line {line_no}: {count} fields, expected 14, 18 or 20", line)
    # More than 20: a newer kernel appended counters; the first 20 keep their meaning.
    numbers: list[int] = []
    for index, text in enumerate(fields):
        if index == 2:
            continue
        if not text.isascii() or not text.isdigit():
            raise ParseError(SOURCE, f"line {line_no}: field {index + 1} is not a counter", line)
        numbers.append(int(text))
    name = fields[2]
    major, minor, stats = numbers[0], numbers[1], numbers[2:]
    discard = stats[11:15] if count >= _DISCARD_FIELDS else [None] * 4
    flush = stats[15:17] if count >= _FLUSH_FIELDS else [None] * 2
    return DiskCounters(major, minor, name, *stats[:11], *discard, *flush)


def parse_diskstats(text: str) -> dict[str, DiskCounters]:
    """Every device line, by kernel name. Raises ParseError on anything else."""
    devices: dict[str, DiskCounters] = {}
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        counters = _parse_line(line, line_no)
        if counters is not None:
            devices[counters.name] = counters
    return devices


def _delta(new: int, old: int) -> int:
    # A counter that went down wrapped (32-bit fields) or was reset (device re-attached):
    # the true delta is unknowable, and a zero is less wrong than a huge spike.
    return new - old if new >= old else 0


class DiskstatsSampler:
    """Per-interval rates for a fixed set of disks, through a Host.

    The first :meth:`sample` call only takes the baseline and returns ``()``; each later
    call returns one :class:`DeviceSample` per device present in both readings, covering
    the time since the previous call. :attr:`totals` keeps the bytes moved since the
    baseline, which the runner compares with fio's own byte counts.
    """

    def __init__(self, host: Host, devices: Sequence[str]) -> None:
        self._host = host
        self._devices = tuple(dict.fromkeys(devices))  # ordered, without duplicates
        self._previous: dict[str, DiskCounters] | None = None
        self._previous_t = 0.0
        self._totals: dict[str, tuple[int, int]] = {}

    @property
    def devices(self) -> tuple[str, ...]:
        return self._devices

    @property
    def totals(self) -> dict[str, tuple[int, int]]:
        """device -> (bytes read, bytes written) since the first sample."""
        return dict(self._totals)

    def read(self) -> dict[str, DiskCounters]:
        """The current counters of the sampled devices (those the kernel still lists)."""
        if not self._devices:
            return {}
        counters = parse_diskstats(self._host.read_text(DISKSTATS))
        return {name: counters[name] for name in self._devices if name in counters}

    def sample(self, t: float) -> tuple[DeviceSample, ...]:
        """Rates since the previous call; ``t`` is the end of the interval in seconds
        (any clock, as long as it only moves forward)."""
        current = self.read()
        previous, previous_t = self._previous, self._previous_t
        if previous is not None and t <= previous_t:
            return ()  # no time has passed: keep the older baseline
        self._previous, self._previous_t = current, t
        if previous is None:
            return ()
        seconds = t - previous_t
        samples: list[DeviceSample] = []
        for name, new in current.items():
            old = previous.get(name)
            if old is None:
                continue  # appeared mid-run: it gets a baseline now
            read_bytes = _delta(new.sectors_read, old.sectors_read) * SECTOR_BYTES
            write_bytes = _delta(new.sectors_written, old.sectors_written) * SECTOR_BYTES
            total_read, total_written = self._totals.get(name, (0, 0))
            self._totals[name] = (total_read + read_bytes, total_written + write_bytes)
            busy_ms = _delta(new.io_ticks_ms, old.io_ticks_ms)
            samples.append(
                DeviceSample(
                    t=t,
                    device=name,
                    read_bytes_per_s=read_bytes / seconds,
                    write_bytes_per_s=write_bytes / seconds,
                    read_iops=_delta(new.reads, old.reads) / seconds,
                    write_iops=_delta(new.writes, old.writes) / seconds,
                    # io_ticks advances in jiffies, so a busy device can show a little
                    # over 100 % for an interval measured on another clock: cap it.
                    util_pct=min(100.0, busy_ms / (seconds * 10.0)),
                )
            )
        return tuple(samples)
