"""The Problems section: find_problems() first, then what could not be read."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text

from ...core.models import Inventory, Problem, Severity
from ..bars import severity_style
from ..detail_pane import detail_grid, plain_row
from .health_view import health_problem_grid

if TYPE_CHECKING:
    from ...core.disk_health import HealthReport

_ORDER = {Severity.CRITICAL: 0, Severity.WARNING: 1, Severity.INFO: 2}
_MARK = {Severity.CRITICAL: "✗", Severity.WARNING: "!", Severity.INFO: "i"}


def unreadable(inv: Inventory) -> list[tuple[str, str]]:
    """(source, why) for everything tierdeck could not read, from every place it is kept."""
    items = [(n.source, n.message) for n in inv.notes]
    if inv.zfs.message and inv.zfs.available:  # "not installed" is no failure to read
        items.append(("zfs", inv.zfs.message))
    for disk in inv.disks:
        items.extend((disk.name, note) for note in disk.notes)
    for pool in inv.mergerfs:
        if pool.error:
            items.append((f"mergerfs {pool.mountpoint}", pool.error))
    return list(dict.fromkeys(items))


def problems_tab_label(problems: tuple[Problem, ...], health: HealthReport | None) -> Text:
    """The Problems tab's label: "4 Problems", with their count (red when one is critical): the inventory's and,
    once read, the disks' and pools' health ones."""
    states: list[str] = []
    if health is not None:
        from ...core.disk_health import health_problems  # with the first report

        states = [s for s, _, _ in health_problems(health, problems)]
    if not problems and not states:
        return Text("4 Problems")
    critical = any(p.severity is Severity.CRITICAL for p in problems) or "critical" in states
    label = Text("4 Problems ")
    count = len(problems) + len(states)
    label.append(f"({count})", style="bold red" if critical else "bold yellow")
    return label


def problems_renderable(
    inv: Inventory, problems: tuple[Problem, ...], health: HealthReport | None = None
) -> RenderableType:
    """The inventory's problems, then the disks' and pools' health ones (``health``:
    None while SMART is still being read)."""
    parts: list[RenderableType] = []
    sick = []
    if health is not None:
        from ...core.disk_health import health_problems  # with the first report

        sick = health_problems(health, problems)
    if problems:
        # A grid, so a long message wraps under the message, not under the severity.
        grid = detail_grid()
        for p in sorted(problems, key=lambda p: _ORDER.get(p.severity, 3)):
            style = severity_style(p.severity.value)
            mark = Text(f"{_MARK.get(p.severity, '?')} {p.severity.value.upper():<8}", style=style)
            plain_row(grid, mark, Text.assemble((p.subject, "bold"), f": {p.message}"))
        parts.append(grid)
    if sick:
        parts.append(health_problem_grid(sick))
    if not problems and not sick:
        parts.append(Text("✓ No problems found.", style="green"))
    if health is None:
        parts.append(Text("Disk health: reading SMART…", style="dim"))
    missing = unreadable(inv)
    if missing or not inv.is_root:
        parts.append(Text(""))
        parts.append(Text("Could not read fully (the rest is shown):", style="bold yellow"))
        if not inv.is_root:
            parts.append(Text("  not running as root: some details may be missing", style="yellow"))
        for source, why in missing:
            parts.append(Text.assemble("  ", (source, "yellow"), f": {why}"))
    return Group(*parts)
