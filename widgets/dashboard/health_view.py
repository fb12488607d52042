"""Disk and pool health as the dashboard shows it: the disk table's short Health cell,
the rows the disk detail pane adds (state, reasons, SMART figures) and the Problems tab's
health lines. Pure Rich: the values come from app/health (core/disk_health's types)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:  # its dataclasses cost ~3 ms to define: loaded with the first report
    from ...core.disk_health import DiskHealth, HealthState, SmartReading
from ...core.units import format_bytes
from ..detail_pane import detail_grid, plain_row

# Short enough for the 80-column table: the detail pane spells the state out.
# By HealthState's values (a StrEnum: its members are these strings).
STATE_LABEL = {
    "ok": "ok",
    "warning": "warn",
    "critical": "crit",
    "asleep": "asleep",
    "unknown": "?",
}
STATE_STYLE = {
    "ok": "green",
    "warning": "bold yellow",
    "critical": "bold red",
    "asleep": "dim",
    "unknown": "yellow",
}
NEEDS_ROOT = "needs root"


def health_cell(health: DiskHealth | None) -> str:
    """ "ok 34°", "warn 62°", "crit", "asleep", "?": empty until health is collected."""
    if health is None:
        return ""
    label = STATE_LABEL[health.state]
    temp = health.smart.temperature_c
    # a sleeping disk was not read: no temperature to show, and none is guessed
    return f"{label} {temp}°" if temp is not None and health.state != "asleep" else label


def health_text(health: DiskHealth | None, cell: str) -> Text:
    return Text(cell, style=STATE_STYLE[health.state] if health is not None else "")


def _count(value: int | None, unit: str = "") -> str | None:
    return None if value is None else f"{value:,}{unit}"


def smart_figures(smart: SmartReading) -> list[tuple[str, str | None]]:
    """(label, value) for each field of tierdeck.health/1's "smart", in its order,
    then the extra figures a disk may report; None where the disk reports nothing."""
    verdict = {True: "passed", False: "FAILED", None: None}[smart.passed]
    spare = _count(smart.available_spare_pct, " %")
    if spare is not None and smart.available_spare_threshold_pct is not None:
        spare += f" (threshold {smart.available_spare_threshold_pct} %)"
    written = format_bytes(smart.bytes_written) if smart.bytes_written is not None else None
    return [
        ("SMART verdict", verdict),
        ("Temperature", _count(smart.temperature_c, " °C")),
        ("Power-on", _count(smart.power_on_hours, " h")),
        ("Reallocated", _count(smart.reallocated_sectors, " sectors")),
        ("Pending", _count(smart.pending_sectors, " sectors")),
        ("Offline uncorr.", _count(smart.offline_uncorrectable, " sectors")),
        ("CRC errors", _count(smart.crc_errors)),
        ("Wear", _count(smart.percentage_used, " % used")),
        ("Spare", spare),
        ("Media errors", _count(smart.media_errors)),
        ("Written", written),
        ("Unsafe shutdowns", _count(smart.unsafe_shutdowns)),
        ("Grown defects", _count(smart.grown_defects)),
        ("Non-medium errs", _count(smart.non_medium_errors)),
        ("Last self-test", smart.self_test),
    ]


def add_health_state(grid: Table, health: DiskHealth | None, collected: bool) -> None:
    """The disk detail grid's Health row: the state and its reasons, right under the
    title (the answer people come for); the figures follow in ``smart_grid``."""
    key = Text("Health", style="bold")
    if health is None:
        plain_row(grid, key, Text("not read" if collected else "reading SMART…", style="dim"))
        return
    state = Text(health.state.value, style=STATE_STYLE[health.state])
    if health.reasons:
        state.append(": " + "; ".join(health.reasons))
    plain_row(grid, key, state)


def smart_grid(health: DiskHealth | None) -> Group | None:
    """Every SMART figure the disk reports, a grid of its own (its long labels would
    widen the identity grid above). Without root the main figures say "needs root",
    never a healthy-looking blank. None when there is nothing to show."""
    if health is None:
        return None
    figures = smart_figures(health.smart)
    if health.needs_root:
        main = ("Temperature", "Power-on", "Reallocated", "Pending", "Wear")
        figures = [(k, v if v is not None or k not in main else NEEDS_ROOT) for k, v in figures]
    shown = [(k, v) for k, v in figures if v is not None]
    if not shown:
        return None
    grid = detail_grid()
    for label, value in shown:
        plain_row(grid, Text("  " + label, style="bold"), value)
    return Group(Text("SMART:", style="bold"), grid)


def health_problem_grid(items: list[tuple[HealthState, str, str]]) -> Table:
    grid = detail_grid()
    for state, subject, reasons in items:
        mark = "✗" if state == "critical" else "!"
        label = Text(f"{mark} {state.value.upper():<8}", style=STATE_STYLE[state])
        plain_row(grid, label, Text.assemble((subject, "bold"), f": {reasons}"))
    return grid
