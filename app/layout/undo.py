"""Undo the newest ``tierdeck layout apply`` still on record beside fstab
(app/layout/state: a stack; app/layout/apply.py says what a record holds): put back
only what that apply changed. The apply before it is then the next undo's."""

from __future__ import annotations

import errno
import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ...backends.host import Host
from ...core.errors import HostError
from ...core.layout.apply_plan import (
    FSTAB,
    STATE_NAME,
    SYSTEMD_RUNNING,
    ActionKind,
    ApplyAction,
    rooted,
)
from ...core.layout.runtime import XATTR_PREFIX, RuntimeChange
from .apply import (
    COMMAND_TIMEOUT,
    LOCK_KEY,
    MERGERFS,
    ApplyFailed,
    earlier_applies,
    mounted_now,
    refuse_busy,
)
from .state import Record, stack_text, text_digest


@dataclass(frozen=True)
class UndoPlan:
    state_path: str
    fstab_path: str
    backup: str | None
    units: dict[str, str | None]  # path -> the text to put back, None: remove it
    actions: tuple[ApplyAction, ...]
    # The applies still undoable after this one, oldest first (empty: back to the start).
    remaining: tuple[Record, ...] = field(default=())
    record: Record = field(default_factory=dict)  # the apply this undoes


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
    now = mounted_now(host)
    return [ApplyAction(ActionKind.UNMOUNT, f"unmount {mp} (apply mounted it)", argv=("umount", mp),
                        skipped=None if now.get(mp, ("",))[0] == MERGERFS else
                        f"skipped: no mergerfs pool is mounted at {mp} now")
            for mp in reversed(mounted)]  # fmt: skip


def _refuse_changed_fstab(host: Host, fstab_path: str, state: Record, backup: str) -> None:
    """Putting the backup back would drop whatever was written to fstab since this
    apply (a disk added by hand between two applies): refuse, changing nothing, and say
    what to do. Records from before the check keep no digest and are restored as before."""
    written = state.get("fstab_written")
    if written is None:
        return
    try:
        now = host.read_text(fstab_path)
    except FileNotFoundError:
        now = ""
    if text_digest(now) != written:
        raise ApplyFailed(
            None,
            f"{fstab_path} has changed since this apply wrote it; restoring {backup} would "
            "drop those changes, so nothing was undone. Compare the two and restore by hand, "
            "or put fstab back as the apply left it and undo again",
        )


def plan_undo(host: Host, root: str | None) -> UndoPlan | None:
    """What undo will do, from the last apply's record; None when there is none."""
    fstab_path = rooted(root, FSTAB)
    state_path = posixpath.join(posixpath.dirname(fstab_path), STATE_NAME)
    stack = earlier_applies(host, state_path)
    if not stack:
        return None
    *remaining, state = stack
    backup, units = state["backup"], state["units"]
    actions = [*_runtime_undo(state["runtime"]), *_unmounts(host, state["mounted"], root)]
    if backup is None:
        actions.append(ApplyAction(ActionKind.REMOVE_FILE,
                                   f"remove {fstab_path} (there was none before)", fstab_path))  # fmt: skip
    else:
        if not host.exists(backup):
            raise ApplyFailed(None, f"the backup {backup} is gone; fstab left as it is")
        _refuse_changed_fstab(host, fstab_path, state, backup)
        actions.append(ApplyAction(ActionKind.RESTORE_FSTAB,
                                   f"restore {fstab_path} from {backup}", fstab_path))  # fmt: skip
    skip = "skipped: --root applies files only" if root is not None else None
    if skip is None and not host.exists(SYSTEMD_RUNNING):
        skip = f"skipped: systemd is not running here ({SYSTEMD_RUNNING} is absent)"
    # A timer apply enabled stays loaded and its timers.target link stays behind when
    # only its file goes: stop and disable it first, while systemctl can still find it.
    for path, before in units.items():
        name = posixpath.basename(path)
        if before is None and name.endswith(".timer"):
            actions.append(ApplyAction(ActionKind.DISABLE_TIMER, f"stop and disable the timer {name}",
                                       argv=("systemctl", "disable", "--now", name), skipped=skip))  # fmt: skip
    for path, before in units.items():
        if before is None:
            actions.append(ApplyAction(ActionKind.REMOVE_FILE, f"remove {path}", path))
        else:
            actions.append(ApplyAction(ActionKind.RESTORE_UNIT,
                                       f"put back the earlier {path}", path))  # fmt: skip
    actions.append(ApplyAction(ActionKind.DAEMON_RELOAD, "reload systemd's units",
                               argv=("systemctl", "daemon-reload"), skipped=skip))  # fmt: skip
    for name in state["disabled"]:  # a timer the apply stopped, its file now back
        actions.append(ApplyAction(ActionKind.ENABLE_TIMER, f"start the timer {name} again",
                                   argv=("systemctl", "enable", "--now", name), skipped=skip))  # fmt: skip
    for path in reversed(state["created"]):
        actions.append(ApplyAction(ActionKind.REMOVE_DIR,
                                   f"remove the mountpoint {path} apply created, if empty", path))  # fmt: skip
    return UndoPlan(state_path, fstab_path, backup, units, tuple(actions), tuple(remaining), state)


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
    """Put back what the newest apply changed: the options it set on a running pool, the
    pools it mounted unmounted (no other), fstab and the units as it found them, the
    mountpoints it created removed when empty; then take it off the stack (the next
    undo undoes the apply before it). The fstab backup is kept. Stops at the first step
    that fails, before fstab when an unmount fails (a busy pool), so undo can run again."""
    with host.exclusive(LOCK_KEY):
        refuse_busy(host, plan.actions)
        for action in plan.actions:
            done = action
            if not action.skipped:
                try:
                    done = _undo_one(host, plan, action)
                except (OSError, HostError) as exc:
                    raise ApplyFailed(action, str(exc)) from exc
            on_step(done)
        if plan.remaining:
            host.write_atomically(plan.state_path, stack_text(list(plan.remaining)))
        else:
            host.remove(plan.state_path)
