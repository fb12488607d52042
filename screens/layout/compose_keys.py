"""The compose screen's keys and help page (screens/layout/compose.py), kept apart so the
screen holds only what it does."""

from __future__ import annotations

from textual.binding import Binding

BINDINGS: list[Binding | tuple[str, str] | tuple[str, str, str]] = [
    Binding("c", "tier('cache')", "Cache", tooltip="add the highlighted mount to the cache tier"),
    Binding("s", "tier('slow')", "Slow", tooltip="add the highlighted mount to the slow tier"),
    Binding("x", "tier('none')", "Remove", tooltip="take the highlighted mount out of its tier"),
    Binding(
        "m",
        "mode",
        "Mode",
        show=False,  # at 80 columns the tiers line says it; wider, the footer (FOOTER_IF_ROOM)
        tooltip="the highlighted slow branch's mode: RW, NC (no new files), RO",
    ),
    Binding(
        "p",
        "from_pool",
        "From pool",
        show=False,  # at 80 columns it pushed "q Quit" off the footer
        tooltip="start again from the next mounted mergerfs pool (its live options)",
    ),
    Binding(
        "ctrl+s",
        "save",
        "Save",
        tooltip="save the layout as TOML to a file you name; not while a check says error",
    ),
    Binding(
        "w",
        "save",
        "Save",
        show=False,
        tooltip="save, as ctrl+s does (a terminal with flow control keeps ctrl+s for itself)",
    ),
    Binding(
        "o",
        "write_output",
        "Write",
        show=False,  # at 80 columns the help lists it; wider, the footer (FOOTER_IF_ROOM)
        tooltip="write the fstab lines, a unit or the TOML to a file you name",
    ),
    Binding("1", "view('1')", "Branches", show=False, tooltip="view: the mounts to pick from"),
    Binding("2", "view('2')", "Options", show=False, tooltip="view: pools and options"),
    Binding(
        "3",
        "view('3')",
        "Checks",
        show=False,
        tooltip="view: rule results, where a new file lands, fstab",
    ),
    # Keys that open other screens from here go below (the mover's view).
    Binding(
        "v",
        "mover",
        "Mover",
        show=False,
        tooltip="the mover of this layout: saved to a file you name first, then its "
        "forecast, a move, the last run",
    ),
    Binding(
        "escape",
        "back",
        "Back",
        tooltip="back to the dashboard (asks first when the layout has changes not saved)",
    ),
    # The app's q, asking first when the layout has changes not saved.
    Binding("q", "quit", "Quit", tooltip="quit tierdeck (asks first when the layout is not saved)"),
]
# Hidden at 80 columns, shown once every key fits (widgets/calm_footer).
FOOTER_IF_ROOM = ("from_pool", "mode", "write_output", "mover")
HELP_TITLE = "tierdeck keys: compose a tier layout"
HELP_NOTES = (
    ("up / down", "mounts: move; checks: scroll"),
    ("tab / shift+tab", "next / previous field (options view)"),
    ("enter", "options: open a list (create policy, age basis); pick with up/down, enter"),
    ("escape (in a field)", "leave the field; 1-3 switch views again"),
    ("escape", "close this help"),
)
HELP_LEGEND = (
    "Tier: cache, or slow with its mode in the tiered pool (NC: no new files there). "
    "Media: SSD/HDD from the disks underneath, RAM for tmpfs. Checks: ✗ error (loses data "
    "or does not tier), ! warning, ✓ ok; ▶ marks the chosen create policy in the simulator."
)
