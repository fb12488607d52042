"""What each host of a ``--clients`` run does while it runs, and where its folder is.

fio's client shows nothing per server until the end (fio 3.33, checked on real runs
and in fio's client.c): a server's ``--status-interval`` dumps wait in the client's
buffer and come out with the final report, its JSON is one document printed at the
end, and its summed "Jobs:" line is left out with JSON output. The live series are
therefore each host's own disk activity under its folder: the /proc/diskstats
counters of the disks that hold it, read through that host's connection once a
second, turned into bandwidth, IOPS and the mean time an I/O spent in the disk
(``(read_ms + write_ms) / I/Os``). There is no p99 live: diskstats keeps no
distribution. fio's own figures per host, p99 included, come with the final report.

A folder on a share (NFS, SMB, sshfs ...) has no disk on its host: that host shows no
live series, and says so. Two hosts that are one machine (same identity) and share a
disk count it once in the total.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ...backends.diskstats import DISKSTATS, DiskCounters, parse_diskstats
from ...backends.host.seam import Host
from ...backends.mounts import NETWORK_FS_TYPES, mount_for_path
from ...core.errors import ParseError, TierdeckError
from ...core.models import Inventory
from ...core.relations import disks_under

ALL_CLIENTS = "all clients"


@dataclass(frozen=True)
class FolderPlace:
    """Where a host's folder lives on that host: its own mount of a share, or a local
    filesystem (and the disks under it)."""

    shared: bool
    fs_type: str
    source: str
    mountpoint: str
    disks: tuple[str, ...]

    def describe(self) -> str:
        if self.shared:
            return f"its own mount of the share {self.source} ({self.fs_type} on {self.mountpoint})"
        disks = ", ".join(self.disks) or "no disk tierdeck sees"
        return f"a local path ({self.fs_type} on {self.mountpoint}; disks: {disks})"


def folder_place(inventory: Inventory, path: str) -> FolderPlace | None:
    """None when no mount holds ``path`` in that host's inventory."""
    mount = mount_for_path(inventory.mounts, path)
    if mount is None:
        return None
    shared = mount.fs_type in NETWORK_FS_TYPES
    disks = () if shared else disks_under(inventory, path)
    return FolderPlace(shared, mount.fs_type, mount.source, mount.mountpoint, disks)


@dataclass(frozen=True)
class Activity:
    """One interval of disk activity: read + write."""

    bw_bytes_per_s: float
    iops: float
    lat_mean_ns: float | None  # mean time an I/O spent in the disk; None without I/O


@dataclass(frozen=True)
class LiveTick:
    """One second of the run: each host's activity (None: nothing to watch there) and
    the total over distinct disks, at ``t`` seconds since fio's client started."""

    t: float
    hosts: dict[str, Activity | None]
    total: Activity | None


def _grew(new: int, old: int) -> int:
    # a counter that went down wrapped or was reset: zero is less wrong than a spike
    return new - old if new >= old else 0


def activity(
    deltas: Sequence[tuple[DiskCounters, DiskCounters]], seconds: float
) -> Activity | None:
    """What the disks did between two readings (before, after), or None when the
    interval is not a positive finite length."""
    if not (math.isfinite(seconds) and seconds > 0):
        return None
    moved = ios = busy_ms = 0
    for old, new in deltas:
        moved += _grew(new.sectors_read, old.sectors_read) + _grew(
            new.sectors_written, old.sectors_written
        )
        ios_here = _grew(new.reads, old.reads) + _grew(new.writes, old.writes)
        ios += ios_here
        if ios_here:
            busy_ms += _grew(new.read_ms, old.read_ms) + _grew(new.write_ms, old.write_ms)
    return Activity(
        bw_bytes_per_s=moved * 512 / seconds,
        iops=ios / seconds,
        lat_mean_ns=busy_ms * 1e6 / ios if ios else None,
    )


def tick(
    t: float,
    seconds: float,
    watched: Mapping[str, tuple[str, tuple[str, ...]]],
    before: Mapping[str, Mapping[str, DiskCounters]],
    after: Mapping[str, Mapping[str, DiskCounters]],
) -> LiveTick:
    """``watched``: host name -> (its machine's identity, its disks); ``before`` and
    ``after``: host name -> its disks' counters at each end of the interval."""
    hosts: dict[str, Activity | None] = {}
    distinct: dict[tuple[str, str], tuple[DiskCounters, DiskCounters]] = {}
    for name, (identity, disks) in watched.items():
        pairs = []
        for disk in disks:
            old, new = before.get(name, {}).get(disk), after.get(name, {}).get(disk)
            if old is not None and new is not None:
                pairs.append((old, new))
                distinct.setdefault((identity, disk), (old, new))
        hosts[name] = activity(pairs, seconds) if disks else None
    total = activity(list(distinct.values()), seconds) if distinct else None
    return LiveTick(t, hosts, total)


def tick_line(name: str, seen: Activity | None) -> str:
    """A progress line of the command line."""
    if seen is None:
        return f"{name}  disks -"
    lat = "-" if seen.lat_mean_ns is None else f"{seen.lat_mean_ns / 1e6:.2f} ms"
    return (
        f"{name}  disks {seen.bw_bytes_per_s / 1048576:8.1f} MiB/s "
        f"{seen.iops:8.0f} IOPS  {lat} per I/O"
    )


@dataclass(frozen=True)
class Watched:
    """A host whose disks are read each second."""

    host: Host
    identity: str
    disks: tuple[str, ...]


def read_counters(watched: Watched) -> dict[str, DiskCounters]:
    """That host's disks' counters now; {} when they cannot be read (a host lost
    mid-run is the run's to report, not the live view's)."""
    if not watched.disks:
        return {}
    try:
        counters = parse_diskstats(watched.host.read_text(DISKSTATS))
    except (TierdeckError, OSError, ParseError):
        return {}
    return {d: counters[d] for d in watched.disks if d in counters}


async def watch(
    hosts: Mapping[str, Watched], on_tick: Callable[[LiveTick], None], period: float = 1.0
) -> None:
    """Read every host's disks each ``period`` until cancelled, handing each interval
    to ``on_tick``. The readings of all hosts go at once, each in a thread (a host's
    read is a round trip over its connection)."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    plan = {name: (w.identity, w.disks) for name, w in hosts.items()}

    async def read_all() -> dict[str, dict[str, DiskCounters]]:
        names = list(hosts)
        found = await asyncio.gather(*(asyncio.to_thread(read_counters, hosts[n]) for n in names))
        return dict(zip(names, found, strict=True))

    before, before_t = await read_all(), loop.time()
    while True:
        # the next reading one period after the previous one began: no drift
        await asyncio.sleep(max(0.0, before_t + period - loop.time()))
        after, after_t = await read_all(), loop.time()
        on_tick(tick(after_t - started, after_t - before_t, plan, before, after))
        before, before_t = after, after_t
