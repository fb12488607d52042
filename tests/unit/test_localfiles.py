"""backends.localfiles.write_atomically: the old file or the new one, never half."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tierdeck.backends import localfiles
from tierdeck.backends.localfiles import write_atomically


def test_writes_and_replaces_leaving_nothing_else(tmp_path: Path) -> None:
    path = tmp_path / "job.fio"
    write_atomically(path, "[a]\nrw=read\n")
    write_atomically(path, "[b]\nrw=write\n")
    assert path.read_text() == "[b]\nrw=write\n"
    assert [p.name for p in tmp_path.iterdir()] == ["job.fio"]


def test_a_failed_write_keeps_the_old_file_and_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "lab.json"
    write_atomically(path, "old")

    def broken_replace(src: str, dst: os.PathLike[str]) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(localfiles.os, "replace", broken_replace)
    with pytest.raises(OSError, match="No space"):
        write_atomically(path, "new")
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["lab.json"]


def test_a_replaced_file_keeps_its_mode_owner_and_xattrs(tmp_path: Path) -> None:
    path = tmp_path / "fstab"
    path.write_text("old\n")
    os.chmod(path, 0o644)
    os.setxattr(path, "user.note", b"kept")  # security.selinux goes the same way
    if os.getuid() == 0:
        os.chown(path, 1234, 5678)
    write_atomically(path, "new\n")
    st = path.stat()
    assert path.read_text() == "new\n" and st.st_mode & 0o7777 == 0o644
    assert os.getxattr(path, "user.note") == b"kept"
    if os.getuid() == 0:
        assert (st.st_uid, st.st_gid) == (1234, 5678)


def test_a_new_file_gets_the_umask_mode_not_0600(tmp_path: Path) -> None:
    mask = os.umask(0o022)
    try:
        write_atomically(tmp_path / "layout.toml", "x")
    finally:
        os.umask(mask)
    assert (tmp_path / "layout.toml").stat().st_mode & 0o777 == 0o644
