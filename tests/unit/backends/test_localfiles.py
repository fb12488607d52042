"""backends.localfiles.write_atomically: the old file or the new one, never half."""

from __future__ import annotations

import os
import threading
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


def test_a_file_is_read_whole_after_its_head_is_checked(tmp_path: Path) -> None:
    path = tmp_path / "out.txt"
    path.write_bytes(b"x" * 100_000)
    heads: list[bytes] = []
    assert localfiles.read_user_file(path, 200_000, check_head=heads.append) == b"x" * 100_000
    assert heads == [b"x" * 65_536]


def test_a_refused_head_stops_the_reading(tmp_path: Path) -> None:
    path = tmp_path / "disk.img"
    with open(path, "wb") as fh:
        fh.truncate(1 << 30)

    def refuse(head: bytes) -> None:
        raise ValueError(len(head))

    with pytest.raises(ValueError, match="65536"):
        localfiles.read_user_file(path, 1 << 20, check_head=refuse)


def test_a_pipe_is_read_after_its_head(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    data = bytes(range(256)) * 1000  # more than the head

    def write() -> None:
        with open(fifo, "wb") as fh:
            fh.write(data)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        assert localfiles.read_user_file(fifo, 1 << 20, check_head=lambda head: None) == data
    finally:
        writer.join()


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


def test_a_private_file_is_never_replaced_through_a_readable_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The temp file's mode at creation: anyone who opens it before its fchmod keeps
    # the handle, so a 0600 file's new text must start in a 0600 temp.
    path = tmp_path / "secrets.toml"
    path.write_text("old\n")
    os.chmod(path, 0o600)
    created: list[int] = []
    real_open = os.open

    def spy(file: str, flags: int, mode: int = 0o777, *args: object, **kw: object) -> int:
        if flags & os.O_CREAT:
            created.append(mode)
        return real_open(file, flags, mode, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(localfiles.os, "open", spy)
    write_atomically(path, "new\n")
    assert created == [0o600]
    assert path.stat().st_mode & 0o777 == 0o600 and path.read_text() == "new\n"
