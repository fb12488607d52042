"""A busy pool: undo (and an apply that must remount) names the processes holding it
and refuses before any step, instead of changing options, failing at umount with
"target is busy" and naming nobody."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from tierdeck.app.layout.apply import MountBusy
from tierdeck.app.layout.undo import plan_undo, undo
from tierdeck.backends.mount_users import MountUser, UseKind, mount_users

from ...waiting import wait_until_sync
from .test_layout_apply_run import MOUNTINFO, MemoryHost, apply


def test_undo_of_a_busy_pool_names_the_process_and_changes_nothing() -> None:
    host = MemoryHost({"/proc/self/mountinfo": "24 1 8:1 / / rw - ext4 /dev/sda1 rw\n",
                       "/etc/fstab": "a\n"})  # fmt: skip
    apply(host)
    host.users["/mnt/tiered"] = (
        MountUser(1234, "rsync", UseKind.OPEN, "/mnt/tiered/film.mkv"),
        MountUser(77, "bash", UseKind.CWD, "/mnt/tiered/music"),
    )
    files, commands = dict(host.files), len(host.commands)
    plan = plan_undo(host, None)
    assert plan is not None
    with pytest.raises(MountBusy) as err:
        undo(host, plan, lambda action: None)
    assert ("/mnt/tiered is in use: pid 1234 (rsync) has files open under /mnt/tiered, "
            "pid 77 (bash) has its working folder in /mnt/tiered; nothing was changed") in str(
        err.value)  # fmt: skip
    assert host.files == files and len(host.commands) == commands  # no umount tried


def test_an_apply_that_must_unmount_a_busy_pool_refuses_first() -> None:
    host = MemoryHost({"/proc/self/mountinfo": MOUNTINFO, "/etc/fstab": "a\n"})
    host.users["/mnt/tiered"] = (MountUser(9, "smbd", UseKind.OPEN, "/mnt/tiered/x"),)
    with pytest.raises(MountBusy, match=r"pid 9 \(smbd\) has files open under /mnt/tiered"):
        apply(host)
    assert host.files["/etc/fstab"] == "a\n" and host.commands == []


def test_mount_users_finds_a_real_process_by_its_folder_and_open_file(tmp_path: Path) -> None:
    (tmp_path / "held").write_text("x")
    outside = subprocess.Popen(["sleep", "600"], cwd="/")
    inside = subprocess.Popen(["sleep", "600"], cwd=tmp_path)
    opener = subprocess.Popen(["sh", "-c", 'exec 3<"$1"; exec sleep 600', "sh",
                               str(tmp_path / "held")], cwd="/")  # fmt: skip
    try:

        def named() -> bool:
            found = {u.pid: u for u in mount_users(str(tmp_path)).users}
            return found.get(opener.pid) is not None and found[opener.pid].name == "sleep"

        wait_until_sync(named, "the opener to exec sleep")
        found = {u.pid: u for u in mount_users(str(tmp_path)).users}
        assert outside.pid not in found and os.getpid() not in found
        assert (found[inside.pid].name, found[inside.pid].kind) == ("sleep", UseKind.CWD)
        assert found[opener.pid] == MountUser(opener.pid, "sleep", UseKind.OPEN,
                                              str(tmp_path / "held"))  # fmt: skip
    finally:
        for proc in (outside, inside, opener):
            proc.kill()
            proc.wait()
