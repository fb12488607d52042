"""Apply a layout's plan (core/layout_apply) through the Host, and undo the last apply.

What the last apply changed is recorded in a small JSON file beside fstab
(``fstab.tierdeck-state.json``): the fstab backup to restore (or none: fstab did not
exist), each unit file it wrote with the text it replaced (or none: it was new), the
mountpoints it created, the pools it mounted where nothing was mounted, and the options
it set on a running pool with their earlier values. The record is written before fstab
is, and again after each mount and option set, so an apply that fails half way can be
undone, and undo unmounts only what apply mounted.
No click, no Textual: the CLI prints and asks, this module reads and writes.
"""

from __future__ import annotations

import errno
import json
import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from ..backends.host import Host
from ..backends.mounts import MOUNTINFO, call_with_timeout, parse_mountinfo
from ..core.errors import HostError, ParseError, TierdeckError
from ..core.layout import Layout
from ..core.layout_apply import (
    FSTAB,
    STATE_NAME,
    SYSTEMD_RUNNING,
    UNIT_DIR,
    ActionKind,
    ApplyAction,
    ApplyPlan,
    CurrentState,
    rooted,
)
from ..core.layout_outputs import LayoutOutputs
from ..core.layout_runtime import COMPARED_KEYS, XATTR_PREFIX, RuntimeChange, control_path

STATE_FORMAT = "tierdeck.apply-state/1"
LOCK_KEY = "layout-apply"  # one apply or undo at a time on a machine
COMMAND_TIMEOUT = 120.0  # mount waits for mergerfs to start; systemctl for the manager
CONTROL_TIMEOUT = 10.0  # a hung mergerfs blocks xattr calls on its control file too
MERGERFS = "fuse.mergerfs"


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


def _mounted(host: Host) -> dict[str, tuple[str, str]]:
    """mountpoint -> (fs type, source), the last mount at each (the one in use)."""
    try:
        mounts = parse_mountinfo(host.read_text(MOUNTINFO))
    except (OSError, HostError, ParseError) as exc:
        raise ApplyFailed(None, f"cannot tell what is mounted ({exc})") from exc
    return {m.mountpoint: (m.fs_type, m.source) for m in mounts}


def _live_options(host: Host, mountpoint: str) -> dict[str, str] | None:
    """A running mergerfs pool's options that apply compares; None when its control
    file cannot be read (then it can only be remounted)."""
    ctrl = control_path(mountpoint)

    def read() -> dict[str, str]:
        found: dict[str, str] = {}
        for key in COMPARED_KEYS:
            try:
                found[key] = host.getxattr(ctrl, XATTR_PREFIX + key)
            except KeyError:
                continue  # not in this release: counts as different
        return found

    try:
        return call_with_timeout(host, f"xattrs {ctrl}", read, CONTROL_TIMEOUT)
    except (TimeoutError, OSError, HostError):
        return None


def current_state(
    host: Host, layout: Layout, outputs: LayoutOutputs, root: str | None
) -> CurrentState:
    """fstab, the targets that exist and (without a root) what is mounted where the
    pools go, a running pool's options and whether systemd runs, as
    core/layout_apply.plan_apply wants them."""
    mountpoints = [pool.mountpoint for pool, _ in layout.pools()]
    targets = [*mountpoints, *(posixpath.join(UNIT_DIR, u) for u in outputs.units)]
    existing = frozenset(p for p in targets if host.exists(rooted(root, p)))
    fstab = _read(host, rooted(root, FSTAB))
    if root is not None:
        return CurrentState(fstab, existing)
    mounted: dict[str, str] = {}
    live: dict[str, dict[str, str]] = {}
    for mp, (fs_type, source) in _mounted(host).items():
        if mp in mountpoints:
            mounted[mp] = f"{fs_type} {source}"
            options = _live_options(host, mp) if fs_type == MERGERFS else None
            if options is not None:
                live[mp] = options
    return CurrentState(fstab, existing, mounted, live, host.exists(SYSTEMD_RUNNING))


