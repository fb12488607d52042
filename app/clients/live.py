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

A folder on a share (NFS, SMB, sshfs ...) has no disk on its host; its line is read
elsewhere (``ShareWatch``): on an NFS mount, that mount's counters in
/proc/self/mountstats (bytes to and from the server, READ and WRITE RPCs and the time
they took: backends/mountstats.py); on any other network filesystem, the network
interface its server is reached through (/sys/class/net/IF/statistics: bandwidth only,
everything on that interface; backends/netdev.py). A share whose server or interface
cannot be told shows no line, and says so. Two hosts that are one machine (same
identity) count a disk, a mount or an interface once in the total.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from ...backends.diskstats import DISKSTATS, SECTOR_BYTES, DiskCounters, parse_diskstats
from ...backends.host.seam import Host
from ...backends.mounts import NETWORK_FS_TYPES, mount_for_path
from ...backends.mountstats import MOUNTSTATS, parse_mountstats
from ...backends.netdev import read_interface, route_interface, server_of
from ...core.errors import ParseError, TierdeckError
from ...core.models import Inventory
from ...core.relations import disks_under

ALL_CLIENTS = "all clients"
DISKS = "disks"
NFS = "nfs"
NET = "net"
_NFS_TYPES = frozenset({"nfs", "nfs4"})


@dataclass(frozen=True)
class ShareWatch:
    """What shows a share folder's I/O live on its host: ``kind`` NFS, ``key`` the
    mountpoint (its /proc/self/mountstats block); or NET, ``key`` the interface."""

    kind: str
    key: str

    @property
    def label(self) -> str:
        """Said before the figures of a progress line: "nfs", "net eth0"."""
        return NFS if self.kind == NFS else f"{NET} {self.key}"

    def describe(self) -> str:
        if self.kind == NFS:
            return f"its NFS mount's counters ({MOUNTSTATS})"
        return f"the network interface {self.key}, which carries the share's traffic"


@dataclass(frozen=True)
class FolderPlace:
    """Where a host's folder lives on that host: its own mount of a share (and what
    shows its I/O live), or a local filesystem (and the disks under it)."""

    shared: bool
    fs_type: str
    source: str
    mountpoint: str
    disks: tuple[str, ...]
    server: str | None = None  # a share's server (an address or a name)
    watch: ShareWatch | None = None  # a share's live line; None: none can be read

    def describe(self) -> str:
        if self.shared:
            return f"its own mount of the share {self.source} ({self.fs_type} on {self.mountpoint})"
        disks = ", ".join(self.disks) or "no disk tierdeck sees"
        return f"a local path ({self.fs_type} on {self.mountpoint}; disks: {disks})"


def folder_place(inventory: Inventory, path: str) -> FolderPlace | None:
    """None when no mount holds ``path`` in that host's inventory. An NFS mount's live
    line is its own counters; another share's needs its interface (``share_place``)."""
    mount = mount_for_path(inventory.mounts, path)
    if mount is None:
        return None
    if mount.fs_type not in NETWORK_FS_TYPES:
        disks = disks_under(inventory, path)
        return FolderPlace(False, mount.fs_type, mount.source, mount.mountpoint, disks)
    if mount.fs_type in _NFS_TYPES:
        watch = ShareWatch(NFS, mount.mountpoint)
        return FolderPlace(True, mount.fs_type, mount.source, mount.mountpoint, (), None, watch)
    server = server_of(mount.source, mount.super_options)
    return FolderPlace(True, mount.fs_type, mount.source, mount.mountpoint, (), server)


def share_place(host: Host, place: FolderPlace) -> FolderPlace:
    """A share's place with the interface its server is reached through on ``host``
    (asked of that host: a route lookup, a name resolved), when it can be told."""
    if not place.shared or place.watch is not None or place.server is None:
        return place
    interface = route_interface(host, place.server)
    return place if interface is None else replace(place, watch=ShareWatch(NET, interface))


@dataclass(frozen=True)
class Activity:
    """One interval of activity (disks, an NFS mount or an interface): read + write."""

    bw_bytes_per_s: float
    iops: float | None  # None: what was read counts no I/Os (an interface)
    lat_mean_ns: float | None  # mean time an I/O spent in the disk or RPC; None without


@dataclass(frozen=True)
class LiveTick:
    """One second of the run: each host's activity (None: nothing to watch there) and
    the total over distinct sources, at ``t`` seconds since fio's client started;
    ``kinds``: what each host's line reads ("disks", "nfs", "net eth0")."""

    t: float
    hosts: dict[str, Activity | None]
    total: Activity | None
    kinds: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Moved:
    """Cumulative counters of one source: a disk, an NFS mount, an interface."""

    read_bytes: int
    write_bytes: int
    reads: int | None = None  # None: the source counts no I/Os
    writes: int | None = None
    read_ms: int = 0
    write_ms: int = 0


def moved(counters: DiskCounters | Moved) -> Moved:
    if isinstance(counters, Moved):
        return counters
    return Moved(
        counters.sectors_read * SECTOR_BYTES,
        counters.sectors_written * SECTOR_BYTES,
        counters.reads,
        counters.writes,
        counters.read_ms,
        counters.write_ms,
    )


def _grew(new: int, old: int) -> int:
    # a counter that went down wrapped or was reset: zero is less wrong than a spike
    return new - old if new >= old else 0


