"""app/layout/apply on the machine itself (no --root), through a Host that keeps files
in memory, records commands and keeps mountinfo as mount/umount change it: the commands
run in the plan's order, the pool in use is unmounted only where the plan says, a
failing command stops the apply with the undo record already written; undo unmounts
what apply mounted and nothing else; without systemd no systemctl runs; a running pool's
options are set through its xattrs and undo sets them back."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from tierdeck.app.layout.apply import ApplyFailed, current_state, execute
from tierdeck.app.layout.undo import plan_undo, undo
from tierdeck.backends.host import CommandResult
from tierdeck.backends.mount_users import MountUser, MountUsers
from tierdeck.core.layout.apply_plan import ActionKind, ApplyAction, plan_apply
from tierdeck.core.layout.model import Branch, default_layout
from tierdeck.core.layout.outputs import layout_outputs

LAYOUT = default_layout(("/cache",), (Branch("/mnt/disk1"),), "/mnt/tiered")
OUTPUTS = layout_outputs(LAYOUT)
MOUNTINFO = ("24 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
             "40 24 0:50 / /mnt/tiered rw - fuse.mergerfs storage rw\n")  # fmt: skip


class MemoryHost:
    def __init__(self, files: dict[str, str], fail: Sequence[str] = (),
                 xattrs: dict[str, dict[str, str]] | None = None) -> None:  # fmt: skip
        self.files = {"/run/systemd/system": "", **files}
        self.dirs: set[str] = set()
        self.commands: list[tuple[str, ...]] = []
        self.fail = tuple(fail)
        self.xattrs = xattrs or {}  # control file -> name -> value
        self.users: dict[str, tuple[MountUser, ...]] = {}  # mountpoint -> who holds it

    def mount_users(self, mountpoint: str) -> MountUsers:
        return MountUsers(self.users.get(mountpoint, ()), 0)

    def getxattr(self, path: str, name: str) -> str:
        if path not in self.xattrs:
            raise FileNotFoundError(path)
        return self.xattrs[path][name]

    def setxattr(self, path: str, name: str, value: str) -> None:
        self.xattrs[path][name] = value

    def remove_dir(self, path: str) -> bool:
        if path not in self.dirs:
            return False
        self.dirs.remove(path)
        return True

    def read_text(self, path: str) -> str:
        if path not in self.files:
            raise FileNotFoundError(path)
        return self.files[path]

    def exists(self, path: str) -> bool:
        return path in self.files or path in self.dirs

    def write_atomically(self, path: str, text: str) -> None:
        self.files[path] = text

    def make_dirs(self, path: str) -> None:
        self.dirs.add(path)

    def remove(self, path: str) -> bool:
        return self.files.pop(path, None) is not None

    def run(self, argv: Sequence[str], timeout: float = 0) -> CommandResult:
        self.commands.append(tuple(argv))
        code = 32 if argv[0] in self.fail else 0
        info = self.files.get("/proc/self/mountinfo", "")
        if not code and argv[0] == "mount":
            info += f"50 24 0:60 / {argv[1]} rw - fuse.mergerfs pool rw\n"
        elif not code and argv[0] == "umount":  # the last mount there goes
            lines = info.splitlines(keepends=True)
            last = max(i for i, line in enumerate(lines) if f" {argv[1]} " in line)
            info = "".join(lines[:last] + lines[last + 1 :])
        self.files["/proc/self/mountinfo"] = info
        return CommandResult(tuple(argv), code, "", "mount: failed" if code else "")

    @contextlib.contextmanager
    def exclusive(self, key: str) -> Iterator[None]:
        yield


def apply(host: Any, no_remount: bool = False) -> list[ApplyAction]:
    state = current_state(host, LAYOUT, OUTPUTS, None)
    plan = plan_apply(LAYOUT, OUTPUTS, (), state, root=None, stamp="S", no_remount=no_remount)
    done: list[ApplyAction] = []
    execute(host, plan, done.append)
    return done


def test_live_apply_runs_commands_in_order_and_unmounts_only_as_planned() -> None:
    host = MemoryHost({"/proc/self/mountinfo": MOUNTINFO, "/etc/fstab": "UUID=1 / ext4 0 1\n"})
    done = apply(host)
    assert host.commands == [("systemctl", "daemon-reload"), ("umount", "/mnt/tiered"),
                             ("mount", "/mnt/tiered"),
                             ("systemctl", "enable", "--now", OUTPUTS.mover_timer)]  # fmt: skip
    unmount = next(a for a in done if a.kind is ActionKind.UNMOUNT)
    assert unmount.warning and "fuse.mergerfs storage" in unmount.description
    assert host.files["/etc/fstab.tierdeck-backup-S"] == "UUID=1 / ext4 0 1\n"
    plan = plan_undo(host, None)
    assert plan is not None
    undo(host, plan, lambda a: None)
    assert host.files["/etc/fstab"] == "UUID=1 / ext4 0 1\n"
    assert host.commands[-1] == ("systemctl", "daemon-reload")
    assert not any(p.startswith("/etc/systemd/system/") for p in host.files)


def test_failing_command_stops_with_the_undo_record_written() -> None:
    host = MemoryHost({"/proc/self/mountinfo": MOUNTINFO, "/etc/fstab": "a\n"}, fail=["mount"])
    with pytest.raises(ApplyFailed, match="mount /mnt/tiered from fstab: mount /mnt/tiered "
                       "exited 32: mount: failed"):  # fmt: skip
        apply(host)
    assert ("systemctl", "enable", "--now", OUTPUTS.mover_timer) not in host.commands
    assert "/etc/fstab.tierdeck-state.json" in host.files
    plan = plan_undo(host, None)
    assert plan is not None and plan.backup == "/etc/fstab.tierdeck-backup-S"


def test_fstab_changed_after_planning_is_not_overwritten() -> None:
    host = MemoryHost({"/proc/self/mountinfo": "", "/etc/fstab": "a\n"})
    plan = plan_apply(LAYOUT, OUTPUTS, (), current_state(host, LAYOUT, OUTPUTS, None),
                      root=None, stamp="S")  # fmt: skip
    host.files["/etc/fstab"] = "a\nb\n"
    with pytest.raises(ApplyFailed, match="fstab changed since the plan"):
        execute(host, plan, lambda a: None)
    assert host.files["/etc/fstab"] == "a\nb\n"


def undo_all(host: MemoryHost) -> list[ApplyAction]:
    plan = plan_undo(host, None)
    assert plan is not None
    done: list[ApplyAction] = []
    undo(host, plan, done.append)
    return done


def test_undo_unmounts_what_apply_mounted_and_removes_its_empty_mountpoints() -> None:
    host = MemoryHost({"/proc/self/mountinfo": "24 1 8:1 / / rw - ext4 /dev/sda1 rw\n",
                       "/etc/fstab": "a\n"})  # fmt: skip
    apply(host)
    assert ("mount", "/mnt/tiered") in host.commands and "/mnt/tiered" in host.dirs
    before = len(host.commands)
    done = undo_all(host)
    # the timer apply enabled is stopped and disabled before its file goes
    assert host.commands[before:] == [("umount", "/mnt/tiered"),
                                      ("systemctl", "disable", "--now", OUTPUTS.mover_timer),
                                      ("systemctl", "daemon-reload")]  # fmt: skip
    assert "/mnt/tiered" not in host.dirs and host.files["/etc/fstab"] == "a\n"
    assert [a.kind for a in done][-1] is ActionKind.REMOVE_DIR


def test_undo_leaves_a_pool_apply_only_remounted() -> None:
    host = MemoryHost({"/proc/self/mountinfo": MOUNTINFO, "/etc/fstab": "a\n"})
    apply(host)  # unmounts the user's pool and mounts the layout's in its place
    before = len(host.commands)
    undo_all(host)
    assert host.commands[before:] == [("systemctl", "disable", "--now", OUTPUTS.mover_timer),
                                      ("systemctl", "daemon-reload")]  # fmt: skip


def test_without_systemd_no_systemctl_runs_and_units_are_still_written() -> None:
    host = MemoryHost({"/proc/self/mountinfo": "", "/etc/fstab": "a\n"})
    del host.files["/run/systemd/system"]
    done = apply(host)
    assert host.commands == [("mount", "/mnt/tiered")]
    skipped = [a for a in done if a.kind in (ActionKind.DAEMON_RELOAD, ActionKind.ENABLE_TIMER)]
    assert len(skipped) == 2 and all("systemd is not running" in (a.skipped or "") for a in skipped)
    assert "/etc/systemd/system/mnt-tiered.mount" in host.files
    undo_all(host)
    assert host.commands[1:] == [("umount", "/mnt/tiered")]


LIVE = {"branches": "/cache=RW:/mnt/disk1=RW", "category.create": "ff", "minfreespace": "4294967296",
        "moveonenospc": "mfs", "cache.files": "off", "dropcacheonclose": "true",
        "fsname": "tiered"}  # fmt: skip


def test_running_pool_changed_through_its_xattrs_and_undo_sets_them_back() -> None:
    live = {**LIVE, "category.create": "mfs", "minfreespace": "1073741824"}
    ctrl = "/mnt/tiered/.mergerfs"
    host = MemoryHost({"/proc/self/mountinfo": MOUNTINFO, "/etc/fstab": "a\n"},
                      xattrs={ctrl: {f"user.mergerfs.{k}": v for k, v in live.items()}})  # fmt: skip
    done = apply(host)
    sets = [a for a in done if a.kind is ActionKind.SET_OPTION]
    assert [(a.change.key, a.change.value) for a in sets if a.change] == [
        ("category.create", "ff"), ("minfreespace", "4G")]  # fmt: skip
    assert ("umount", "/mnt/tiered") not in host.commands
    assert ("mount", "/mnt/tiered") not in host.commands
    assert host.xattrs[ctrl]["user.mergerfs.category.create"] == "ff"
    assert host.xattrs[ctrl]["user.mergerfs.minfreespace"] == "4G"
    undo_all(host)
    assert host.xattrs[ctrl]["user.mergerfs.category.create"] == "mfs"
    assert host.xattrs[ctrl]["user.mergerfs.minfreespace"] == "1073741824"
    assert ("umount", "/mnt/tiered") not in host.commands


def test_an_option_only_a_mount_takes_remounts_or_waits_with_no_remount() -> None:
    live = {**LIVE, "fsname": "storage", "category.create": "mfs"}
    ctrl = "/mnt/tiered/.mergerfs"

    def host() -> MemoryHost:
        return MemoryHost({"/proc/self/mountinfo": MOUNTINFO, "/etc/fstab": "a\n"},
                          xattrs={ctrl: {f"user.mergerfs.{k}": v for k, v in live.items()}})  # fmt: skip

    remounting = host()
    done = apply(remounting)
    unmount = next(a for a in done if a.kind is ActionKind.UNMOUNT)
    assert unmount.warning and "fsname" in unmount.description
    assert remounting.xattrs[ctrl]["user.mergerfs.category.create"] == "mfs"  # the mount sets it
    waiting = host()
    done = apply(waiting, no_remount=True)
    assert not [c for c in waiting.commands if c[0] in ("umount", "mount")]
    assert waiting.xattrs[ctrl]["user.mergerfs.category.create"] == "ff"
    mount = next(a for a in done if a.kind is ActionKind.MOUNT)
    assert mount.skipped and "--no-remount" in mount.skipped and "fsname" in mount.skipped