@dataclass
class _Record:
    """What this apply changed so far; saved beside fstab (see the module doc)."""

    units: dict[str, str | None]  # unit path -> its text before (None: it was new)
    created: list[str] = field(default_factory=list)  # mountpoint folders, under the root
    mounted: list[str] = field(default_factory=list)  # pools mounted where nothing was
    runtime: dict[str, dict[str, str | None]] = field(default_factory=dict)  # ctrl -> key -> before

    def save(self, host: Host, plan: ApplyPlan) -> None:
        state = {"format": STATE_FORMAT, "layout": plan.name, "fstab": plan.fstab_path,
                 "backup": plan.backup, "units": self.units, "created": self.created,
                 "mounted": self.mounted, "runtime": self.runtime}  # fmt: skip
        host.write_atomically(plan.state_path, json.dumps(state, indent=2) + "\n")


def _do(host: Host, plan: ApplyPlan, action: ApplyAction, record: _Record) -> None:
    path = action.path or ""
    if action.kind is ActionKind.CREATE_MOUNTPOINT:
        host.make_dirs(path)
        record.created.append(path)
    elif action.kind is ActionKind.BACKUP_FSTAB:
        host.write_atomically(path, plan.fstab_before or "")
    elif action.kind is ActionKind.WRITE_FSTAB:
        if _read(host, plan.fstab_path) != plan.fstab_before:
            raise ApplyFailed(action, "fstab changed since the plan was made; nothing "
                              "written to it, run apply again")  # fmt: skip
        host.make_dirs(posixpath.dirname(path))
        record.save(host, plan)
        host.write_atomically(path, plan.fstab_text)
    elif action.kind is ActionKind.WRITE_UNIT:
        host.make_dirs(posixpath.dirname(path))
        host.write_atomically(path, plan.units[path])
    elif action.kind is ActionKind.SET_OPTION and action.change is not None:
        host.setxattr(path, XATTR_PREFIX + action.change.key, action.change.value)
        record.runtime.setdefault(path, {})[action.change.key] = action.change.before
        record.save(host, plan)
    else:
        host.run(action.argv, timeout=COMMAND_TIMEOUT).check()


def execute(host: Host, plan: ApplyPlan, on_step: Callable[[ApplyAction], None]) -> None:
    """Run the plan's actions in order (``on_step`` after each, skipped ones too); stop
    at the first that fails (ApplyFailed naming it)."""
    with host.exclusive(LOCK_KEY):
        # What each unit held before, read before anything is written.
        record = _Record({path: _read(host, path) for path in plan.units})
        unmounted: set[str] = set()
        for action in plan.actions:
            if not action.skipped:
                try:
                    _do(host, plan, action, record)
                except ApplyFailed:
                    raise
                except (OSError, HostError) as exc:
                    raise ApplyFailed(action, str(exc)) from exc
                mountpoint = action.argv[-1] if action.argv else ""
                if action.kind is ActionKind.UNMOUNT:
                    unmounted.add(mountpoint)
                elif action.kind is ActionKind.MOUNT and mountpoint not in unmounted:
                    # A remounted pool replaced the user's: undo leaves it mounted.
                    record.mounted.append(mountpoint)
                    record.save(host, plan)
            on_step(action)


@dataclass(frozen=True)
class UndoPlan:
    state_path: str
    fstab_path: str
    backup: str | None
    units: dict[str, str | None]  # path -> the text to put back, None: remove it
    actions: tuple[ApplyAction, ...]


def _load_record(text: str, state_path: str) -> dict[str, Any]:
    try:
        state = json.loads(text)
        if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
            raise ValueError(f"not {STATE_FORMAT}")
        state["units"] = dict(state["units"])
        state.setdefault("backup", None)
        for key, empty in (("created", []), ("mounted", []), ("runtime", {})):
            if not isinstance(state.setdefault(key, empty), type(empty)):
                raise ValueError(f"{key}: not a {type(empty).__name__}")
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ApplyFailed(None, f"{state_path}: not tierdeck's record of an apply ({exc})") from exc
    return state


