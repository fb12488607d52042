"""The seam calls `layout apply` added: write_atomically, make_dirs, remove_dir and
setxattr on LiveHost (typed errors, nothing half written), refused by a recording."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from tierdeck.backends.host import LiveHost, NotSupported, RecordedHost
from tierdeck.core.errors import PermissionDenied

from tests.support.recording import HostRecording


def test_write_atomically_replaces_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "fstab"
    target.write_text("old\n")
    LiveHost().write_atomically(str(target), "new\n")
    assert target.read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fstab"]


def test_make_dirs_creates_parents_and_accepts_existing(tmp_path: Path) -> None:
    deep = tmp_path / "mnt" / "tiered"
    LiveHost().make_dirs(str(deep))
    LiveHost().make_dirs(str(deep))
    assert deep.is_dir() and oct(deep.stat().st_mode & 0o777) == oct(0o755 & ~_umask())


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_write_atomically_denied_is_typed(tmp_path: Path) -> None:
    tmp_path.chmod(0o500)
    try:
        with pytest.raises(PermissionDenied):
            LiveHost().write_atomically(str(tmp_path / "f"), "x")
        with pytest.raises(PermissionDenied):
            LiveHost().make_dirs(str(tmp_path / "d"))
    finally:
        tmp_path.chmod(0o700)


def test_recording_refuses(tmp_path: Path) -> None:
    host = RecordedHost(HostRecording(tmp_path / "host").write())
    with pytest.raises(NotSupported):
        host.write_atomically("/etc/fstab", "x")
    with pytest.raises(NotSupported):
        host.make_dirs("/mnt/x")


def test_remove_dir_only_when_empty(tmp_path: Path) -> None:
    folder = tmp_path / "mnt"
    (folder / "kept").mkdir(parents=True)
    with pytest.raises(OSError) as info:
        LiveHost().remove_dir(str(folder))
    assert info.value.errno == errno.ENOTEMPTY
    assert LiveHost().remove_dir(str(folder / "kept")) and not (folder / "kept").exists()
    assert LiveHost().remove_dir(str(folder / "kept")) is False


def test_setxattr_writes_a_user_attribute(tmp_path: Path) -> None:
    target = tmp_path / "f"
    target.write_text("")
    try:
        LiveHost().setxattr(str(target), "user.tierdeck.test", "eplus")
    except OSError as exc:
        if exc.errno == errno.ENOTSUP:
            pytest.skip("this filesystem keeps no user xattrs")
        raise
    assert LiveHost().getxattr(str(target), "user.tierdeck.test") == "eplus"


def test_recording_refuses_setxattr_and_remove_dir(tmp_path: Path) -> None:
    host = RecordedHost(HostRecording(tmp_path / "host").write())
    with pytest.raises(NotSupported):
        host.setxattr("/mnt/pool/.mergerfs", "user.mergerfs.minfreespace", "1G")
    with pytest.raises(NotSupported):
        host.remove_dir("/mnt/x")