def activity(
    deltas: Sequence[tuple[DiskCounters | Moved, DiskCounters | Moved]], seconds: float
) -> Activity | None:
    """What the sources did between two readings (before, after), or None when the
    interval is not a positive finite length."""
    if not (math.isfinite(seconds) and seconds > 0):
        return None
    bytes_moved = ios = busy_ms = 0
    counted = not deltas  # a source that counts I/Os was read (or none at all: 0 IOPS)
    for before, after in deltas:
        old, new = moved(before), moved(after)
        bytes_moved += _grew(new.read_bytes, old.read_bytes) + _grew(
            new.write_bytes, old.write_bytes
        )
        if None in (new.reads, new.writes, old.reads, old.writes):
            continue
        counted = True
        ios_here = _grew(new.reads or 0, old.reads or 0) + _grew(new.writes or 0, old.writes or 0)
        ios += ios_here
        if ios_here:
            busy_ms += _grew(new.read_ms, old.read_ms) + _grew(new.write_ms, old.write_ms)
    return Activity(
        bw_bytes_per_s=bytes_moved / seconds,
        iops=ios / seconds if counted else None,
        lat_mean_ns=busy_ms * 1e6 / ios if ios else None,
    )


def tick(
    t: float,
    seconds: float,
    watched: Mapping[str, tuple[str, tuple[str, ...]]],
    before: Mapping[str, Mapping[str, DiskCounters | Moved]],
    after: Mapping[str, Mapping[str, DiskCounters | Moved]],
    kinds: Mapping[str, str] | None = None,
) -> LiveTick:
    """``watched``: host name -> (its machine's identity, its sources: disks by name,
    ``nfs:MOUNTPOINT``, ``net:IF``); ``before`` and ``after``: host name -> its sources'
    counters at each end of the interval; ``kinds``: each host's line's kind."""
    hosts: dict[str, Activity | None] = {}
    distinct: dict[tuple[str, str], tuple[DiskCounters | Moved, DiskCounters | Moved]] = {}
    for name, (identity, sources) in watched.items():
        pairs = []
        for source in sources:
            old, new = before.get(name, {}).get(source), after.get(name, {}).get(source)
            if old is not None and new is not None:
                pairs.append((old, new))
                distinct.setdefault((identity, source), (old, new))
        hosts[name] = activity(pairs, seconds) if sources else None
    total = activity(list(distinct.values()), seconds) if distinct else None
    return LiveTick(t, hosts, total, dict(kinds or {}))


def tick_line(name: str, seen: Activity | None, kind: str = DISKS) -> str:
    """A progress line of the command line; ``kind`` what it reads ("disks", "nfs",
    "net eth0")."""
    if seen is None:
        return f"{name}  {kind} -"
    lat = "-" if seen.lat_mean_ns is None else f"{seen.lat_mean_ns / 1e6:.2f} ms"
    iops = "       - IOPS" if seen.iops is None else f"{seen.iops:8.0f} IOPS"
    return f"{name}  {kind} {seen.bw_bytes_per_s / 1048576:8.1f} MiB/s {iops}  {lat} per I/O"


@dataclass(frozen=True)
class Watched:
    """A host whose disks, or share, are read each second."""

    host: Host
    identity: str
    disks: tuple[str, ...]
    share: ShareWatch | None = None  # a share folder's source (no disks then)

    @property
    def sources(self) -> tuple[str, ...]:
        """The keys of what is read: the disks, or ``nfs:MOUNTPOINT`` / ``net:IF``."""
        if self.disks or self.share is None:
            return self.disks
        return (f"{self.share.kind}:{self.share.key}",)

    @property
    def kind(self) -> str:
        return DISKS if self.disks or self.share is None else self.share.label


def read_counters(watched: Watched) -> dict[str, DiskCounters | Moved]:
    """That host's sources' counters now; {} when they cannot be read (a host lost
    mid-run is the run's to report, not the live view's)."""
    try:
        if watched.disks:
            counters = parse_diskstats(watched.host.read_text(DISKSTATS))
            return {d: counters[d] for d in watched.disks if d in counters}
        share = watched.share
        if share is None:
            return {}
        key = f"{share.kind}:{share.key}"
        if share.kind == NFS:
            nfs = parse_mountstats(watched.host.read_text(MOUNTSTATS)).get(share.key)
            if nfs is None:
                return {}
            return {key: Moved(nfs.server_read_bytes, nfs.server_write_bytes,
                               nfs.reads, nfs.writes, nfs.read_ms, nfs.write_ms)}  # fmt: skip
        net = read_interface(watched.host, share.key)
        return {} if net is None else {key: Moved(net.rx_bytes, net.tx_bytes)}
    except (TierdeckError, OSError, ParseError):
        return {}


async def watch(
    hosts: Mapping[str, Watched], on_tick: Callable[[LiveTick], None], period: float = 1.0
) -> None:
    """Read every host's disks each ``period`` until cancelled, handing each interval
    to ``on_tick``. The readings of all hosts go at once, each in a thread (a host's
    read is a round trip over its connection)."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    plan = {name: (w.identity, w.sources) for name, w in hosts.items()}
    kinds = {name: w.kind for name, w in hosts.items()}

    async def read_all() -> dict[str, dict[str, DiskCounters | Moved]]:
        names = list(hosts)
        found = await asyncio.gather(*(asyncio.to_thread(read_counters, hosts[n]) for n in names))
        return dict(zip(names, found, strict=True))

    before, before_t = await read_all(), loop.time()
    while True:
        # the next reading one period after the previous one began: no drift
        await asyncio.sleep(max(0.0, before_t + period - loop.time()))
        after, after_t = await read_all(), loop.time()
        on_tick(tick(after_t - started, after_t - before_t, plan, before, after, kinds))
        before, before_t = after, after_t
