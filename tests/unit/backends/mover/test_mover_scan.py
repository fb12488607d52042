"""backends/mover/scan.py: the walk of a cache branch and the open files, on real files."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest
from tierdeck.backends.host import LiveHost
from tierdeck.backends.mover.scan import (
    copy_allocation,
    is_noatime,
    open_files,
    open_under,
    scan_branch,
)
from tierdeck.core.models import Mount
from tierdeck.core.mover import TEMP_PREFIX


def write(path: Path, data: bytes = b"x") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_scan_lists_files_and_links_leaves_specials_and_temp_names(tmp_path: Path) -> None:
    write(tmp_path / "tv/show/ep1.mkv", b"12345")
    write(tmp_path / "top.txt")
    os.symlink("tv/show/ep1.mkv", tmp_path / "link")
    os.symlink("/nonexistent", tmp_path / "tv/dangling")
    os.link(tmp_path / "top.txt", tmp_path / "hard")
    os.mkfifo(tmp_path / "tv/pipe")
    write(tmp_path / f"tv/{TEMP_PREFIX}abc", b"partial")
    (tmp_path / "empty").mkdir()
    scan = scan_branch(str(tmp_path))
    by_rel = {f.rel: f for f in scan.files}
    assert sorted(by_rel) == ["hard", "link", "top.txt", "tv/dangling", "tv/show/ep1.mkv"]
    assert by_rel["tv/show/ep1.mkv"].size == 5 and by_rel["tv/show/ep1.mkv"].branch == str(tmp_path)
    assert by_rel["link"].is_symlink and by_rel["tv/dangling"].is_symlink
    assert by_rel["hard"].nlink == 2 and by_rel["top.txt"].nlink == 2
    assert scan.specials == ("tv/pipe",)
    assert scan.errors == () and scan.other_fs == ()


def test_scan_keeps_atime_and_reports_times(tmp_path: Path) -> None:
    f = write(tmp_path / "old.bin", b"data")
    os.utime(f, (1_000_000, 2_000_000))
    (found,) = scan_branch(str(tmp_path)).files
    assert (found.atime, found.mtime) == (1_000_000, 2_000_000)
    assert os.stat(f).st_atime == 1_000_000


def test_scan_does_not_enter_another_filesystem(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    write(tmp_path / "mine")
    inner = tmp_path / "inner"
    inner.mkdir()
    if os.system(f"mount -t tmpfs none {inner} 2>/dev/null") != 0:
        pytest.skip("cannot mount here")
    try:
        write(inner / "theirs")
        scan = scan_branch(str(tmp_path))
        assert [f.rel for f in scan.files] == ["mine"] and scan.other_fs == ("inner",)
    finally:
        os.system(f"umount {inner}")


def test_open_files_sees_a_file_held_open(tmp_path: Path) -> None:
    f = write(tmp_path / "held")
    with f.open("rb"):
        assert str(f) in open_files().paths
    assert str(f) not in open_files().paths


def test_open_under_respells_resolved_paths(tmp_path: Path) -> None:
    got = open_under(["/real/cache/a/b", "/real/cachex/c", "/other"], "/mnt/cache", "/real/cache")
    assert got == frozenset({"/mnt/cache/a/b"})


def test_noatime() -> None:
    def mount(*options: str) -> Mount:
        return Mount(1, 0, "8:1", "/", "/mnt/c", "ext4", "/dev/sda1", options, ())

    assert is_noatime(mount("rw", "noatime"))
    assert not is_noatime(mount("rw", "relatime"))


def test_live_host_wraps_a_missing_branch(tmp_path: Path) -> None:
    from tierdeck.core.errors import HostError

    with pytest.raises(HostError):
        LiveHost().scan_branch(str(tmp_path / "absent"))


def _as_compressed(st: os.stat_result, blocks: int) -> os.stat_result:
    """``st`` as a compressing filesystem (ZFS lz4, btrfs zstd) reports it: fewer
    blocks than bytes for a file without a hole."""
    fields = list(st)
    extra = {name: getattr(st, name) for name in ("st_atime", "st_mtime", "st_ctime")}
    return os.stat_result(fields, {**extra, "st_blocks": blocks, "st_blksize": st.st_blksize})


def test_a_compressed_file_counts_every_byte_its_copy_writes(tmp_path: Path) -> None:
    # The copy to an uncompressed slow disk writes all 1 MiB, whatever the cache's
    # blocks say: counting 8 KiB would let the mover fill a branch past minfreespace.
    path = tmp_path / "log.txt"
    path.write_bytes(b"a" * (1 << 20))
    compressed = _as_compressed(os.stat(path), blocks=16)
    assert compressed.st_blocks == 16
    assert copy_allocation(str(path), compressed) == 1 << 20


def test_a_sparse_file_counts_its_data_not_its_holes(tmp_path: Path) -> None:
    path = tmp_path / "disk.img"
    with open(path, "wb") as fh:
        fh.write(b"x" * 4096)
        fh.truncate(64 << 20)
    st = os.stat(path)
    assert st.st_blocks * 512 < st.st_size  # this filesystem keeps the hole
    assert copy_allocation(str(path), st) < 1 << 20


def test_open_files_sees_a_file_another_process_holds(tmp_path: Path) -> None:
    f = write(tmp_path / "theirs")
    held = subprocess.Popen(["sh", "-c", 'exec 3<"$1"; read line', "sh", str(f)],
                            stdin=subprocess.PIPE)  # fmt: skip
    try:
        # The shell has f open once it waits on its stdin: /proc shows its fd 3 then.
        while not os.path.exists(f"/proc/{held.pid}/fd/3"):
            assert held.poll() is None
            time.sleep(0.001)
        assert str(f) in open_files().paths
    finally:
        held.communicate(b"\n")


def test_open_files_keeps_paths_counts_what_it_cannot_read_and_skips_the_rest(
    tmp_path: Path,
) -> None:
    # A /proc of three processes: one with a file, a socket and a pipe open, one whose
    # fd folder cannot be read (here not a folder), one that exited (no fd folder);
    # and an entry that is not a process.
    proc = tmp_path / "proc"
    fds = proc / "10" / "fd"
    fds.mkdir(parents=True)
    for fd, target in (("0", "/srv/cache/a.mkv"), ("1", "socket:[4242]"), ("2", "pipe:[7]")):
        (fds / fd).symlink_to(target)
    (proc / "11").mkdir()
    (proc / "11" / "fd").write_text("")
    (proc / "12").mkdir()
    (proc / "self").mkdir()
    found = open_files(str(proc))
    assert found.paths == frozenset({"/srv/cache/a.mkv"})
    assert found.unreadable == 1
