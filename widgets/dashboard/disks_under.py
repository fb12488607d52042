"""The "Disks under it" line of the pool and mergerfs detail panes."""

from __future__ import annotations

from rich.text import Text

from ...core.models import Inventory
from ...core.relations import disks_under
from ...core.units import format_bytes
from .disk_table import KIND_LABEL


def disks_under_text(inv: Inventory | None, path: str | None) -> Text:
    """The physical disks under ``path`` (a mountpoint, a branch, a zpool), with their
    model and size: the answer people open a pool's detail for."""
    if inv is None or path is None:
        return Text("")
    try:
        names = disks_under(inv, path)
    except Exception as exc:  # noqa: BLE001 - a relation bug must not kill the view
        return Text(f"Disks under it: unknown ({exc})", style="yellow")
    out = Text.assemble(("Disks under it: ", "bold"))
    if not names:
        out.append("none found", style="dim")
    for i, name in enumerate(names):
        if i:
            out.append(", ")
        out.append(name, style="bold cyan")
        disk = inv.disk(name)
        if disk is not None:
            model = disk.model or KIND_LABEL[disk.kind]
            out.append(f" ({model}, {format_bytes(disk.size_bytes)})")
    return out
