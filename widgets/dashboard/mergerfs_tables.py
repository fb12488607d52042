"""mergerfs pools and, for the selected pool, its branches in mergerfs's own order."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text
from textual.widgets import DataTable

from ...core.models import MergerfsBranch, MergerfsPool
from ...core.units import format_bytes
from ..bars import usage_bar
from ..detail_pane import detail_grid, plain_row
from .skeleton import mark_changed


def _fraction(size: int | None, avail: int | None) -> float | None:
    if not size or avail is None:
        return None
    return max(0.0, (size - avail) / size)


def below_min(pool: MergerfsPool, branch: MergerfsBranch) -> bool:
    """True when mergerfs will no longer create files on this branch."""
    minimum = pool.branch_minfreespace(branch)
    return minimum is not None and branch.avail_bytes is not None and branch.avail_bytes < minimum


def _cut_left(path: str, width: int) -> str:
    # Paths differ at their end (/mnt/disk1, /mnt/disk2): keep the tail.
    return path if len(path) <= width else "…" + path[-(width - 1) :]


def _path_room(table: DataTable[Text | str], others: int) -> int:
    """Cells left for the path column once the other columns (``others`` cells, with
    their padding and the scrollbar) are drawn; at least 16."""
    width = table.size.width or table.app.size.width
    return max(16, width - others)


class MergerfsPoolTable(DataTable[Text | str]):
    """One row per mergerfs mount."""

    DEFAULT_CSS = """
    MergerfsPoolTable { height: auto; max-height: 6; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row")
        self.pools: tuple[MergerfsPool, ...] = ()
        self._changed: frozenset[str] = frozenset()
        self._built_width = -1

    def _label(self, pool: MergerfsPool, room: int) -> Text:
        label = Text(_cut_left(pool.mountpoint, room - (pool.mountpoint in self._changed)))
        label.stylize("bold")
        return mark_changed(label) if pool.mountpoint in self._changed else label

    def on_mount(self) -> None:
        self.add_column("Pool", key="mount")
        self.add_column("Size", key="size")
        self.add_column("Free", key="free")
        self.add_column("Used", key="bar")
        self.add_column("Create", key="create")
        # Spelled out: "Br" read as a header cut short.
        self.add_column("Branches", key="branches")

    def on_resize(self) -> None:
        if self.pools and self.size.width != self._built_width:
            self.show_pools(self.pools)

    def show_pools(
        self, pools: tuple[MergerfsPool, ...], changed: frozenset[str] | None = None
    ) -> None:
        """One row per pool; mountpoints named in ``changed`` marked as changed (None:
        keep the marks of the last call, as a resize redraws)."""
        selected = self.selected_pool
        self.pools = pools
        if changed is not None:
            self._changed = changed
        self.clear()
        self._built_width = self.size.width
        room = _path_room(self, 50)
        for pool in pools:
            if pool.error:
                self.add_row(
                    self._label(pool, room),
                    "",
                    "",
                    Text("unreadable", style="bold red"),
                    "",
                    "",
                    key=pool.mountpoint,
                )
                continue
            alarm = any(below_min(pool, b) for b in pool.branches)
            self.add_row(
                self._label(pool, room),
                Text(format_bytes(pool.size_bytes), justify="right"),
                Text(format_bytes(pool.avail_bytes), justify="right"),
                usage_bar(_fraction(pool.size_bytes, pool.avail_bytes), 10, alarm=alarm),
                pool.create_policy or "?",
                Text(str(len(pool.branches)), justify="right"),
                key=pool.mountpoint,
            )
        if selected is not None:
            for index, pool in enumerate(pools):
                if pool.mountpoint == selected.mountpoint:
                    self.move_cursor(row=index, animate=False)

    @property
    def selected_pool(self) -> MergerfsPool | None:
        if not self.pools or not (0 <= self.cursor_row < len(self.pools)):
            return None
        return self.pools[self.cursor_row]


class BranchTable(DataTable[Text | str]):
    """The branches of one pool, in order; a branch below its minfreespace is red."""

    DEFAULT_CSS = """
    BranchTable { height: auto; max-height: 8; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row")
        self.pool: MergerfsPool | None = None
        self._built_width = -1

    def on_mount(self) -> None:
        self.add_column("#", key="index")
        self.add_column("Branch", key="path")
        self.add_column("Mode", key="mode")
        self.add_column("Used", key="bar")
        self.add_column("Free/Size", key="free")
        self.add_column("Min free", key="min")

    def on_resize(self) -> None:
        if self.pool is not None and self.size.width != self._built_width:
            self.show_pool(self.pool)

    def follow(self, pool: MergerfsPool | None) -> None:
        """Show ``pool``'s branches unless they are shown already (the pool table's
        highlight moved, or came back to the same pool)."""
        if self.pool is not pool:
            self.show_pool(pool)

    def show_pool(self, pool: MergerfsPool | None) -> None:
        keep = self.cursor_row
        self.pool = pool
        self.clear()
        if pool is None:
            return
        self._built_width = self.size.width
        room = _path_room(self, 52)
        for index, branch in enumerate(pool.branches):
            low = below_min(pool, branch)
            style = "bold red" if low else ""
            minimum = pool.branch_minfreespace(branch)
            own = branch.minfreespace_bytes is not None
            free = Text(
                f"{format_bytes(branch.avail_bytes)}/{format_bytes(branch.size_bytes)}",
                style=style,
                justify="right",
            )
            min_text = Text(format_bytes(minimum) if minimum is not None else "-", style=style)
            if own:
                min_text.append("*", style="cyan")  # per-branch override, not the pool's
            if low:
                min_text.append(" LOW", style="bold red")
            self.add_row(
                Text(str(index + 1), justify="right"),
                Text(_cut_left(branch.path, room), style=style),
                Text(branch.mode.value, style="yellow" if branch.mode.value != "RW" else ""),
                usage_bar(_fraction(branch.size_bytes, branch.avail_bytes), 10, alarm=low),
                free,
                min_text,
                key=f"{index}:{branch.path}",
            )
        if 0 <= keep < len(pool.branches):
            self.move_cursor(row=keep, animate=False)

    @property
    def selected_branch(self) -> MergerfsBranch | None:
        if self.pool is None or not (0 <= self.cursor_row < len(self.pool.branches)):
            return None
        return self.pool.branches[self.cursor_row]


def pool_detail(pool: MergerfsPool) -> list[RenderableType]:
    title = Text(f"mergerfs {pool.mountpoint}", style="bold")
    if pool.error:
        return [title, Text(f"could not read .mergerfs: {pool.error}", style="yellow")]
    grid = detail_grid("bold")
    plain_row(
        grid, "fsname", pool.fsname + (f"  (mergerfs {pool.version})" if pool.version else "")
    )
    plain_row(grid, "Create", pool.create_policy or "?")
    plain_row(grid, "Min free", format_bytes(pool.minfreespace_bytes))
    plain_row(
        grid,
        "Space",
        f"{format_bytes(pool.avail_bytes)} free of {format_bytes(pool.size_bytes)}",
    )
    order = Text()
    for i, b in enumerate(pool.branches):
        if i:
            order.append(" → ", style="dim")
        order.append(b.path, style="bold red" if below_min(pool, b) else "")
        order.append(f"={b.mode.value}", style="dim")
    plain_row(grid, "Branches", order)
    options = Text()
    # "branches" is shown above, in order and readable; the rest as mergerfs has them.
    shown = sorted((k, v) for k, v in pool.options.items() if k != "branches")
    for i, (key, value) in enumerate(shown):
        if i:
            options.append(", ", style="dim")
        options.append(key, style="cyan")
        options.append(f"={value}")
    plain_row(grid, "Options", options if pool.options else Text("none read", style="dim"))
    return [title, grid]


def branch_detail(pool: MergerfsPool, branch: MergerfsBranch) -> list[RenderableType]:
    grid = detail_grid("bold")
    index = pool.branches.index(branch) + 1
    plain_row(grid, "Branch", f"{index} of {len(pool.branches)} in {pool.mountpoint}")
    plain_row(
        grid,
        "Mode",
        {"RW": "RW (read-write)", "RO": "RO (read-only)", "NC": "NC (no new files)"}[
            branch.mode.value
        ],
    )
    low = below_min(pool, branch)
    free = Text(f"{format_bytes(branch.avail_bytes)} free of {format_bytes(branch.size_bytes)}")
    if low:
        free.stylize("bold red")
    plain_row(grid, "Space", free)
    minimum = pool.branch_minfreespace(branch)
    source = "branch" if branch.minfreespace_bytes is not None else "pool"
    min_text = Text(f"{format_bytes(minimum)} ({source} setting)" if minimum is not None else "-")
    if low:
        min_text.append("  below it: no new files land here", style="bold red")
    plain_row(grid, "Min free", min_text)
    return [Text(branch.path, style="bold"), grid]
