"""Apply a layout's plan (core/layout_apply) through the Host, and undo the last apply.

What the last apply changed is recorded in a small JSON file beside fstab
(``fstab.tierdeck-state.json``): the fstab backup to restore (or none: fstab did not
exist), and each unit file it wrote with the text it replaced (or none: it was new).
The record is written before fstab is, so an apply that fails half way can be undone.
No click, no Textual: the CLI prints and asks, this module reads and writes.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from ..backends.host import Host
from ..backends.mounts import MOUNTINFO, parse_mountinfo
from ..core.errors import HostError, ParseError, TierdeckError
from ..core.layout import Layout
from ..core.layout_apply import (
    FSTAB,
    STATE_NAME,
    UNIT_DIR,
    ActionKind,
    ApplyAction,
    ApplyPlan,
    CurrentState,
    rooted,
)
from ..core.layout_outputs import LayoutOutputs

STATE_FORMAT = "tierdeck.apply-state/1"
LOCK_KEY = "layout-apply"  # one apply or undo at a time on a machine
COMMAND_TIMEOUT = 120.0  # mount waits for mergerfs to start; systemctl for the manager


class ApplyFailed(TierdeckError):
    """A step could not be done; ``action`` is the one (None: before the first)."""

    def __init__(self, action: ApplyAction | None, detail: str) -> None:
        where = f"{action.description}: " if action else ""
        super().__init__(f"{where}{detail}")
        self.action = action


def _read(host: Host, path: str) -> str | None:
    try:
        return host.read_text(path)
    except FileNotFoundError:
        return None


def stamp_now() -> str:
    """A backup's time stamp, to the microsecond (two applies in a second keep both)."""
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")


def current_state(
    host: Host, layout: Layout, outputs: LayoutOutputs, root: str | None
) -> CurrentState:
    """fstab, the targets that exist and (without a root) what is mounted where the
    pools go, as core/layout_apply.plan_apply wants them."""
    mountpoints = [pool.mountpoint for pool, _ in layout.pools()]
    targets = [*mountpoints, *(posixpath.join(UNIT_DIR, u) for u in outputs.units)]
    existing = frozenset(p for p in targets if host.exists(rooted(root, p)))
    mounted: dict[str, str] = {}
    if root is None:
        try:
            mounts = parse_mountinfo(host.read_text(MOUNTINFO))
        except (OSError, HostError, ParseError) as exc:
            raise ApplyFailed(None, f"cannot tell what is mounted ({exc})") from exc
        for m in mounts:
            if m.mountpoint in mountpoints:
                mounted[m.mountpoint] = f"{m.fs_type} {m.source}"
    return CurrentState(_read(host, rooted(root, FSTAB)), existing, mounted)


def _record(host: Host, plan: ApplyPlan, previous_units: dict[str, str | None]) -> None:
    state = {"format": STATE_FORMAT, "layout": plan.name, "fstab": plan.fstab_path,
             "backup": plan.backup, "units": previous_units}  # fmt: skip
    host.write_atomically(plan.state_path, json.dumps(state, indent=2) + "\n")


def _do(host: Host, plan: ApplyPlan, action: ApplyAction, units: dict[str, str | None]) -> None:
    path = action.path or ""
    if action.kind is ActionKind.CREATE_MOUNTPOINT:
        host.make_dirs(path)
    elif action.kind is ActionKind.BACKUP_FSTAB:
        host.write_atomically(path, plan.fstab_before or "")
    elif action.kind is ActionKind.WRITE_FSTAB:
        if _read(host, plan.fstab_path) != plan.fstab_before:
            raise ApplyFailed(action, "fstab changed since the plan was made; nothing "
                              "written to it, run apply again")  # fmt: skip
        host.make_dirs(posixpath.dirname(path))
        _record(host, plan, units)
        host.write_atomically(path, plan.fstab_text)
    elif action.kind is ActionKind.WRITE_UNIT:
        host.make_dirs(posixpath.dirname(path))
        host.write_atomically(path, plan.units[path])
    else:
        host.run(action.argv, timeout=COMMAND_TIMEOUT).check()


