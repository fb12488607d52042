"""Pool-level health the inventory does not read: a ZFS pool's last scrub (from the
``scan:`` line ``backends/zfs`` already parsed), btrfs device error counters and an md
array's ``mismatch_cnt``.

* ZFS, ``zpool status`` text: ``scrub repaired 0B in 00:00:01 with 0 errors on Sun Nov
  27 10:00:01 2022`` (the end in the host's local time, ctime's format). The JSON form
  (OpenZFS 2.3) keeps ``end_time`` as seconds and ``errors`` as a number.
* btrfs: ``/sys/fs/btrfs/<uuid>/devinfo/<devid>/error_stats`` (kernel 5.14+, readable
  without root), the counters of ``btrfs device stats``; on older kernels that command
  itself (root), lines like ``[/dev/sdb].write_io_errs    0``.
* md: ``/sys/block/mdX/md/mismatch_cnt`` (Documentation/admin-guide/md.rst): sectors
  the last check or repair found different between copies.
"""

from __future__ import annotations

import re
import time

from ..core.disk_health import DeviceErrors, ScrubInfo
from ..core.errors import HostError
from ..core.models import BtrfsFilesystem, MdArray, ZPool
from .host import Host

_SCRUB_END_RE = re.compile(
    r"with ([0-9]{1,15}) errors? on (\w{3} \w{3} +[0-9]{1,2} [0-9:]{8} [0-9]{4})"
)
_STAT_LINE_RE = re.compile(r"^\[(.+)\]\.(\w+)\s+([0-9]{1,15})$")
_COUNTERS = ("write_io_errs", "read_io_errs", "flush_io_errs", "corruption_errs", "generation_errs")
_SYSFS_NAMES = {"write_errs": "write_io_errs", "read_errs": "read_io_errs",
                "flush_errs": "flush_io_errs"}  # fmt: skip


def scrub_info(pool: ZPool, now: float) -> ScrubInfo:
    scan = pool.scan
    if scan is None or scan.function != "scrub":
        # never scrubbed, or the last scan was a resilver: zpool keeps only the last one
        state = "none" if scan is None or scan.function == "none" else "unknown"
        return ScrubInfo(state=state)
    if scan.state != "finished":
        return ScrubInfo(state=scan.state)
    match = _SCRUB_END_RE.search(scan.text)
    if match is None:
        return ScrubInfo(state="finished")
    try:
        ended = time.mktime(time.strptime(" ".join(match.group(2).split()), "%a %b %d %H:%M:%S %Y"))
    except (ValueError, OverflowError):
        return ScrubInfo(state="finished", errors=int(match.group(1)))
    return ScrubInfo(
        state="finished",
        ended=ended,
        errors=int(match.group(1)),
        age_days=max(0.0, (now - ended) / 86400),
    )


def _error_stats(text: str, device: str) -> DeviceErrors | None:
    counts: dict[str, int] = {}
    for line in text.splitlines():
        words = line.split()
        if len(words) == 2 and words[1].isascii() and words[1].isdigit() and len(words[1]) < 16:
            counts[_SYSFS_NAMES.get(words[0], words[0])] = int(words[1])
    if not all(c in counts for c in _COUNTERS):
        return None
    return DeviceErrors(device, *(counts[c] for c in _COUNTERS))


def parse_device_stats(text: str) -> tuple[DeviceErrors, ...]:
    """``btrfs device stats`` output, one DeviceErrors per device."""
    per_device: dict[str, dict[str, int]] = {}
    for line in text.splitlines():
        match = _STAT_LINE_RE.match(line.strip())
        if match:
            per_device.setdefault(match.group(1), {})[match.group(2)] = int(match.group(3))
    return tuple(
        DeviceErrors(dev, *(counts.get(c, 0) for c in _COUNTERS))
        for dev, counts in per_device.items()
    )


def btrfs_device_errors(
    host: Host, fs: BtrfsFilesystem
) -> tuple[tuple[DeviceErrors, ...], str | None]:
    """Each device's counters, and why they could not be read (or None)."""
    found: list[DeviceErrors] = []
    for dev in fs.devices:
        if dev.missing:
            continue
        path = f"/sys/fs/btrfs/{fs.uuid}/devinfo/{dev.devid}/error_stats"
        try:
            stats = _error_stats(host.read_text(path), dev.path)
        except (OSError, HostError):
            stats = None
        if stats is None:
            break
        found.append(stats)
    else:
        return tuple(found), None
    if not fs.mountpoints:
        return (), "not mounted: device stats need a mounted filesystem"
    try:
        result = host.run(["btrfs", "device", "stats", fs.mountpoints[0]])
    except HostError as exc:
        return (), f"btrfs device stats: {exc}"
    if not result.ok:
        detail = result.stderr.strip().splitlines()
        return (), f"btrfs device stats: {detail[-1] if detail else result.returncode}"
    return parse_device_stats(result.stdout), None


def md_mismatch(host: Host, array: MdArray) -> int | None:
    try:
        text = host.read_text(f"/sys/block/{array.name}/md/mismatch_cnt").strip()
    except (OSError, HostError):
        return None
    return int(text) if text.isascii() and text.isdigit() and len(text) < 20 else None
