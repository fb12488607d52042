"""What an admin should look at first: problems found in an inventory.

Thresholds follow common NAS practice: ZFS performance drops past ~80% full and gets bad
past 90%; a filesystem over 90% is worth a warning, over 97% is urgent. Read-only images
(squashfs snaps, ISO) are always 100% full by design and are skipped.
"""

from __future__ import annotations

from .models import Inventory, MergerfsPool, Problem, Severity, Vdev, ZPool
from .units import format_bytes

FULL_WARNING = 0.90
FULL_CRITICAL = 0.97
ZPOOL_CAP_WARNING = 80
ZPOOL_CAP_CRITICAL = 90
_ALWAYS_FULL = {"squashfs", "iso9660", "udf", "erofs", "cramfs"}
_BAD_POOL_STATES = {"FAULTED", "UNAVAIL", "SUSPENDED", "REMOVED"}


def _vdev_problems(pool: ZPool, vdev: Vdev, out: list[Problem]) -> None:
    errors = vdev.read_errors + vdev.write_errors + vdev.checksum_errors
    if vdev.state not in ("ONLINE", "AVAIL", "INUSE") or errors:
        severity = (
            Severity.CRITICAL
            if vdev.state in ("FAULTED", "UNAVAIL", "REMOVED")
            else Severity.WARNING
        )
        detail = f"state {vdev.state}"
        if errors:
            detail += (
                f", errors read {vdev.read_errors} write {vdev.write_errors}"
                f" cksum {vdev.checksum_errors}"
            )
        if vdev.note:
            detail += f" {vdev.note}"
        out.append(Problem(severity, f"zpool {pool.name} vdev {vdev.name}", detail))
    for child in vdev.children:
        _vdev_problems(pool, child, out)


def _zpool_problems(pool: ZPool, out: list[Problem]) -> None:
    if pool.state != "ONLINE":
        severity = Severity.CRITICAL if pool.state in _BAD_POOL_STATES else Severity.WARNING
        out.append(Problem(severity, f"zpool {pool.name}", f"pool is {pool.state}"))
    for vdev in pool.all_vdevs():
        _vdev_problems(pool, vdev, out)
    scan = pool.scan
    if scan is not None and scan.state == "in_progress":
        pct = f"{scan.percent_done:.1f}% done" if scan.percent_done is not None else "running"
        eta = f", {scan.eta}" if scan.eta else ""
        severity = Severity.WARNING if scan.function == "resilver" else Severity.INFO
        out.append(Problem(severity, f"zpool {pool.name}", f"{scan.function} {pct}{eta}"))
    if pool.capacity_pct is not None and pool.capacity_pct >= ZPOOL_CAP_WARNING:
        severity = (
            Severity.CRITICAL if pool.capacity_pct >= ZPOOL_CAP_CRITICAL else Severity.WARNING
        )
        out.append(Problem(severity, f"zpool {pool.name}", f"{pool.capacity_pct}% full"))


def _mergerfs_problems(pool: MergerfsPool, out: list[Problem]) -> None:
    subject = f"mergerfs {pool.mountpoint}"
    if pool.error:
        out.append(Problem(Severity.WARNING, subject, pool.error))
        return
    creatable = 0
    writable = 0
    for branch in pool.branches:
        limit = pool.branch_minfreespace(branch)
        if branch.mode.value != "RW":
            continue
        writable += 1
        if limit is not None and branch.avail_bytes is not None and branch.avail_bytes < limit:
            out.append(
                Problem(
                    Severity.WARNING,
                    f"{subject} branch {branch.path}",
                    f"{format_bytes(branch.avail_bytes)} free, below minfreespace "
                    f"{format_bytes(limit)}: new files will not be created there",
                )
            )
        else:
            creatable += 1
    if writable and not creatable:
        out.append(
            Problem(
                Severity.CRITICAL,
                subject,
                "every RW branch is below minfreespace: creating files fails with ENOSPC",
            )
        )


def find_problems(inv: Inventory) -> tuple[Problem, ...]:
    """Every problem, most severe first."""
    out: list[Problem] = []
    for pool in inv.zfs.pools:
        _zpool_problems(pool, out)
    for array in inv.md:
        if array.degraded:
            out.append(
                Problem(
                    Severity.CRITICAL,
                    f"md {array.name}",
                    f"degraded: {array.active_disks} of {array.raid_disks} devices active",
                )
            )
        for member in array.members:
            if "faulty" in member.state:
                out.append(
                    Problem(Severity.CRITICAL, f"md {array.name}", f"{member.name} is faulty")
                )
        if array.sync_action and array.sync_action not in ("idle", "frozen"):
            pct = f" {array.sync_progress:.1f}%" if array.sync_progress is not None else ""
            eta = f" {array.sync_eta}" if array.sync_eta else ""
            out.append(Problem(Severity.INFO, f"md {array.name}", f"{array.sync_action}{pct}{eta}"))
    for fs in inv.btrfs:
        for dev in fs.devices:
            if dev.missing:
                out.append(
                    Problem(
                        Severity.CRITICAL,
                        f"btrfs {fs.label or fs.uuid}",
                        f"device {dev.devid} ({dev.path}) is missing",
                    )
                )
    for mergerfs_pool in inv.mergerfs:
        _mergerfs_problems(mergerfs_pool, out)
    # A dataset of a pool already reported as full would only say the same again.
    full_pools = {p.subject.removeprefix("zpool ") for p in out if p.message.endswith("% full")}
    for mount in inv.mounts:
        fraction = mount.use_fraction
        if fraction is None or mount.fs_type in _ALWAYS_FULL or not mount.size_bytes:
            continue
        if mount.fs_type == "zfs" and mount.source.split("/", 1)[0] in full_pools:
            continue
        if "ro" in mount.options:
            continue
        if fraction >= FULL_WARNING:
            severity = Severity.CRITICAL if fraction >= FULL_CRITICAL else Severity.WARNING
            out.append(
                Problem(
                    severity,
                    f"filesystem {mount.mountpoint}",
                    f"{fraction * 100:.0f}% full ({format_bytes(mount.avail_bytes)} free)",
                )
            )
    order = {Severity.CRITICAL: 0, Severity.WARNING: 1, Severity.INFO: 2}
    return tuple(sorted(out, key=lambda p: order[p.severity]))
