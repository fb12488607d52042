"""Raw mode: benchmarking a block device itself, refused unless nothing lives on it and
its name is typed to confirm.

Apart from ``preflight``: the device checks (holders, mounts, pools, swap, blkid
signatures) share nothing with planning a run in a directory.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence

from ...backends.host import Host
from ...core.bench_models import BenchRefused, BenchTarget, RefusalKind, RunWarning, WarningKind
from ...core.errors import HostError
from ...core.jobspec import JobSpec, fio_size_bytes
from ...core.models import Disk, Inventory, Partition
from ...core.relations import disks_under
from ...core.units import format_bytes_exact
from .target_lookup import block_device


def _signatures(host: Host, node: str) -> list[str]:
    """Signatures on a device (filesystem, RAID/LVM/ZFS member, swap, partition table),
    as "TYPE" or "PTTYPE=..." strings. Raises BenchRefused when it cannot tell."""
    try:
        result = host.run(["blkid", "-p", "-o", "export", node])
    except HostError:
        result = None
    if result is not None:
        if result.returncode == 2 and not result.stdout.strip():
            return []  # blkid(8): exit 2 when nothing could be identified
        if result.returncode in (0, 8):  # 8: ambivalent, several signatures
            found = []
            for line in result.stdout.splitlines():
                key, _, value = line.partition("=")
                if key == "TYPE":
                    found.append(value)
                elif key == "PTTYPE":
                    found.append(f"PTTYPE={value}")
            return found or ["unidentified signature (blkid exit 8)"]
        raise BenchRefused(
            f"cannot check {node} for a filesystem: blkid exited {result.returncode}: "
            f"{result.stderr.strip() or result.stdout.strip()}"
        )
    try:
        wiped = host.run(["wipefs", "-n", node])
    except HostError as exc:
        raise BenchRefused(
            f"cannot check {node} for a filesystem signature: neither blkid nor wipefs "
            f"works here ({exc}); raw mode needs one of them (util-linux)"
        ) from exc
    if not wiped.ok:
        raise BenchRefused(f"cannot check {node} for a filesystem: {wiped.stderr.strip()}")
    # wipefs lists one signature per line with its hex offset ("loop2 0x438 ext4 ...").
    return [line.strip() for line in wiped.stdout.splitlines() if "0x" in line]


def _raw_problems(host: Host, inv: Inventory, disk: Disk, part: Partition | None) -> list[str]:
    names = {part.name} if part is not None else {disk.name, *(p.name for p in disk.partitions)}
    problems: list[str] = []
    holders = part.holders if part is not None else disk.holders
    if holders:
        problems.append(f"it is held by {', '.join(holders)}")
    if part is None:
        for p in disk.partitions:
            if p.holders:
                problems.append(f"partition {p.name} is held by {', '.join(p.holders)}")
    for mount in inv.mounts:
        # btrfs mounts carry an anonymous 0:N device number: the source names the disk
        sources = {inv.dev_names.get(mount.major_minor), posixpath.basename(mount.source)}
        for mounted in sorted(n for n in sources if n in names):
            problems.append(f"{mounted} is mounted on {mount.mountpoint}")
    for fs in inv.btrfs:
        if any(posixpath.basename(d.path) in names for d in fs.devices):
            problems.append(f"it belongs to btrfs filesystem {fs.label or fs.uuid}")
    for array in inv.md:
        if any(m.name in names for m in array.members):
            problems.append(f"it is a member of md array {array.name}")
    for pool in inv.zfs.pools:
        if disk.name in disks_under(inv, f"zpool:{pool.name}"):
            problems.append(f"it belongs to ZFS pool {pool.name}")
    try:
        swaps = host.read_text("/proc/swaps")
    except (OSError, HostError):
        swaps = ""
    for line in swaps.splitlines()[1:]:
        device = line.split()[0] if line.split() else ""
        if posixpath.basename(device) in names:
            problems.append(f"{posixpath.basename(device)} is in use as swap")
    node = part.path if part is not None else disk.path
    fs_type = part.fs_type if part is not None else disk.fs_type
    if fs_type:
        problems.append(f"it carries a {fs_type} filesystem")
    signatures = _signatures(host, node)
    if any(not s.startswith("PTTYPE=") for s in signatures):
        problems.append(f"blkid finds a signature on {node}: {', '.join(signatures)}")
    if part is None:
        for p in disk.partitions:
            found = [s for s in _signatures(host, p.path) if not s.startswith("PTTYPE=")]
            if found or p.fs_type:
                problems.append(f"partition {p.name} carries {', '.join(found) or p.fs_type}")
    return list(dict.fromkeys(problems))


def plan_raw(
    host: Host,
    inv: Inventory,
    target: BenchTarget,
    jobs: Sequence[JobSpec],
    raw_confirm: str | None,
) -> tuple[RunWarning, ...]:
    found = block_device(inv, target.path)
    if found is None:  # pragma: no cover - resolve_target only makes RAW from these
        raise BenchRefused(f"{target.path} is not a disk tierdeck knows")
    disk, part = found
    name = part.name if part is not None else disk.name
    # Everything that makes raw mode impossible first: nobody should type a device
    # name only to learn that the device is in use.
    if not host.is_root:
        raise BenchRefused("raw mode needs root (to check and open the device)")
    problems = _raw_problems(host, inv, disk, part)
    if problems:
        raise BenchRefused(
            f"refusing raw mode on {target.path}: {'; '.join(problems)}. A raw benchmark "
            "would destroy it. Benchmark a directory on it instead."
        )
    size = part.size_bytes if part is not None else disk.size_bytes
    for job in jobs:
        wanted = fio_size_bytes(job.size) if job.size is not None else None
        if wanted is not None and wanted > size:
            raise BenchRefused(
                f"{job.name}: size {format_bytes_exact(wanted)} is larger than {target.path} ({format_bytes_exact(size)})"
            )
        if disk.read_only and not job.rw.split(":", 1)[0].endswith("read"):
            raise BenchRefused(f"{target.path} is read-only; {job.name} writes (rw={job.rw})")
    if raw_confirm is None:
        raise BenchRefused(
            f"{target.path} is a block device: a benchmark there reads and writes the "
            "device itself and destroys what is on it. tierdeck does that only in raw "
            "mode, for a device with no filesystem, no partition in use and no pool "
            f"membership, with its name ({name}) typed to confirm.",
            kind=RefusalKind.RAW_CONFIRMATION,
        )
    if raw_confirm.strip() not in (name, f"/dev/{name}"):
        raise BenchRefused(
            f"raw mode: the confirmation {raw_confirm!r} does not match the device name "
            f"{name!r}; type it exactly to confirm"
        )
    return (
        RunWarning(
            WarningKind.RAW_MODE,
            f"raw mode: fio reads and writes {target.path} directly; its contents are lost",
        ),
    )
