"""The Pools tree: each zpool's vdev tree, btrfs filesystems and md arrays.

Vdev rows are laid out like ``zpool status`` (NAME STATE READ WRITE CKSUM) with the
columns aligned across tree depths, so a degraded mirror reads the way admins expect.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from ...core.models import BtrfsFilesystem, Inventory, MdArray, Vdev, ZfsDataset, ZPool
from ...core.units import format_bytes
from ..bars import percent_bar, state_style, state_text, usage_bar
from ..detail_pane import detail_grid, plain_row
from .skeleton import mark_changed, placeholder

GUIDE = 2  # tree indentation per level: narrow, so deep raidz trees fit 80 columns
ICON = 2  # "▼ " in front of expandable nodes


@dataclass(frozen=True)
class VdevRef:
    pool: ZPool
    vdev: Vdev


PoolItem = ZPool | VdevRef | BtrfsFilesystem | MdArray | ZfsDataset | None


def relation_key(item: PoolItem) -> str | None:
    """What to ask ``core.relations.disks_under`` about for a tree item."""
    if isinstance(item, ZPool):
        return f"zpool:{item.name}"
    if isinstance(item, VdevRef):
        return f"zpool:{item.pool.name}"
    if isinstance(item, ZfsDataset):
        return f"zfs:{item.name}"
    if isinstance(item, BtrfsFilesystem):
        return f"btrfs:{item.uuid}"
    if isinstance(item, MdArray):
        return f"md:{item.name}"
    return None


def _counter(n: int) -> Text:
    return Text(f"{n:>5}", style="bold red" if n else "")


def scan_summary(pool: ZPool) -> Text:
    scan = pool.scan
    if scan is None or scan.state != "in_progress":
        return Text("")
    pct = f" {scan.percent_done:.1f}%" if scan.percent_done is not None else ""
    return Text(f"{scan.function}{pct}", style="bold cyan")


class PoolTree(Tree[PoolItem]):
    """All pool-like things of an inventory, expanded, in one keyboard-walkable tree."""

    DEFAULT_CSS = """
    PoolTree { height: 1fr; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        # A Text, not a str: a str label is parsed as markup, which imports rich's emoji
        # table (~3 ms of the dashboard's start) for a root that is never shown.
        super().__init__(Text("pools"), id=id)
        self._changed: frozenset[str] = frozenset()
        self.show_root = False
        self.guide_depth = GUIDE

    def show_skeleton(self) -> None:
        """The first start, before any inventory: where the pools will be."""
        self.clear()
        for width in (28, 22, 22):
            self.root.add_leaf(placeholder(width))
        self.root.expand()

    def show_inventory(self, inv: Inventory, changed: frozenset[str] = frozenset()) -> None:
        """Every pool of the inventory; zpools named in ``changed`` marked as changed."""
        keep = self._cursor_identity()
        self._changed = changed
        self.clear()
        zfs = inv.zfs
        if zfs.available and zfs.message:  # zpool ran but failed: say so above the pools
            self.root.add_leaf(Text(f"ZFS: {zfs.message}", style="yellow"))
        for pool in zfs.pools:
            self._add_zpool(pool, [d for d in zfs.datasets if d.pool == pool.name])
        for fs in inv.btrfs:
            self._add_btrfs(fs)
        for array in inv.md:
            self._add_md(array)
        if not (zfs.pools or inv.btrfs or inv.md):
            self.root.add_leaf(Text("No zpools, btrfs filesystems or md arrays.", style="dim"))
        if not zfs.available:  # not an error, just context: last
            self.root.add_leaf(Text(f"ZFS: {zfs.message or 'not installed'}", style="dim"))
        self.root.expand()
        self._restore_cursor(keep)
        if self.cursor_node is None and self.last_line >= 0:
            self.move_cursor_to_line(0)

    # -- zpools ---------------------------------------------------------------------

    def _add_zpool(self, pool: ZPool, datasets: list[ZfsDataset]) -> None:
        label = Text.assemble(
            ("zpool ", "bold"),
            (pool.name, "bold"),
        )
        if pool.name in self._changed:
            mark_changed(label)
        label.append("  ")
        label.append_text(state_text(pool.state))
        if pool.size_bytes is not None:
            label.append(f"  {format_bytes(pool.size_bytes)}")
        if pool.capacity_pct is not None:
            label.append(
                f" {pool.capacity_pct}% used", style="bold red" if pool.capacity_pct > 90 else ""
            )
        summary = scan_summary(pool)
        if summary:
            label.append("  ")
            label.append_text(summary)
        node = self.root.add(label, data=pool, expand=True)
        groups: list[tuple[str | None, tuple[Vdev, ...]]] = [
            (None, pool.vdevs),
            ("logs", pool.logs),
            ("dedup", pool.dedup),
            ("special", pool.special),
            ("cache", pool.cache),
            ("spares", pool.spares),
        ]
        # Width of the NAME column so STATE lines up at every depth (depth 1 = under pool).
        rows: list[tuple[int, bool, str]] = []
        for group, vdevs in groups:
            base = 1
            if group and vdevs:
                rows.append((1, True, group))
                base = 2
            for vdev in vdevs:
                rows.extend(_vdev_rows(vdev, base))
        col = (
            max(
                [depth * GUIDE + (ICON if exp else 0) + len(name) for depth, exp, name in rows]
                + [GUIDE + len("NAME")]
            )
            + 2
        )
        header = Text("NAME".ljust(col - GUIDE) + "STATE     READ WRITE CKSUM", style="dim")
        node.add_leaf(header)
        for group, vdevs in groups:
            if not vdevs:
                continue
            parent: TreeNode[PoolItem] = node
            depth = 1
            if group:
                parent = node.add(Text(group, style="bold"), data=pool, expand=True)
                depth = 2
            for vdev in vdevs:
                self._add_vdev(parent, pool, vdev, depth, col)
        if datasets:
            ds_node = node.add(Text(f"datasets ({len(datasets)})", style="bold"), data=pool)
            for ds in datasets:
                ds_label = Text(ds.name)
                ds_label.append(
                    f"  {format_bytes(ds.used_bytes)} used, {format_bytes(ds.avail_bytes)} free",
                    style="dim",
                )
                ds_node.add_leaf(ds_label, data=ds)

    def _add_vdev(
        self, parent: TreeNode[PoolItem], pool: ZPool, vdev: Vdev, depth: int, col: int
    ) -> None:
        expandable = bool(vdev.children)
        pad = col - depth * GUIDE - (ICON if expandable else 0)
        label = Text()  # a base style on Text() would tint the counters too
        label.append(vdev.name.ljust(pad), style="" if vdev.healthy else "red")
        label.append_text(state_text(vdev.state, 8))
        label.append_text(_counter(vdev.read_errors))
        label.append(" ")
        label.append_text(_counter(vdev.write_errors))
        label.append(" ")
        label.append_text(_counter(vdev.checksum_errors))
        if vdev.note:
            label.append(f"  {vdev.note}", style="yellow")
        ref = VdevRef(pool, vdev)
        if expandable:
            child = parent.add(label, data=ref, expand=True)
            for sub in vdev.children:
                self._add_vdev(child, pool, sub, depth + 1, col)
        else:
            parent.add_leaf(label, data=ref)

    # -- btrfs and md ---------------------------------------------------------------

    def _add_btrfs(self, fs: BtrfsFilesystem) -> None:
        missing = any(d.missing for d in fs.devices)
        label = Text.assemble(("btrfs ", "bold"), (fs.label or fs.uuid[:8], "bold"))
        label.append(f"  data {fs.profile('data') or '?'}, meta {fs.profile('metadata') or '?'}")
        label.append(f"  {len(fs.devices)} dev")
        if missing:
            label.append("  device missing", style="bold red")
        node = self.root.add(label, data=fs, expand=True)
        for alloc in fs.allocations:
            frac = alloc.used_bytes / alloc.total_bytes if alloc.total_bytes else None
            row = Text(f"{alloc.kind:<9}{alloc.profile:<8}")
            row.append_text(usage_bar(frac, 10, alarm_over=None))  # full chunks are normal
            row.append(f" {format_bytes(alloc.used_bytes)}/{format_bytes(alloc.total_bytes)}")
            node.add_leaf(row, data=fs)
        for dev in fs.devices:
            row = Text(f"devid {dev.devid:<3} {dev.path}  {format_bytes(dev.size_bytes)}")
            if dev.missing:
                row.append("  MISSING", style="bold red")
                row.stylize("red")
            node.add_leaf(row, data=fs)
        for mp in fs.mountpoints:
            node.add_leaf(Text(f"mounted at {mp}", style="dim"), data=fs)

    def _add_md(self, array: MdArray) -> None:
        bad = array.degraded or "degraded" in array.state.lower()
        label = Text.assemble((array.name, "bold"), f"  {array.level}  ")
        label.append(array.state, style="bold red" if bad else state_style(array.state))
        if array.raid_disks is not None and array.active_disks is not None:
            label.append(  # mdstat's own notation: [devices/working]
                f" [{array.raid_disks}/{array.active_disks}]",
                style="bold red" if array.degraded else "",
            )
        if array.size_bytes is not None:
            label.append(f"  {format_bytes(array.size_bytes)}")
        if array.sync_action and array.sync_action != "idle":
            label.append(f"  {array.sync_action}", style="bold cyan")
            if array.sync_progress is not None:
                label.append(f" {array.sync_progress:.1f}%", style="bold cyan")
        node = self.root.add(label, data=array, expand=True)
        for m in sorted(array.members, key=lambda m: (m.slot is None, m.slot or 0, m.name)):
            slot = "spare" if m.slot is None else str(m.slot)
            row = Text(f"{slot:>5} {m.name:<12}")
            row.append(m.state, style="bold red" if "faulty" in m.state else "")
            node.add_leaf(row, data=array)
        node.add_leaf(Text(f"bitmap {array.bitmap or '?'}", style="dim"), data=array)

    # -- cursor ---------------------------------------------------------------------

    def _cursor_identity(self) -> tuple[str, str] | None:
        node = self.cursor_node
        return None if node is None else (str(node.label), _ident(node.data))

    def _restore_cursor(self, keep: tuple[str, str] | None) -> None:
        # Keep the cursor on the same row across refreshes: the same text if it is still
        # there, else the same pool/vdev/array (its label changes with resilver progress).
        if keep is None:
            return
        label, ident = keep
        fallback = None
        for line in range(self.last_line + 1):
            node = self.get_node_at_line(line)
            if node is None:
                continue
            if str(node.label) == label:
                self.move_cursor(node, animate=False)
                return
            if fallback is None and ident and _ident(node.data) == ident:
                fallback = node
        if fallback is not None:
            self.move_cursor(fallback, animate=False)

    @property
    def selected_item(self) -> PoolItem:
        node = self.cursor_node
        return None if node is None else node.data


def _ident(item: PoolItem) -> str:
    if isinstance(item, ZPool):
        return f"zpool:{item.name}"
    if isinstance(item, VdevRef):
        return f"vdev:{item.pool.name}:{item.vdev.name}"
    if isinstance(item, BtrfsFilesystem):
        return f"btrfs:{item.uuid}"
    if isinstance(item, MdArray):
        return f"md:{item.name}"
    if isinstance(item, ZfsDataset):
        return f"ds:{item.name}"
    return ""


def _vdev_rows(vdev: Vdev, depth: int) -> list[tuple[int, bool, str]]:
    rows = [(depth, bool(vdev.children), vdev.name)]
    for child in vdev.children:
        rows.extend(_vdev_rows(child, depth + 1))
    return rows


# -- detail pane ------------------------------------------------------------------------


def zpool_detail(pool: ZPool) -> list[RenderableType]:
    grid = detail_grid("bold")
    plain_row(grid, "State", state_text(pool.state))
    if pool.size_bytes is not None:
        used = Text(
            f"{format_bytes(pool.alloc_bytes)} of {format_bytes(pool.size_bytes)}, "
            f"{format_bytes(pool.free_bytes)} free"
        )
        if pool.capacity_pct is not None:
            used.append(f" ({pool.capacity_pct}%)")
        plain_row(grid, "Size", used)
    extra = []
    if pool.fragmentation_pct is not None:
        extra.append(f"frag {pool.fragmentation_pct}%")
    if pool.dedup_ratio is not None:
        extra.append(f"dedup {pool.dedup_ratio:.2f}x")
    if extra:
        plain_row(grid, "", ", ".join(extra))
    if pool.status:
        plain_row(grid, "Status", Text(pool.status, style="yellow"))
    if pool.action:
        plain_row(grid, "Action", pool.action)
    if pool.scan is not None:
        plain_row(grid, "Scan", pool.scan.text)
        if pool.scan.state == "in_progress":
            bar = percent_bar(pool.scan.percent_done, 20)
            if pool.scan.eta:
                bar.append(f"  eta {pool.scan.eta}")
            plain_row(grid, pool.scan.function.capitalize(), bar)
    if pool.errors:
        ok = pool.errors.lower().startswith("no known")
        plain_row(grid, "Errors", Text(pool.errors, style="" if ok else "bold red"))
    return [Text(f"zpool {pool.name}", style="bold"), grid]


def vdev_detail(ref: VdevRef) -> list[RenderableType]:
    vdev = ref.vdev
    grid = detail_grid("bold")
    kind = vdev.kind.value
    if vdev.parity is not None:
        kind += f" (parity {vdev.parity})"
    if vdev.draid_config:
        kind += f" {vdev.draid_config}"
    plain_row(grid, "Kind", f"{kind}, {vdev.vdev_class.value} vdev of zpool {ref.pool.name}")
    plain_row(grid, "State", state_text(vdev.state))
    errors = Text(
        f"read {vdev.read_errors}, write {vdev.write_errors}, cksum {vdev.checksum_errors}"
    )
    if not vdev.healthy:
        errors.stylize("red")
    plain_row(grid, "Errors", errors)
    if vdev.note:
        plain_row(grid, "Note", Text(vdev.note, style="yellow"))
    if vdev.children:
        plain_row(grid, "Leaves", ", ".join(leaf.name for leaf in vdev.leaves()))
    return [Text(vdev.name, style="bold"), grid]


def btrfs_detail(fs: BtrfsFilesystem) -> list[RenderableType]:
    grid = detail_grid("bold")
    plain_row(grid, "UUID", fs.uuid)
    plain_row(
        grid,
        "Profiles",
        f"data {fs.profile('data') or '?'}, "
        f"metadata {fs.profile('metadata') or '?'}, system {fs.profile('system') or '?'}",
    )
    plain_row(grid, "Size", format_bytes(fs.total_bytes))
    for alloc in fs.allocations:
        plain_row(
            grid,
            alloc.kind.capitalize(),
            f"{alloc.profile}: {format_bytes(alloc.used_bytes)} used of "
            f"{format_bytes(alloc.total_bytes)} allocated",
        )
    devices = Text()
    for i, dev in enumerate(fs.devices):
        if i:
            devices.append(", ")
        devices.append(f"{dev.devid}:{dev.path}", style="bold red" if dev.missing else "")
        if dev.missing:
            devices.append(" (missing)", style="bold red")
    plain_row(grid, "Devices", devices)
    plain_row(grid, "Mounted", ", ".join(fs.mountpoints) or "not mounted")
    return [Text(f"btrfs {fs.label or fs.uuid}", style="bold"), grid]


def md_detail(array: MdArray) -> list[RenderableType]:
    grid = detail_grid("bold")
    plain_row(grid, "Level", array.level)
    bad = array.degraded or "degraded" in array.state.lower()
    state = Text(array.state, style="bold red" if bad else state_style(array.state))
    if array.raid_disks is not None and array.active_disks is not None:
        state.append(f"  {array.active_disks} of {array.raid_disks} devices active")
    plain_row(grid, "State", state)
    plain_row(grid, "Size", format_bytes(array.size_bytes))
    members = ", ".join(f"{m.name} ({m.state})" for m in array.members)
    plain_row(grid, "Members", members)
    if array.sync_action and array.sync_action != "idle":
        bar = percent_bar(array.sync_progress, 20)
        for extra in (array.sync_eta, array.sync_speed):
            if extra:
                bar.append(f"  {extra}")
        plain_row(grid, array.sync_action.capitalize(), bar)
    plain_row(grid, "Bitmap", array.bitmap or "?")
    if array.metadata_version:
        plain_row(grid, "Metadata", array.metadata_version)
    return [Text(f"/dev/{array.name}", style="bold"), grid]


def dataset_detail(ds: ZfsDataset) -> list[RenderableType]:
    grid = detail_grid("bold")
    plain_row(grid, "Type", ds.kind)
    plain_row(grid, "Used", format_bytes(ds.used_bytes))
    plain_row(grid, "Available", format_bytes(ds.avail_bytes))
    plain_row(grid, "Refer", format_bytes(ds.refer_bytes))
    plain_row(grid, "Mountpoint", ds.mountpoint or "-")
    return [Text(f"dataset {ds.name}", style="bold"), grid]


def pool_detail(item: PoolItem) -> list[RenderableType]:
    if isinstance(item, ZPool):
        return zpool_detail(item)
    if isinstance(item, VdevRef):
        return vdev_detail(item)
    if isinstance(item, BtrfsFilesystem):
        return btrfs_detail(item)
    if isinstance(item, MdArray):
        return md_detail(item)
    if isinstance(item, ZfsDataset):
        return dataset_detail(item)
    return [Text("Select a pool, vdev, filesystem or array.", style="dim")]


def detail_group(parts: list[RenderableType]) -> RenderableType:
    return Group(*parts)
