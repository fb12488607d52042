"""The mover view's parts that are not the screen: its phases, the messages its worker
thread posts, the move question, and the dashboard's way in (a layout file asked for,
checked as it is typed)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.message import Message

from ...app.layout.files import load_host_layout, load_layout, save_layout
from ...app.mover.history import MoverHistory, MoverHistoryError, MoverRecord
from ...app.mover.run import MoverProgress, MoverReport
from ...core.errors import TierdeckError, one_line
from ...core.layout.model import Layout, LayoutError
from ...core.layout.toml_format import layout_to_toml
from ...core.units import counted, format_bytes
from ...widgets.layout.mover_views import planned_bytes
from ..modals.confirm import PromptScreen

if TYPE_CHECKING:
    from ...backends.host import Host

# The compose screen's save proposes this name: the likeliest file when none is known.
DEFAULT_LAYOUT_FILE = "tierdeck-layout.toml"

RunMover = Callable[..., MoverReport]  # app.mover.run_mover's signature
LastRun = Callable[[], MoverRecord | None]


class Phase(Enum):
    FORECASTING = "forecasting (dry run)…"
    READY = "forecast ready: m moves these files"
    NOTHING = "nothing to move now: f forecasts again"
    MOVING = "moving files: c cancels"
    STOPPING = "stopping after the current file…"
    DONE = "done"
    FAILED = "could not run"


@dataclass
class MoverProgressed(Message):
    progress: MoverProgress

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, MoverProgressed)  # only the newest matters


@dataclass
class MoverFinished(Message):
    report: MoverReport


@dataclass
class MoverFailed(Message):
    error: str  # one line: a refusal (rules, lock, a recording) or a crash


@dataclass
class LastRunLoaded(Message):
    record: MoverRecord | None
    error: str | None = None  # why the history could not be read


def move_question(forecast: MoverReport) -> str:
    count, size = len(forecast.planned), format_bytes(planned_bytes(forecast.planned))
    return (
        f"Move {count} file{'s' if count != 1 else ''} ({size}) from the cache to the slow "
        "tier now?\n\nEach is copied branch to branch, synced, verified, and only then "
        "removed from the cache. The cache is scanned again first: the files moved may "
        "differ a little from the forecast."
    )


RECORDS_LOOKED_AT = 200  # each forecast is recorded too: the last move is among these


def last_move(layout_path: Path) -> MoverRecord | None:
    """The newest recorded run of this layout file that was not a dry run (the view's
    own forecasts are recorded too), or None. MoverHistoryError as the history says."""
    runs = MoverHistory().list(str(layout_path.absolute()), limit=RECORDS_LOOKED_AT)
    return next((r for r in runs if not r.dry_run), None)


def default_layout_file() -> str:
    """What the layout prompt proposes: the layout of the newest recorded mover run,
    else the name the compose screen saves to."""
    try:
        runs = MoverHistory().list(limit=1)
    except MoverHistoryError:
        runs = []
    return runs[0].layout_path if runs else DEFAULT_LAYOUT_FILE


def read_layout(text: str, host: Host | None = None) -> tuple[Path, Layout] | str:
    """The layout file the user typed, or why it is not one (one line). With ``host``,
    a file of that host (its own tierdeck runs the mover there)."""
    if not text.strip():
        return "a layout file (TOML), please"
    if host is not None:
        path = Path(text.strip())  # a path on the host: its ~ is not this machine's
        try:
            return path, load_host_layout(host, path)
        except (LayoutError, OSError, TierdeckError) as exc:
            return one_line(exc)
    path = Path(text.strip()).expanduser()
    try:
        return path, load_layout(path)
    except (LayoutError, OSError) as exc:
        return one_line(exc)


def ask_layout(
    app: Any, opened: Callable[[Path, Layout], None], default: str, host: Host | None = None
) -> None:
    """The dashboard's way in: a prompt for a layout file, checked on enter (the error
    shows under the field), then ``opened`` with the file's layout. With ``host``, a
    file on that host, read through it."""

    def check(text: str) -> str | None:
        found = read_layout(text, host)
        return found if isinstance(found, str) else None

    def answered(text: str | None) -> None:
        found = read_layout(text, host) if text else None
        if isinstance(found, tuple):
            opened(*found)

    where = "" if host is None else f" on {host.hostname}"
    app.push_screen(
        PromptScreen(
            f"The mover of which layout{where} (TOML file, e.g. saved by l on the dashboard)?",
            title="Mover",
            value=default,
            validate=check,
        ),
        answered,
    )


def save_and_open(
    screen: Any, layout: Layout, opened: Callable[[Path, Layout], None], host: Host | None = None
) -> None:
    """The compose screen's way in: the mover runs a layout *file* (its lock, journal and
    records are per file), so the layout is saved first, where the user says (asking
    before replacing a file), then ``opened``. With ``host`` (its own tierdeck moves
    its files), the file is written on that host."""
    from .compose_save import ask_and_write

    def write(path: Path) -> None:
        if host is None:
            save_layout(path, layout)
        else:
            host.write_atomically(str(path), layout_to_toml(layout))
        opened(path, layout)

    where = "" if host is None else f" on {host.hostname}"
    ask_and_write(screen, f"the layout (TOML) for the mover{where}", DEFAULT_LAYOUT_FILE, write,
                  on_host=host)  # fmt: skip


def head_text(name: str, layout: Layout, phase: Phase, report: MoverReport | None) -> Text:
    """The view's first lines: which layout moves from where to where, and the state."""
    text = Text.assemble(
        ("Layout ", "dim"),
        (name, "bold"),
        (f": {', '.join(layout.mover.source)} → {layout.mover.destination}", "dim"),
    )
    text.append("\n")
    text.append_text(_state(phase, report))
    return text


def _state(phase: Phase, report: MoverReport | None) -> Text:
    if phase is Phase.FAILED:
        return Text(phase.value, style="bold red")
    if phase is not Phase.DONE or report is None:
        return Text(phase.value, style="bold")
    moved = f"moved {report.files_moved} of {counted(len(report.planned), 'file')}"
    if report.stopped is None and report.unplaced:
        left = f"{len(report.unplaced)} more fit on no slow branch"
        return Text(f"done: {moved}; {left} (report below)", style="bold yellow")
    if report.stopped is None:
        return Text(f"done: {moved} (report below)", style="bold green")
    return Text(f"stopped ({report.stopped.value}): {moved} (report below)", style="bold red")