def _runtime_undo(runtime: dict[str, dict[str, str | None]]) -> list[ApplyAction]:
    actions = []
    for ctrl, before in runtime.items():
        for key, value in before.items():
            if value is not None:
                actions.append(ApplyAction(
                    ActionKind.SET_OPTION, f"set {key} back to {value} on the running pool "
                    f"({ctrl})", path=ctrl, change=RuntimeChange(key, value, None)))  # fmt: skip
    return actions


def _unmounts(host: Host, mounted: list[str], root: str | None) -> list[ApplyAction]:
    """Unmount the pools apply mounted, newest first; one already gone is said so."""
    if not mounted or root is not None:
        return []
    now = _mounted(host)
    return [ApplyAction(ActionKind.UNMOUNT, f"unmount {mp} (apply mounted it)", argv=("umount", mp),
                        skipped=None if now.get(mp, ("",))[0] == MERGERFS else
                        f"skipped: no mergerfs pool is mounted at {mp} now")
            for mp in reversed(mounted)]  # fmt: skip


def plan_undo(host: Host, root: str | None) -> UndoPlan | None:
    """What undo will do, from the last apply's record; None when there is none."""
    fstab_path = rooted(root, FSTAB)
    state_path = posixpath.join(posixpath.dirname(fstab_path), STATE_NAME)
    text = _read(host, state_path)
    if text is None:
        return None
    state = _load_record(text, state_path)
    backup, units = state["backup"], state["units"]
    actions = [*_runtime_undo(state["runtime"]), *_unmounts(host, state["mounted"], root)]
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
    if skip is None and not host.exists(SYSTEMD_RUNNING):
        skip = f"skipped: systemd is not running here ({SYSTEMD_RUNNING} is absent)"
    actions.append(ApplyAction(ActionKind.DAEMON_RELOAD, "reload systemd's units",
                               argv=("systemctl", "daemon-reload"), skipped=skip))  # fmt: skip
    for path in reversed(state["created"]):
        actions.append(ApplyAction(ActionKind.REMOVE_DIR,
                                   f"remove the mountpoint {path} apply created, if empty", path))  # fmt: skip
    return UndoPlan(state_path, fstab_path, backup, units, tuple(actions))


def _undo_one(host: Host, plan: UndoPlan, action: ApplyAction) -> ApplyAction:
    """Do one undo step; the action as done (a folder kept says why)."""
    path = action.path or ""
    if action.kind is ActionKind.RESTORE_FSTAB and plan.backup is not None:
        host.write_atomically(plan.fstab_path, host.read_text(plan.backup))
    elif action.kind is ActionKind.RESTORE_UNIT:
        host.write_atomically(path, plan.units[path] or "")
    elif action.kind is ActionKind.REMOVE_FILE:
        host.remove(path)
    elif action.kind is ActionKind.REMOVE_DIR:
        try:
            host.remove_dir(path)
        except OSError as exc:
            if exc.errno != errno.ENOTEMPTY:
                raise
            return replace(action, skipped=f"kept {path}: something is in it")
    elif action.kind is ActionKind.SET_OPTION and action.change is not None:
        host.setxattr(path, XATTR_PREFIX + action.change.key, action.change.value)
    else:
        host.run(action.argv, timeout=COMMAND_TIMEOUT).check()
    return action


def undo(host: Host, plan: UndoPlan, on_step: Callable[[ApplyAction], None]) -> None:
    """Put back what the last apply changed: the options it set on a running pool, the
    pools it mounted unmounted (no other), fstab and the units as it found them, the
    mountpoints it created removed when empty; then forget that apply (a second undo
    has nothing to do). The fstab backup is kept. Stops at the first step that fails,
    before fstab when an unmount fails (a busy pool), so undo can run again."""
    with host.exclusive(LOCK_KEY):
        for action in plan.actions:
            done = action
            if not action.skipped:
                try:
                    done = _undo_one(host, plan, action)
                except (OSError, HostError) as exc:
                    raise ApplyFailed(action, str(exc)) from exc
            on_step(done)
        host.remove(plan.state_path)
