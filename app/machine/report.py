"""Plain-text inventory for `tierdeck inventory` (no --json): readable in a pager or a
bug report, 100 columns at most."""

from __future__ import annotations

from ...core.health import find_problems
from ...core.models import Inventory, Vdev
from ...core.relations import disks_under
from ...core.units import format_bytes


def _table(rows: list[list[str]], header: list[str]) -> list[str]:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return [fmt.format(*header).rstrip(), *(fmt.format(*r).rstrip() for r in rows)]


def _vdev_lines(vdev: Vdev, depth: int) -> list[str]:
    counters = f"{vdev.read_errors}/{vdev.write_errors}/{vdev.checksum_errors}"
    note = f"  {vdev.note}" if vdev.note else ""
    lines = [f"{'  ' * depth}{vdev.name:<24} {vdev.state:<9} {counters}{note}"]
    for child in vdev.children:
        lines += _vdev_lines(child, depth + 1)
    return lines


def render_inventory_text(inv: Inventory) -> str:
    out: list[str] = [f"tierdeck inventory of {inv.hostname} (kernel {inv.kernel})", ""]
    out.append("DISKS")
    disk_rows = [
        [d.name, d.kind.value, format_bytes(d.size_bytes), d.model or "-", d.serial or "-",
         d.transport or "-", d.hctl or "-"]
        for d in sorted(inv.disks, key=lambda d: (d.virtual, d.name))
    ]  # fmt: skip
    out += _table(disk_rows, ["NAME", "KIND", "SIZE", "MODEL", "SERIAL", "TRAN", "HCTL"])

    out += ["", "MOUNTS"]
    mount_rows = [
        [m.mountpoint, m.fs_type, m.source, format_bytes(m.size_bytes),
         format_bytes(m.avail_bytes), ",".join(disks_under(inv, m.mountpoint)) or "-"]
        for m in inv.mounts
        if m.fs_type not in ("tmpfs", "squashfs", "ramfs", "overlay")
    ]  # fmt: skip
    out += _table(mount_rows, ["MOUNTPOINT", "TYPE", "SOURCE", "SIZE", "AVAIL", "DISKS"])

    out += ["", "MERGERFS"]
    if not inv.mergerfs:
        out.append("  (none)")
    for pool in inv.mergerfs:
        disks = ",".join(disks_under(inv, pool.mountpoint)) or "-"
        out.append(
            f"  {pool.mountpoint}  fsname={pool.fsname} version={pool.version or '?'}"
            f" create={pool.create_policy or '?'}"
            f" minfreespace={format_bytes(pool.minfreespace_bytes)} disks={disks}"
        )
        if pool.error:
            out.append(f"    ! {pool.error}")
        for branch in pool.branches:
            limit = pool.branch_minfreespace(branch)
            out.append(
                f"    {branch.mode.value} {branch.path}  avail {format_bytes(branch.avail_bytes)}"
                f" of {format_bytes(branch.size_bytes)}  minfree {format_bytes(limit)}"
            )

    out += ["", "ZFS"]
    if not inv.zfs.available or not inv.zfs.pools:
        out.append(f"  {inv.zfs.message or 'no pools'}")
    for zpool in inv.zfs.pools:
        out.append(
            f"  pool {zpool.name}: {zpool.state}  size {format_bytes(zpool.size_bytes)}"
            f" free {format_bytes(zpool.free_bytes)}"
        )
        if zpool.scan is not None:
            out.append(f"    scan: {zpool.scan.text}")
        for section, vdevs in (("", zpool.vdevs), ("logs", zpool.logs), ("cache", zpool.cache),
                               ("spares", zpool.spares), ("special", zpool.special),
                               ("dedup", zpool.dedup)):  # fmt: skip
            if section and vdevs:
                out.append(f"    {section}")
            for vdev in vdevs:
                out += ["    " + line for line in _vdev_lines(vdev, 1)]

    out += ["", "BTRFS"]
    if not inv.btrfs:
        out.append("  (none)")
    for fs in inv.btrfs:
        devices = ", ".join(d.path for d in fs.devices)
        out.append(
            f"  {fs.label or fs.uuid}: data {fs.profile('data')} metadata {fs.profile('metadata')}"
            f"  devices {devices}  mounted {', '.join(fs.mountpoints) or '-'}"
        )

    out += ["", "MD"]
    if not inv.md:
        out.append("  (none)")
    for array in inv.md:
        members = " ".join(f"{m.name}[{m.state}]" for m in array.members)
        sync = f" {array.sync_action} {array.sync_progress}%" if array.sync_progress else ""
        out.append(f"  {array.name}: {array.level} {array.state}{sync} bitmap={array.bitmap}")
        out.append(f"    {members}")

    problems = find_problems(inv)
    out += ["", "PROBLEMS"]
    out += [f"  [{p.severity.value}] {p.subject}: {p.message}" for p in problems] or ["  none"]
    if inv.notes:
        out += ["", "NOT READ"]
        out += [f"  {n.source}: {n.message}" for n in inv.notes]
    return "\n".join(out)
