"""Throwaway roots: who owns one, when it is stale, and what teardown leaves.

Stale detection runs on this machine's real /proc (LiveHost) with roots in a tmp
folder and no mounts: a dead owner's root goes, a live owner's stays, and an owner
file whose pid now belongs to another process (a reused pid: same pid, other start
time) counts as dead. No root needed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from tierdeck.app.ladder.throwaway_mounts import (
    OWNER_FILE,
    Owner,
    Throwaway,
    clean_stale,
    is_stale,
    parse_owner,
    parse_stat_start,
    process_start,
)
from tierdeck.backends.host import LiveHost

# A real /proc/PID/stat line (this machine, a process whose name holds ") (").
STAT = (
    "7466 (py) (thon) S 7000 7466 7000 34816 7466 4194304 1890 0 0 0 12 3 0 0 20 0 1 0 "
    "123456 31260672 4321 18446744073709551615 1 1 0 0 0 0 0 16781312 2 0 0 0 17 1 0 0"
)


def test_stat_start_is_field_22_counted_after_the_name() -> None:
    assert parse_stat_start(STAT) == 123456
    assert parse_stat_start("garbage") is None
    assert parse_stat_start("1 (x) S 1 2") is None


def test_owner_round_trip_and_garbage() -> None:
    owner = Owner(42, 99)
    assert parse_owner(owner.text()) == owner
    for text in ("", "{", '{"pid": "1", "start_ticks": 2}', '{"pid": 0, "start_ticks": 2}', "[]"):
        assert parse_owner(text) is None


def _root(base: Path, name: str, owner: Owner | None) -> Path:
    root = base / name
    (root / "tmpfs").mkdir(parents=True)
    if owner is not None:
        (root / OWNER_FILE).write_text(owner.text())
    return root


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_dead_owner_is_cleaned_live_owner_kept(tmp_path: Path) -> None:
    host = LiveHost()
    me = os.getpid()
    start = process_start(host, me)
    assert start is not None
    dead = _dead_pid()
    live_root = _root(tmp_path, f"{me}-aaaa", Owner(me, start))
    dead_root = _root(tmp_path, f"{dead}-bbbb", Owner(dead, 1))
    cleaned = clean_stale(host, str(tmp_path))
    assert [c.path for c in cleaned] == [str(dead_root)]
    assert cleaned[0].problems == ()
    assert not dead_root.exists()
    assert live_root.exists()


def test_reused_pid_is_not_the_owner(tmp_path: Path) -> None:
    host = LiveHost()
    me = os.getpid()
    start = process_start(host, me)
    assert start is not None
    reused = _root(tmp_path, f"{me}-cccc", Owner(me, start - 1))
    assert is_stale(host, str(reused))
    assert [c.path for c in clean_stale(host, str(tmp_path))] == [str(reused)]


def test_without_owner_file_the_pid_in_the_name_decides(tmp_path: Path) -> None:
    host = LiveHost()
    being_made = _root(tmp_path, f"{os.getpid()}-dddd", None)
    crashed = _root(tmp_path, f"{_dead_pid()}-eeee", None)
    junk = _root(tmp_path, "junk", None)
    assert not is_stale(host, str(being_made))
    assert is_stale(host, str(crashed))
    assert is_stale(host, str(junk))


def test_missing_base_is_nothing_to_clean(tmp_path: Path) -> None:
    assert clean_stale(LiveHost(), str(tmp_path / "absent")) == []


def test_leaving_removes_the_root_also_on_error(tmp_path: Path) -> None:
    host = LiveHost()
    with pytest.raises(RuntimeError), Throwaway(host, str(tmp_path)) as throwaway:
        root = Path(throwaway.root)
        assert (root / OWNER_FILE).exists()
        assert not is_stale(host, throwaway.root)
        raise RuntimeError("cancelled")
    assert not root.exists()


@pytest.mark.parametrize("inside", ["pool", "pool/deeper", "."])
def test_a_pool_over_its_own_branch_is_refused_before_mounting(tmp_path: Path, inside: str) -> None:
    # mergerfs mounted on (or inside, or over) its own branch answers its own requests:
    # it deadlocks and every statfs of the mount hangs (seen here while building it).
    from tierdeck.app.ladder.throwaway_mounts import ThrowawayError
    from tierdeck.core.ladder.options import MountOptions

    with Throwaway(LiveHost(), str(tmp_path)) as throwaway:
        branch = os.path.normpath(os.path.join(throwaway.root, inside))
        with pytest.raises(ThrowawayError, match="its own branch"):
            throwaway.mount_mergerfs("pool", f"/elsewhere=RW:{branch}=RW", MountOptions(()))
        assert not (Path(throwaway.root) / "pool").exists()


class _RacedHost(LiveHost):
    """A host where another cleaner of the same stale root gets to every unmount first,
    and removes the root before this one lists it."""

    def run(self, argv, **kwargs):  # type: ignore[no-untyped-def]
        if argv[0] == "umount" and "-l" not in argv:
            super().run(argv, **kwargs)  # the other cleaner's umount: this one then fails
        return super().run(argv, **kwargs)

    def listdir(self, path: str) -> list[str]:
        if path.endswith(self.vanishing):
            subprocess.run(["rm", "-rf", path], check=True)
        return super().listdir(path)

    vanishing = "/never"


def test_two_cleaners_of_one_stale_root_both_succeed(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    root = _root(tmp_path, f"{_dead_pid()}-race", Owner(_dead_pid(), 1))
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tierdeck-test", str(root / "tmpfs")],
                   check=True, capture_output=True)  # fmt: skip
    host = _RacedHost()
    host.vanishing = root.name
    try:
        cleaned = clean_stale(host, str(tmp_path))
    finally:
        subprocess.run(["umount", "-l", str(root / "tmpfs")], capture_output=True)
    assert [(c.path, c.problems) for c in cleaned] == [(str(root), ())]
    assert not root.exists()


def test_a_late_write_under_a_lazily_detached_mount_goes_with_its_root(tmp_path: Path) -> None:
    # A tmpfs that could only be detached lazily: the dying fio's last write landed in
    # the plain folder underneath (seen after a kill -9 mid-ladder).
    root = _root(tmp_path, f"{_dead_pid()}-late", Owner(_dead_pid(), 1))
    (root / "tmpfs" / ".tierdeck-bench.ladder-seqwrite.0.0").write_bytes(b"x" * 4096)
    cleaned = clean_stale(LiveHost(), str(tmp_path))
    assert [(c.path, c.problems) for c in cleaned] == [(str(root), ())]
    assert not root.exists()


class _MountingHost(LiveHost):
    """A host where a tmpfs holding a file is mounted inside a leftover folder after the
    teardown's unmounts (a mount the removal must never enter)."""

    def remove_dir(self, path: str) -> bool:
        if path.endswith("/tmpfs") and not os.path.ismount(path + "/late"):
            late = Path(path) / "late"
            late.mkdir()
            subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tierdeck-test", str(late)],
                           check=True, capture_output=True)  # fmt: skip
            (late / "keep").write_text("not the cleaner's")
        return super().remove_dir(path)


@pytest.mark.parametrize("mount_check", [True, False])
def test_a_leftover_folder_is_removed_without_entering_a_mount(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mount_check: bool
) -> None:
    """Two guards: a mount seen under the folder stops the removal, and rm's
    --one-file-system keeps to the folder's file system when the mount came later."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    from tierdeck.app.ladder import throwaway_mounts

    root = _root(tmp_path, f"{_dead_pid()}-mount", Owner(_dead_pid(), 1))
    (root / "tmpfs" / "late-write").write_text("left by a dying fio")
    if not mount_check:
        monkeypatch.setattr(throwaway_mounts, "_mounts_under", lambda host, top: [])
    try:
        cleaned = clean_stale(_MountingHost(), str(tmp_path))
        assert (root / "tmpfs" / "late" / "keep").read_text() == "not the cleaner's"
        assert [c.path for c in cleaned] == [str(root)] and cleaned[0].problems
    finally:
        subprocess.run(["umount", "-l", str(root / "tmpfs" / "late")], capture_output=True)
