"""The Disks table: one row per whole block device, physical first, virtual last."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.css.scalar import ScalarResolveError
from textual.widgets import DataTable

from ...backends.mounts import mount_for_path
from ...core.models import Disk, DiskKind, Inventory, Mount
from ...core.relations import disk_users
from ...core.units import format_bytes
from ..bars import FULL_FRACTION, usage_bar
from ..detail_pane import detail_grid, plain_row
from .health_view import add_health_state, health_cell, health_text, smart_grid
from .skeleton import CHANGED_MARK, mark_changed, placeholder

if TYPE_CHECKING:  # loaded with the first health report, not before the first paint
    from ...core.disk_health import DiskHealth, HealthReport

KIND_LABEL = {
    DiskKind.HDD: "hdd",
    DiskKind.SSD: "ssd",
    DiskKind.NVME: "nvme",
    DiskKind.VIRTUAL: "virt",
    DiskKind.OPTICAL: "cd",
    DiskKind.UNKNOWN: "?",
}


def natural_key(name: str) -> tuple[object, ...]:
    """sda < sdb < sdaa, nvme0n1 < nvme0n10, loop2 < loop10."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name))


def disk_sort_key(disk: Disk) -> tuple[object, ...]:
    # Virtual devices (loop, zram) go last: on a NAS with snaps they outnumber the disks.
    return (disk.virtual, disk.kind is DiskKind.OPTICAL, natural_key(disk.name))


def _basename(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1]


def used_by(
    inv: Inventory, disk: Disk, users: dict[str, tuple[str, ...]] | None = None
) -> tuple[str, ...]:
    """What sits on this disk or its partitions: zpools, md, btrfs, mounts. Pass
    ``users`` (core.relations.disk_users) when asking for many disks."""
    uses = (users if users is not None else disk_users(inv)).get(disk.name, ())
    if uses:
        return uses
    # Nothing mounted or pooled: the filesystem signatures at least say what it holds.
    fs_types = [t for t in (disk.fs_type, *(p.fs_type for p in disk.partitions)) if t]
    return tuple(dict.fromkeys(fs_types))


def disk_mounts(inv: Inventory, disk: Disk) -> list[Mount]:
    """Mounts of the disk itself or of its partitions (by device number, or source)."""
    names = {disk.name} | {p.name for p in disk.partitions}
    devnums = {disk.major_minor} | {p.major_minor for p in disk.partitions}
    return [m for m in inv.mounts if m.major_minor in devnums or _basename(m.source) in names]


def mergerfs_pools_of(inv: Inventory, disk: Disk) -> list[str]:
    """mergerfs pools with a branch on this disk ("/mnt/slow-storage (branch 2)")."""
    points = {m.mountpoint for m in disk_mounts(inv, disk)}
    found = []
    for pool in inv.mergerfs:
        for index, branch in enumerate(pool.branches, start=1):
            # the mount that holds the branch, not any above it: a branch mounted under
            # /mnt is on its own disk, not on the one holding /
            holder = mount_for_path(inv.mounts, branch.path.rstrip("/") or "/")
            if holder is not None and holder.mountpoint in points:
                found.append(f"{pool.mountpoint} (branch {index})")
    return found


def _cut(text: str | None, width: int) -> str:
    if not text:
        return ""
    return text if len(text) <= width else text[: width - 1] + "…"


WIDE = 110  # from this width on, the table also shows serial numbers


