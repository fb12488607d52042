"""app/layout_apply on the machine itself (no --root), through a Host that keeps files
in memory and records commands: the commands run in the plan's order, the pool in use
is unmounted only where the plan says, a failing command stops the apply with the
undo record already written."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from tierdeck.app.layout_apply import ApplyFailed, current_state, execute, plan_undo, undo
from tierdeck.backends.host import CommandResult
from tierdeck.core.layout import Branch, default_layout
from tierdeck.core.layout_apply import ActionKind, ApplyAction, plan_apply
from tierdeck.core.layout_outputs import layout_outputs

LAYOUT = default_layout(("/cache",), (Branch("/mnt/disk1"),), "/mnt/tiered")
OUTPUTS = layout_outputs(LAYOUT)
MOUNTINFO = ("24 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
             "40 24 0:50 / /mnt/tiered rw - fuse.mergerfs storage rw\n")  # fmt: skip


class MemoryHost:
    def __init__(self, files: dict[str, str], fail: Sequence[str] = ()) -> None:
        self.files = dict(files)
        self.dirs: set[str] = set()
        self.commands: list[tuple[str, ...]] = []
        self.fail = tuple(fail)

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
        return CommandResult(tuple(argv), code, "", "mount: failed" if code else "")

    @contextlib.contextmanager
    def exclusive(self, key: str) -> Iterator[None]:
        yield


def apply(host: Any) -> list[ApplyAction]:
    state = current_state(host, LAYOUT, OUTPUTS, None)
    plan = plan_apply(LAYOUT, OUTPUTS, (), state, root=None, stamp="S")
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
