"""Applying a layout, as a plan first: the exact actions, in order, before any of them runs.

Pure: the caller passes what the machine looks like now (``CurrentState``: the fstab's
text, which target paths exist, what is mounted at the pools' mountpoints) and gets an
``ApplyPlan``; app/layout/apply.py runs it through the Host. The layout's fstab lines go
in a marked block (``# BEGIN tierdeck layout NAME`` ... ``# END tierdeck layout NAME``)
so a second apply replaces them and no other line of fstab is ever rewritten.

With a root directory (``--root DIR``, for tests and image builders) every path is under
it and no system command runs: the plan still lists them, each with why it is skipped.
Without systemd running (containers, Alpine, image builders: ``/run/systemd/system`` is
absent) the units are still written but systemctl is skipped, saying why; the pools are
mounted from fstab (``mount MOUNTPOINT``) either way.

A pool already running at its mountpoint is changed in place where mergerfs allows it
(core/layout/runtime: options set through its control file's xattrs); only options it
takes at mount time make the plan unmount it, with a warning, or with ``no_remount``
leave it running and say which options wait for the next mount.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum

from ..errors import TierdeckError
from .model import Branch, Layout, PoolSpec
from .outputs import LayoutOutputs, escape_path, health_unit_names
from .rules import RuleResult, RuleSeverity
from .runtime import RuntimeChange, control_path, runtime_diff

__all__ = [
    "FSTAB",
    "STATE_NAME",
    "UNIT_DIR",
    "ActionKind",
    "ApplyAction",
    "ApplyPlan",
    "ApplyRefused",
    "CurrentState",
    "RefusalKind",
    "SYSTEMD_RUNNING",
    "backup_path",
    "block_name",
    "plan_apply",
    "replace_block",
    "rooted",
]

FSTAB = "/etc/fstab"
UNIT_DIR = "/etc/systemd/system"
# Beside fstab, so an apply into --root DIR keeps everything it needs to undo in DIR.
STATE_NAME = "fstab.tierdeck-state.json"
_SKIPPED_ROOT = "skipped: --root applies files only, no command runs on this machine"
SYSTEMD_RUNNING = "/run/systemd/system"  # sd_booted(3)'s test
_SKIPPED_NO_SYSTEMD = (f"skipped: systemd is not running here ({SYSTEMD_RUNNING} is absent); "
                       "the unit files are written for a machine that boots with it")  # fmt: skip


class ActionKind(StrEnum):
    CREATE_MOUNTPOINT = "create-mountpoint"
    BACKUP_FSTAB = "backup-fstab"
    WRITE_FSTAB = "write-fstab"
    WRITE_UNIT = "write-unit"
    DAEMON_RELOAD = "daemon-reload"
    UNMOUNT = "unmount"
    MOUNT = "mount"
    SET_OPTION = "set-option"  # a running pool's option through its xattrs
    ENABLE_TIMER = "enable-timer"
    DISABLE_TIMER = "disable-timer"  # a timer stopped before its file goes (and undo's)
    REMOVE_FILE = "remove-file"  # a unit file the layout no longer has (and undo's)
    # undo's
    RESTORE_FSTAB = "restore-fstab"
    RESTORE_UNIT = "restore-unit"
    REMOVE_DIR = "remove-dir"


@dataclass(frozen=True)
class ApplyAction:
    """One step. ``path`` is the file or folder it writes (under the root), ``argv`` the
    command it runs (empty for file steps); ``skipped`` says why it will not run,
    ``warning`` what the user must know before confirming (a mount taken down).
    ``change``: the option SET_OPTION writes to ``path`` (the pool's control file)."""

    kind: ActionKind
    description: str
    path: str | None = None
    argv: tuple[str, ...] = ()
    skipped: str | None = None
    warning: str | None = None
    change: RuntimeChange | None = None


class RefusalKind(StrEnum):
    RULE_ERROR = "rule-error"  # core/layout/rules says error
    BROKEN_BLOCK = "broken-block"  # a BEGIN without its END (or the reverse)
    NOT_TEXT = "not-text"  # fstab is not UTF-8 text: it could not be kept byte for byte
    BAD_ROOT = "bad-root"


class ApplyRefused(TierdeckError):
    def __init__(self, kind: RefusalKind, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail


@dataclass(frozen=True)
class CurrentState:
    """The machine now, paths as the layout names them (not under the root).
    ``fstab`` None: there is none yet. ``mounted`` maps a mountpoint to what is mounted
    there ("fuse.mergerfs tiered"); ``live`` a running mergerfs pool's options (key ->
    value, core/layout/runtime.COMPARED_KEYS) by mountpoint, when they could be read.
    ``systemd``: systemd runs on the machine (False: skip systemctl)."""

    fstab: str | None
    existing: frozenset[str] = frozenset()
    mounted: Mapping[str, str] = field(default_factory=dict)
    live: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    systemd: bool = True


@dataclass(frozen=True)
class ApplyPlan:
    name: str
    root: str | None
    actions: tuple[ApplyAction, ...]
    fstab_path: str
    fstab_before: str | None  # as planned from; apply stops if it changed since
    fstab_text: str  # fstab after the apply
    backup: str | None  # None: there was no fstab to back up
    units: Mapping[str, str]  # path (under the root) -> text
    state_path: str
    # unit files an earlier apply wrote that this layout no longer has (its health
    # check's, when its [health] table is gone): path (under the root), removed
    removed: tuple[str, ...] = ()


def rooted(root: str | None, path: str) -> str:
    """``path`` inside ``root`` (``/tmp/r`` + ``/etc/fstab``), or itself without one."""
    if root is None:
        return path
    return posixpath.join(root, path.lstrip("/"))


def block_name(layout: Layout) -> str:
    """The block's name: the tiered pool's mountpoint as systemd names it (mnt-tiered),
    one word, the same for every apply of a layout of that pool."""
    return escape_path(layout.tiered_pool.mountpoint)


def backup_path(fstab_path: str, stamp: str) -> str:
    return f"{fstab_path}.tierdeck-backup-{stamp}"


def _markers(name: str) -> tuple[str, str]:
    return f"# BEGIN tierdeck layout {name}", f"# END tierdeck layout {name}"


def replace_block(text: str, name: str, lines: tuple[str, ...]) -> str:
    """``text`` with the block ``name`` holding ``lines``: the old block replaced where it
    was, or a new one appended. Every other line stays as it was, byte for byte (only a
    missing final newline is added before an appended block)."""
    begin, end = _markers(name)
    # fstab(5) lines end at "\n" only; str.splitlines would also split at \f or \x1c.
    old = [f"{line}\n" for line in text.split("\n")]
    old[-1] = old[-1][:-1]
    stripped = [line.rstrip("\r\n") for line in old]
    block = [f"{begin}\n", *(f"{line}\n" for line in lines), f"{end}\n"]
    starts = [i for i, s in enumerate(stripped) if s == begin]
    ends = [i for i, s in enumerate(stripped) if s == end]
    if not starts and not ends:
        prefix = text if not text or text.endswith("\n") else text + "\n"
        return prefix + "".join(block)
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        raise ApplyRefused(RefusalKind.BROKEN_BLOCK,
                           f"fstab: the lines '{begin}' and '{end}' do not enclose one block; "
                           "mend them by hand first")  # fmt: skip
    return "".join(old[: starts[0]] + block + old[ends[0] + 1 :])


def _check(results: tuple[RuleResult, ...]) -> None:
    errors = [r for r in results if r.severity is RuleSeverity.ERROR]
    if errors:
        names = ", ".join(str(r.rule) for r in errors)
        raise ApplyRefused(RefusalKind.RULE_ERROR,
                           f"the layout breaks a rule ({names}); nothing was applied")  # fmt: skip


def _mounted_pool(
    pool: PoolSpec, branches: tuple[Branch, ...], state: CurrentState, no_remount: bool
) -> list[ApplyAction]:
    """Something is mounted where ``pool`` goes: a running mergerfs pool is changed in
    place as far as mergerfs allows; anything else, or an option only a mount takes,
    means a remount (with a warning), unless ``no_remount`` says to leave it running."""
    mp, what = pool.mountpoint, state.mounted[pool.mountpoint]
    live = state.live.get(mp)
    mount = ApplyAction(ActionKind.MOUNT, f"mount {mp} from fstab", argv=("mount", mp))
    if live is None:  # not mergerfs, or its options could not be read
        if no_remount:
            return [replace(mount, skipped=f"skipped: --no-remount; {what} stays mounted "
                            "there, the layout's pool is mounted from fstab next time")]  # fmt: skip
        return [_unmount(mp, what, "it is not a mergerfs pool tierdeck can change in place"), mount]
    diff = runtime_diff(pool, branches, live)
    # Untyped options are never written at runtime (see core/layout/runtime): say so
    # wherever the pool keeps running, so nobody expects allow_other & co. to be live.
    untyped = ", ".join(pool.options.other)
    waits = (f"; its other options ({untyped}) are never set at runtime and take effect "
             "at its next mount") if untyped else ""  # fmt: skip
    if diff.empty:
        return [replace(mount, skipped=f"skipped: {mp} already runs with the layout's branches "
                        f"and options{waits}")]  # fmt: skip
    later = ", ".join(c.key for c in diff.remount)
    if diff.remount and not no_remount:
        return [_unmount(mp, what, f"mergerfs takes {later} only when it mounts"), mount]
    ctrl = control_path(mp)
    actions = [ApplyAction(
        ActionKind.SET_OPTION,
        f"set {c.key}={c.value} on the running pool {mp} (now {c.before}) through {ctrl}; "
        "the fstab block has it too, so it lasts after a remount", path=ctrl, change=c)
        for c in diff.settable]  # fmt: skip
    if diff.remount:
        actions.append(replace(mount, skipped=f"skipped: --no-remount; {later} changes at "
                               f"the next mount of {mp} (from fstab){waits}"))  # fmt: skip
    elif waits:
        actions.append(replace(mount, skipped=f"skipped: {mp} keeps running{waits}"))
    return actions


def _unmount(mp: str, what: str, why: str) -> ApplyAction:
    return ApplyAction(ActionKind.UNMOUNT, f"unmount {mp} ({what} is mounted there; {why})",
                       argv=("umount", mp),
                       warning=f"{mp} is in use now ({what}): programs using it lose it "
                       "until the new pool is mounted")  # fmt: skip


def plan_apply(
    layout: Layout,
    outputs: LayoutOutputs,
    results: tuple[RuleResult, ...],
    state: CurrentState,
    *,
    root: str | None,
    stamp: str,
    no_remount: bool = False,
) -> ApplyPlan:
    """The actions that apply ``layout``, in order. ``stamp`` names the fstab backup
    (the caller's clock); ``no_remount`` leaves every mounted pool mounted. ApplyRefused
    on a rule error or an fstab it cannot edit."""
    _check(results)
    if root is not None and not root.startswith("/"):
        raise ApplyRefused(RefusalKind.BAD_ROOT, f"--root {root}: not an absolute path")
    if state.fstab is not None and "\ufffd" in state.fstab:
        raise ApplyRefused(RefusalKind.NOT_TEXT, f"{FSTAB}: not UTF-8 text; tierdeck will not "
                           "rewrite it")  # fmt: skip
    name = block_name(layout)
    skip = _SKIPPED_ROOT if root is not None else None
    systemctl_skip = skip or (None if state.systemd else _SKIPPED_NO_SYSTEMD)
    fstab_path = rooted(root, FSTAB)
    actions: list[ApplyAction] = []
    mountpoints = [pool.mountpoint for pool, _ in layout.pools()]
    for mp in mountpoints:
        if mp not in state.existing:
            path = rooted(root, mp)
            actions.append(ApplyAction(ActionKind.CREATE_MOUNTPOINT,
                                       f"create the mountpoint {path}", path=path))  # fmt: skip
    backup = None
    if state.fstab is not None:
        backup = backup_path(fstab_path, stamp)
        actions.append(ApplyAction(ActionKind.BACKUP_FSTAB, f"copy {fstab_path} to {backup}",
                                   path=backup))  # fmt: skip
    old = state.fstab or ""
    new = replace_block(old, name, outputs.fstab)
    had_block = _markers(name)[0] in old.split("\n")
    verb = "replace the block" if had_block else "add a block"
    actions.append(ApplyAction(
        ActionKind.WRITE_FSTAB,
        f"{verb} '# BEGIN tierdeck layout {name}' in {fstab_path} ({len(outputs.fstab)} "
        "lines; every other line kept), atomically", path=fstab_path))  # fmt: skip
    units: dict[str, str] = {}
    for unit, text in outputs.units.items():
        path = rooted(root, posixpath.join(UNIT_DIR, unit))
        units[path] = text
        verb = "replace" if posixpath.join(UNIT_DIR, unit) in state.existing else "write"
        actions.append(ApplyAction(ActionKind.WRITE_UNIT, f"{verb} {path}", path=path))
    removed = _dropped_health(layout, outputs, state, root, systemctl_skip, actions)
    actions.append(ApplyAction(ActionKind.DAEMON_RELOAD, "reload systemd's units",
                               argv=("systemctl", "daemon-reload"), skipped=systemctl_skip))  # fmt: skip
    for pool, branches in layout.pools():
        if root is not None or pool.mountpoint not in state.mounted:
            actions.append(ApplyAction(ActionKind.MOUNT, f"mount {pool.mountpoint} from fstab",
                                       argv=("mount", pool.mountpoint), skipped=skip))  # fmt: skip
        else:
            actions.extend(_mounted_pool(pool, branches, state, no_remount))
    actions.append(ApplyAction(ActionKind.ENABLE_TIMER, f"start the mover's timer {outputs.mover_timer}",
                               argv=("systemctl", "enable", "--now", outputs.mover_timer),
                               skipped=systemctl_skip))  # fmt: skip
    if outputs.health_timer is not None:
        actions.append(ApplyAction(
            ActionKind.ENABLE_TIMER, f"start the health check's timer {outputs.health_timer}",
            argv=("systemctl", "enable", "--now", outputs.health_timer),
            skipped=systemctl_skip))  # fmt: skip
    return ApplyPlan(name, root, tuple(actions), fstab_path, state.fstab, new, backup, units,
                     posixpath.join(posixpath.dirname(fstab_path), STATE_NAME), removed)  # fmt: skip


def _dropped_health(
    layout: Layout, outputs: LayoutOutputs, state: CurrentState, root: str | None,
    systemctl_skip: str | None, actions: list[ApplyAction],
) -> tuple[str, ...]:  # fmt: skip
    """A layout without a health timer whose pool has one from an earlier apply: the
    timer stopped and disabled, both files removed (undo puts them back and enables the
    timer again). The layout is what the machine runs after an apply."""
    if outputs.health_timer is not None:
        return ()
    service, timer = (posixpath.join(UNIT_DIR, n) for n in health_unit_names(layout))
    found = [p for p in (service, timer) if p in state.existing]
    if timer in found:
        name = posixpath.basename(timer)
        actions.append(ApplyAction(ActionKind.DISABLE_TIMER, f"stop and disable the timer {name} "
                                   "(the layout has no health check timer now)",
                                   argv=("systemctl", "disable", "--now", name),
                                   skipped=systemctl_skip))  # fmt: skip
    removed = tuple(rooted(root, p) for p in found)
    for path in removed:
        actions.append(ApplyAction(ActionKind.REMOVE_FILE, f"remove {path} (the layout has no "
                                   "health check timer now; undo puts it back)", path=path))  # fmt: skip
    return removed