class DiskTable(DataTable[Text]):
    """Disks of an inventory. Column widths follow the table's width: below ``WIDE``
    columns the serial moves to the detail pane so 80x24 shows everything else."""

    DEFAULT_CSS = """
    DiskTable { height: 1fr; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=False)
        self._inventory: Inventory | None = None
        self._changed: frozenset[str] = frozenset()
        self._built_width = -1
        self._generation = 0  # bumped by every rebuild: rows added late check it
        self.users: dict[str, tuple[str, ...]] = {}  # core.relations.disk_users of it
        self.health: dict[str, DiskHealth] = {}  # by disk name, once SMART was read
        self.health_read = False  # a health report has arrived (else "reading")
        self.health_collected_at: float | None = None  # that report's time

    @property
    def compact(self) -> bool:
        return self.size.width < WIDE

    def on_resize(self) -> None:
        # Before the first inventory the table holds its skeleton: nothing to fit.
        if self._inventory is not None and self.size.width != self._built_width:
            self._rebuild()

    def show_inventory(self, inv: Inventory, changed: frozenset[str] = frozenset()) -> None:
        """The inventory's disks; those named in ``changed`` marked as changed."""
        self._inventory = inv
        self._changed = changed
        self._rebuild()

    def set_health(self, report: HealthReport) -> None:
        """The health the next rebuild shows (show_inventory draws it)."""
        self.health = {d.name: d for d in report.disks}
        self.health_read = True
        self.health_collected_at = report.collected_at

    def show_health(self, report: HealthReport) -> None:
        """Each disk's health state and temperature in the Health column, now."""
        self.set_health(report)
        if self._inventory is not None:
            self._rebuild()

    def show_skeleton(self, rows: int = 6) -> None:
        """The table's shape with grey bars: the first start, before any inventory."""
        self.clear(columns=True)
        widths = {
            "Disk": 4,
            "Kind": 4,
            "Size": 6,
            "Health": 6,
            "Model": 18,
            "Bus": 4,
            "HCTL": 7,
            "Used by": 12,
        }
        for label in widths:
            self.add_column(label)
        for _ in range(rows):
            self.add_row(*(placeholder(w) for w in widths.values()))

    @property
    def _width(self) -> int:
        # Before its first layout the table will span the screen (the dashboard's tab):
        # building for that width spares a second build when the layout confirms it.
        return self.size.width or self.app.size.width or 80

    def _widths(self, disks: list[Disk], uses: dict[str, str]) -> tuple[int, int]:
        """Model and Used-by widths: what the other columns leave, without truncating
        the short columns (name, kind, size, bus, HCTL)."""
        fixed = [
            max([len(d.name) + 1 for d in disks] + [4]),
            4,
            5,
            max([len(health_cell(self.health.get(d.name))) for d in disks] + [6]),
            max([len(d.transport or "") for d in disks] + [3]),
            max([len(d.hctl or "") for d in disks] + [4]),
        ]
        if not self.compact:
            fixed.append(max([len(d.serial or "") for d in disks] + [6]))
        if self._changed:
            fixed[0] += 1  # the changed mark
        columns = len(fixed) + 2
        room = self._width - 2 - 2 * self.cell_padding * columns - sum(fixed)  # 2: scrollbar
        want_model = max([len(d.model or "") for d in disks] + [5])
        want_uses = max([len(u) for u in uses.values()] + [7])
        if room >= want_model + want_uses:
            return want_model, want_uses
        # "Used by" matters more than the model (which the detail pane shows in full).
        model_w = min(want_model, max(14, room - want_uses))
        return model_w, max(10, room - model_w)

    def _cells(
        self, disks: list[Disk], uses: dict[str, str], widths: tuple[int, int]
    ) -> list[list[str]]:
        """Each row's text, column by column: plain strings, so that 240 disks cost
        their widths' measure and not 1,700 styled cells before the first paint."""
        model_w, uses_w = widths
        compact = self.compact
        rows = []
        for disk in disks:
            name = (
                disk.name
                + ("!" if disk.notes else "")
                + (CHANGED_MARK if disk.name in self._changed else "")
            )
            cells = [
                name,
                KIND_LABEL[disk.kind],
                format_bytes(disk.size_bytes),
                health_cell(self.health.get(disk.name)),
                _cut(disk.model, model_w),
            ]
            if not compact:
                cells.append(disk.serial or "")
            cells += [disk.transport or "", disk.hctl or "", _cut(uses[disk.name], uses_w)]
            rows.append(cells)
        return rows

    def _styled(self, disk: Disk, cells: list[str]) -> list[Text]:
        style = "dim italic" if disk.virtual else ""
        name = Text(disk.name, style=style)
        if disk.notes:
            name.append("!", style="bold yellow")
        if disk.name in self._changed:
            mark_changed(name)
        out = [
            name,
            Text(cells[1], style=style or "cyan"),
            Text(cells[2], style=style, justify="right"),
            health_text(self.health.get(disk.name), cells[3]),
        ]
        out += [Text(cell, style=style) for cell in cells[4:]]
        return out

    def _rebuild(self) -> None:
        # Rebuild instead of diffing rows: remove_row is O(n) and a NAS has few disks.
        self._built_width = self._width
        self._generation += 1
        selected = self._selected_key()
        self.clear(columns=True)
        inv = self._inventory
        disks = sorted(inv.disks, key=disk_sort_key) if inv is not None else []
        self.users = disk_users(inv) if inv is not None else {}
        uses = (
            {d.name: ", ".join(used_by(inv, d, self.users)) for d in disks}
            if inv is not None
            else {}
        )
        rows = self._cells(disks, uses, self._widths(disks, uses))
        labels = [("Disk", "name"), ("Kind", "kind"), ("Size", "size"), ("Health", "health")]
        labels.append(("Model", "model"))
        if not self.compact:
            labels.append(("Serial", "serial"))
        labels += [("Bus", "bus"), ("HCTL", "hctl"), ("Used by", "used")]
        for index, (label, key) in enumerate(labels):
            # Widths known now, from all rows: rows added after the first paint never
            # widen a column (and the table measures nothing it already knows).
            width = max([cell_len(r[index]) for r in rows] + [len(label)])
            # A Text: DataTable parses a str label as markup (rich's emoji table, ~3 ms
            # of the first paint).
            self.add_column(Text(label), key=key, width=width)
        at = next((i for i, d in enumerate(disks) if d.name == selected), 0)
        # The rows the table can show now; the rest once that is painted. A 240-disk
        # NAS pays for 14 rows (at 80x24) before its dashboard appears.
        first = max(self._rows_on_screen(), at + 1)
        self._add_rows(self._generation, disks[:first], rows[:first])
        if len(rows) > first:
            self.call_after_refresh(self._add_rows, self._generation, disks[first:], rows[first:])
        if at:
            self.move_cursor(row=at, animate=False)

    def _rows_on_screen(self) -> int:
        """At most the rows the table can show: its max-height (a share of the screen,
        dashboard.tcss) taken of the whole screen, else the screen's height. Before its
        first layout the table knows no size of its own."""
        screen = self.app.size
        limit = self.styles.max_height
        if limit is None:
            return screen.height
        try:
            return max(1, int(limit.resolve(screen, screen)))
        except ScalarResolveError:  # a unit that needs the layout: the screen bounds it
            return screen.height

    def _add_rows(self, generation: int, disks: list[Disk], rows: list[list[str]]) -> None:
        if generation != self._generation:  # rebuilt meanwhile: these rows are gone
            return
        for disk, cells in zip(disks, rows, strict=True):
            self.add_row(*self._styled(disk, cells), key=disk.name)

    def _selected_key(self) -> str | None:
        if self.row_count == 0:
            return None
        try:
            key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
        except Exception:  # noqa: BLE001 - cursor outside a just-cleared table
            return None
        return key

    @property
    def selected_disk(self) -> Disk | None:
        key = self._selected_key()
        if key is None or self._inventory is None:
            return None
        return self._inventory.disk(key)