def execute(host: Host, plan: ApplyPlan, on_step: Callable[[ApplyAction], None]) -> None:
    """Run the plan's actions in order (``on_step`` after each, skipped ones too); stop
    at the first that fails (ApplyFailed naming it)."""
    with host.exclusive(LOCK_KEY):
        # What each unit held before, read before anything is written.
        units = {path: _read(host, path) for path in plan.units}
        for action in plan.actions:
            if not action.skipped:
                try:
                    _do(host, plan, action, units)
                except ApplyFailed:
                    raise
                except (OSError, HostError) as exc:
                    raise ApplyFailed(action, str(exc)) from exc
            on_step(action)


@dataclass(frozen=True)
class UndoPlan:
    state_path: str
    fstab_path: str
    backup: str | None
    units: dict[str, str | None]  # path -> the text to put back, None: remove it
    actions: tuple[ApplyAction, ...]


def plan_undo(host: Host, root: str | None) -> UndoPlan | None:
    """What undo will do, from the last apply's record; None when there is none."""
    fstab_path = rooted(root, FSTAB)
    state_path = posixpath.join(posixpath.dirname(fstab_path), STATE_NAME)
    text = _read(host, state_path)
    if text is None:
        return None
    try:
        state = json.loads(text)
        if state.get("format") != STATE_FORMAT:
            raise ValueError(f"not {STATE_FORMAT}")
        backup, units = state["backup"], dict(state["units"])
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ApplyFailed(None, f"{state_path}: not tierdeck's record of an apply ({exc})") from exc
    actions: list[ApplyAction] = []
    if backup is None:
        actions.append(ApplyAction(ActionKind.REMOVE_FILE,
                                   f"remove {fstab_path} (there was none before)", fstab_path))  # fmt: skip
    else:
        if not host.exists(backup):
            raise ApplyFailed(None, f"the backup {backup} is gone; fstab left as it is")
        actions.append(ApplyAction(ActionKind.RESTORE_FSTAB,
                                   f"restore {fstab_path} from {backup}", fstab_path))  # fmt: skip
    for path, before in units.items():
        if before is None:
            actions.append(ApplyAction(ActionKind.REMOVE_FILE, f"remove {path}", path))
        else:
            actions.append(ApplyAction(ActionKind.RESTORE_UNIT,
                                       f"put back the earlier {path}", path))  # fmt: skip
    skip = "skipped: --root applies files only" if root is not None else None
    actions.append(ApplyAction(ActionKind.DAEMON_RELOAD, "reload systemd's units",
                               argv=("systemctl", "daemon-reload"), skipped=skip))  # fmt: skip
    return UndoPlan(state_path, fstab_path, backup, units, tuple(actions))


def undo(host: Host, plan: UndoPlan, on_step: Callable[[ApplyAction], None]) -> None:
    """Put fstab and the units back as the last apply found them, then forget that
    apply (a second undo has nothing to do). The backup file and the mountpoint folders
    are kept; nothing is unmounted."""
    with host.exclusive(LOCK_KEY):
        for action in plan.actions:
            if action.skipped:
                on_step(action)
                continue
            try:
                if action.kind is ActionKind.RESTORE_FSTAB and plan.backup is not None:
                    host.write_atomically(plan.fstab_path, host.read_text(plan.backup))
                elif action.kind is ActionKind.RESTORE_UNIT:
                    host.write_atomically(action.path or "", plan.units[action.path or ""] or "")
                elif action.kind is ActionKind.REMOVE_FILE:
                    host.remove(action.path or "")
                else:
                    host.run(action.argv, timeout=COMMAND_TIMEOUT).check()
            except (OSError, HostError) as exc:
                raise ApplyFailed(action, str(exc)) from exc
            on_step(action)
        host.remove(plan.state_path)
