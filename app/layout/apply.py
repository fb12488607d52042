"""Apply a layout's plan (core/layout/apply_plan) through the Host.

What each apply changed is recorded in a small JSON file beside fstab
(``fstab.tierdeck-state.json``, a stack of applies, app/layout/state): the fstab backup to restore (or none: fstab did not
exist), each unit file it wrote with the text it replaced (or none: it was new), the
mountpoints it created, the pools it mounted where nothing was mounted, and the options
it set on a running pool with their earlier values. The record is written before fstab
is, and again after each mount and option set, so an apply that fails half way can be
undone, and undo unmounts only what apply mounted.
No click, no Textual: the CLI prints and asks, this module reads and writes; undo is
app/layout/undo.py.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from ...backends.host import Host
from ...backends.mount_users import UseKind
from ...backends.mounts import MOUNTINFO, call_with_timeout, parse_mountinfo
from ...core.errors import HostError, ParseError, TierdeckError
from ...core.layout.apply_plan import (
    FSTAB,
    SYSTEMD_RUNNING,
    UNIT_DIR,
    ActionKind,
    ApplyAction,
    ApplyPlan,
    CurrentState,
    rooted,
)
from ...core.layout.model import Layout
from ...core.layout.outputs import LayoutOutputs, health_unit_names
from ...core.layout.runtime import COMPARED_KEYS, XATTR_PREFIX, control_path
from .state import STATE_FORMAT, BadState, Record, parse_stack, stack_text, text_digest

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


class MountBusy(ApplyFailed):
    """A pool the plan unmounts is in use; raised before any step, so nothing changed."""


_HOLDS = {UseKind.OPEN: "has files open under", UseKind.CWD: "has its working folder in",
          UseKind.ROOT: "runs chrooted in"}  # fmt: skip


def refuse_busy(host: Host, actions: Sequence[ApplyAction]) -> None:
    """MountBusy naming the processes that hold a pool the actions unmount: ``umount``
    would only say "target is busy", after earlier steps had already run."""
    for action in actions:
        if action.kind is not ActionKind.UNMOUNT or action.skipped or not action.argv:
            continue
        mp = action.argv[-1]
        users = host.mount_users(mp).users
        if users:
            named = [f"pid {u.pid} ({u.name}) {_HOLDS[u.kind]} {mp}" for u in users[:3]]
            more = f" and {len(users) - 3} more" if len(users) > 3 else ""
            raise MountBusy(action, f"{mp} is in use: {', '.join(named)}{more}; nothing was "
                            "changed: stop them (or leave the folder) and run this again")  # fmt: skip


def read_optional(host: Host, path: str) -> str | None:
    try:
        return host.read_text(path)
    except FileNotFoundError:
        return None


def stamp_now() -> str:
    """A backup's time stamp, to the microsecond (two applies in a second keep both)."""
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")


def mounted_now(host: Host) -> dict[str, tuple[str, str]]:
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
    core/layout/apply_plan.plan_apply wants them."""
    mountpoints = [pool.mountpoint for pool, _ in layout.pools()]
    # the health check's units too when the layout has none: an earlier apply's go
    units = {*outputs.units, *health_unit_names(layout)}
    targets = [*mountpoints, *(posixpath.join(UNIT_DIR, u) for u in sorted(units))]
    existing = frozenset(p for p in targets if host.exists(rooted(root, p)))
    fstab = read_optional(host, rooted(root, FSTAB))
    if root is not None:
        return CurrentState(fstab, existing)
    mounted: dict[str, str] = {}
    live: dict[str, dict[str, str]] = {}
    for mp, (fs_type, source) in mounted_now(host).items():
        if mp in mountpoints:
            mounted[mp] = f"{fs_type} {source}"
            options = _live_options(host, mp) if fs_type == MERGERFS else None
            if options is not None:
                live[mp] = options
    return CurrentState(fstab, existing, mounted, live, host.exists(SYSTEMD_RUNNING))


@dataclass
class _Record:
    """What this apply changed so far; saved beside fstab (see the module doc) on top
    of the earlier applies' records (app/layout/state)."""

    units: dict[str, str | None]  # unit path -> its text before (None: it was new)
    earlier: list[Record]  # the applies before this one, oldest first
    applied: str = field(default_factory=lambda: stamp_now())
    created: list[str] = field(default_factory=list)  # mountpoint folders, under the root
    mounted: list[str] = field(default_factory=list)  # pools mounted where nothing was
    runtime: dict[str, dict[str, str | None]] = field(default_factory=dict)  # ctrl -> key -> before
    disabled: list[str] = field(default_factory=list)  # timers it stopped (undo starts them)

    def save(self, host: Host, plan: ApplyPlan) -> None:
        state = {"format": STATE_FORMAT, "layout": plan.name, "fstab": plan.fstab_path,
                 "backup": plan.backup, "units": self.units, "created": self.created,
                 "mounted": self.mounted, "runtime": self.runtime, "applied": self.applied,
                 "disabled": self.disabled,
                 "fstab_written": text_digest(plan.fstab_text)}  # fmt: skip
        host.write_atomically(plan.state_path, stack_text([*self.earlier, state]))


def earlier_applies(host: Host, state_path: str) -> list[Record]:
    """The records of the applies still undoable, oldest first; ApplyFailed when the
    file there is not tierdeck's (it is left alone)."""
    text = read_optional(host, state_path)
    try:
        return parse_stack(text, state_path) if text is not None else []
    except BadState as exc:
        raise ApplyFailed(None, str(exc)) from exc


def _do(host: Host, plan: ApplyPlan, action: ApplyAction, record: _Record) -> None:
    path = action.path or ""
    if action.kind is ActionKind.CREATE_MOUNTPOINT:
        host.make_dirs(path)
        record.created.append(path)
    elif action.kind is ActionKind.BACKUP_FSTAB:
        host.write_atomically(path, plan.fstab_before or "")
    elif action.kind is ActionKind.WRITE_FSTAB:
        if read_optional(host, plan.fstab_path) != plan.fstab_before:
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
    elif action.kind is ActionKind.REMOVE_FILE:
        host.remove(path)
    elif action.kind is ActionKind.DISABLE_TIMER:
        host.run(action.argv, timeout=COMMAND_TIMEOUT).check()
        record.disabled.append(action.argv[-1])
        record.save(host, plan)
    else:
        host.run(action.argv, timeout=COMMAND_TIMEOUT).check()


def execute(host: Host, plan: ApplyPlan, on_step: Callable[[ApplyAction], None]) -> None:
    """Run the plan's actions in order (``on_step`` after each, skipped ones too); stop
    at the first that fails (ApplyFailed naming it)."""
    with host.exclusive(LOCK_KEY):
        refuse_busy(host, plan.actions)
        # What each unit held before, read before anything is written.
        earlier = earlier_applies(host, plan.state_path)
        record = _Record({path: read_optional(host, path)
                          for path in (*plan.units, *plan.removed)}, earlier)  # fmt: skip
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