def _kv(grid: Table, key: str, value: RenderableType | str | None) -> None:
    if value is None or value == "":
        return
    plain_row(grid, Text(key, style="bold"), value)


def disk_detail(
    inv: Inventory,
    disk: Disk,
    users: dict[str, tuple[str, ...]] | None = None,
    health: tuple[DiskHealth | None, bool] | None = None,
) -> RenderableType:
    """Everything known about one disk: identity, health, partitions, holders, by-id
    paths. ``users``: core.relations.disk_users of ``inv``, when the caller has it;
    ``health``: the disk's health and whether SMART has been read yet (None: no health
    rows, as where no collection runs)."""
    head, tail = disk_detail_parts(inv, disk, users, health)
    return Group(*head, *tail)


def disk_detail_parts(
    inv: Inventory,
    disk: Disk,
    users: dict[str, tuple[str, ...]] | None = None,
    health: tuple[DiskHealth | None, bool] | None = None,
) -> tuple[list[RenderableType], list[RenderableType]]:
    """``disk_detail`` in two: the title, identity and SMART figures, then the
    partitions, mounts and by-id paths (the health chart goes between them)."""
    grid = detail_grid()
    title = Text(f"{disk.path}", style="bold")
    title.append(f"  {KIND_LABEL[disk.kind]}, {format_bytes(disk.size_bytes)}", style="cyan")
    if disk.virtual:
        title.append("  (virtual device)", style="dim italic")
    model = " ".join(x for x in (disk.vendor, disk.model) if x)
    if health is not None and not disk.virtual:
        add_health_state(grid, *health)
    _kv(grid, "Used by", ", ".join(used_by(inv, disk, users)) or "nothing")
    pools = mergerfs_pools_of(inv, disk)
    _kv(grid, "mergerfs", ", ".join(pools))
    _kv(grid, "Model", model)
    _kv(grid, "Serial", disk.serial)
    _kv(grid, "WWN", disk.wwn)
    _kv(grid, "Firmware", disk.firmware)
    bus = ", ".join(x for x in (disk.transport, f"HCTL {disk.hctl}" if disk.hctl else None) if x)
    _kv(grid, "Bus", bus)
    flags = [
        "rotational" if disk.rotational else "non-rotational" if disk.rotational is False else "",
        "removable" if disk.removable else "",
        "read-only" if disk.read_only else "",
        f"dev {disk.major_minor}",
    ]
    _kv(grid, "Flags", ", ".join(f for f in flags if f))
    _kv(grid, "Backing", disk.backing_file)
    if disk.fs_type:
        fs = disk.fs_type + (f' "{disk.fs_label}"' if disk.fs_label else "")
        _kv(grid, "Filesystem", fs)
    _kv(grid, "Holders", ", ".join(disk.holders))
    head: list[RenderableType] = [title, grid]
    figures = smart_grid(health[0]) if health is not None and not disk.virtual else None
    if figures is not None:
        head.append(figures)
    parts: list[RenderableType] = []
    if disk.partitions:
        ptable = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold")
        for col in ("Partition", "Size", "FS", "Label", "Holders"):
            ptable.add_column(col, justify="right" if col == "Size" else "left")
        for p in disk.partitions:
            plain_row(
                ptable,
                p.name,
                format_bytes(p.size_bytes),
                p.fs_type or "",
                p.fs_label or "",
                ", ".join(p.holders),
            )
        parts.append(ptable)
    mounts = disk_mounts(inv, disk)
    if mounts:
        mtable = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold")
        for col in ("Mounted at", "FS", "Used", "", "Size"):
            mtable.add_column(col, justify="right" if col in ("Size", "") else "left")
        for m in mounts:
            frac = m.use_fraction
            pct = Text(f"{frac:.0%}" if frac is not None else "?")
            if frac is not None and frac > FULL_FRACTION:
                pct.stylize("bold red")
            plain_row(mtable, m.mountpoint, m.fs_type, usage_bar(frac, 10), pct,
                           format_bytes(m.size_bytes))  # fmt: skip
        parts.append(mtable)
    if disk.by_id:
        parts.append(Text("by-id:", style="bold"))
        parts.extend(Text("  " + b, no_wrap=True, overflow="ellipsis") for b in disk.by_id)
    for note in disk.notes:
        parts.append(Text(f"not read: {note}", style="yellow"))
    return head, parts
