"""Text bars and health colours shared by the dashboard, the run view and the sweep view.

Bars are plain Rich ``Text`` (not ProgressBar widgets) so they fit in table cells and
tree labels, cost nothing when hidden and render identically in every snapshot.
"""

from __future__ import annotations

from rich.text import Text

# zpool/md states that mean "redundancy is gone or a device is out": shown red.
BAD_STATES = frozenset(
    {"DEGRADED", "FAULTED", "UNAVAIL", "REMOVED", "OFFLINE", "SUSPENDED", "FAULTY", "INACTIVE"}
)
GOOD_STATES = frozenset({"ONLINE", "AVAIL", "ACTIVE", "CLEAN", "IN_SYNC"})

FULL_FRACTION = 0.90  # a filesystem above this is flagged, like find_problems does


def state_style(state: str | None) -> str:
    """Rich style for a zpool/vdev/md state word."""
    if not state:
        return "dim"
    word = state.upper()
    if any(bad in word for bad in BAD_STATES):
        return "bold red"
    if word in GOOD_STATES:
        return "green"
    return "yellow"


def state_text(state: str | None, width: int = 0) -> Text:
    label = state or "?"
    return Text(label.ljust(width), style=state_style(state))


def usage_bar(
    fraction: float | None,
    width: int = 10,
    *,
    alarm: bool = False,
    alarm_over: float | None = FULL_FRACTION,
) -> Text:
    """``████░░░░░░``-style bar of a used fraction; red when ``alarm`` or past
    ``alarm_over`` (None: never, e.g. btrfs chunk allocations that are full by design)."""
    if fraction is None:
        return Text("?".center(width), style="dim")
    fraction = min(max(fraction, 0.0), 1.0)
    filled = round(fraction * width)
    over = alarm_over is not None and fraction > alarm_over
    style = "red" if alarm or over else "green"
    bar = Text()
    bar.append("█" * filled, style=style)
    bar.append("░" * (width - filled), style="dim")
    return bar


def percent_bar(percent: float | None, width: int = 20, *, style: str = "cyan") -> Text:
    """Progress of a resilver/scrub/resync: bar plus ``45.2%``."""
    if percent is None:
        return Text("progress unknown", style="dim")
    percent = min(max(percent, 0.0), 100.0)
    filled = round(percent / 100 * width)
    bar = Text()
    bar.append("█" * filled, style=style)
    bar.append("░" * (width - filled), style="dim")
    bar.append(f" {percent:.1f}%", style=f"bold {style}")
    return bar


def severity_style(severity: str) -> str:
    return {"critical": "bold red", "warning": "yellow", "info": "cyan"}.get(severity, "")
