"""mountinfo parsing and read_mounts, on recorded real mountinfo (tests/fixtures/mounts)."""

from __future__ import annotations

import contextlib
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tierdeck.backends.host import FsUsage, RecordedHost
from tierdeck.backends.mounts import (
    PSEUDO_FS_TYPES,
    mount_for_path,
    parse_mountinfo,
    read_mounts,
    statvfs_with_timeout,
    unescape,
)
from tierdeck.core.errors import ParseError
from tierdeck.core.models import Mount

from tests.mutations import Edit, apply_edits, edits

from ...paths import FIXTURES as ALL_FIXTURES

FIXTURES = ALL_FIXTURES / "mounts"
TEXTS = {p.name: p.read_text() for p in sorted(FIXTURES.glob("*.mountinfo"))}


def test_proc5_example_line() -> None:
    (mount,) = parse_mountinfo(TEXTS["proc5-example.mountinfo"])
    assert mount == Mount(
        mount_id=36,
        parent_id=35,
        major_minor="98:0",
        root="/mnt1",
        mountpoint="/mnt2",
        fs_type="ext3",
        source="/dev/root",
        options=("rw", "noatime"),
        super_options=("rw", "errors=continue"),
    )


def test_lab_escapes_subvolume_and_mergerfs() -> None:
    parsed = parse_mountinfo(TEXTS["devvm-lab.mountinfo"])
    assert len(parsed) == 25
    mounts = {m.mountpoint: m for m in parsed}
    odd = mounts["/srv/tdlab/odd name\ttab\\back"]
    assert (odd.fs_type, odd.source, odd.mount_id, odd.parent_id) == ("tmpfs", "tmpfs", 43, 27)
    assert odd.super_options == ("rw", "size=16384k")  # "shared:1" is not an option
    sub = mounts["/srv/tdlab/btr sub"]
    assert (sub.root, sub.source, sub.major_minor) == ("/sub", "/dev/loop0", "0:40")
    assert sub.super_options[-2:] == ("subvolid=256", "subvol=/sub")
    pool = mounts["/srv/tdlab/mnt"]
    assert (pool.fs_type, pool.source) == ("fuse.mergerfs", "x")
    assert pool.options == ("rw", "nosuid", "nodev", "relatime")
    assert pool.super_options == ("rw", "user_id=0", "group_id=0", "default_permissions")


def test_fedora_optional_fields_and_unescaped_cifs_options() -> None:
    mounts = parse_mountinfo(TEXTS["docker-fedora.mountinfo"])
    assert len(mounts) == 37
    root = next(m for m in mounts if m.mountpoint == "/")
    assert (root.mount_id, root.parent_id, root.source) == (35, 1, "/dev/mapper/ssd-root--f20")
    cifs = mounts[-1]
    assert cifs.fs_type == "cifs"
    assert cifs.source == "//foo/BLA BLA BLA/"
    assert "unc=\\\\foo\\BLA BLA BLA" in cifs.super_options
    assert cifs.super_options[-1] == "actimeo=1"


def test_dysk_btrfs_subvolume_root() -> None:
    mounts = parse_mountinfo(TEXTS["dysk-issue32.mountinfo"])
    root = next(m for m in mounts if m.mountpoint == "/")
    assert (root.root, root.fs_type, root.source) == (
        "/Ubuntu21.10",
        "btrfs",
        "/dev/nvme0n1p6",
    )


def test_unescape() -> None:
    assert unescape(r"/a\040b\011c\012d\134e") == "/a b\tc\nd\\e"
    assert unescape(r"/no\escape") == r"/no\escape"


@pytest.mark.parametrize(
    "line",
    [
        "garbage",
        "1 2 0:1 / /x rw shared:1 ext4 /dev/sda rw",  # no separator
        "1 2 0:1 / /x rw - ext4",  # nothing after the type
        "a 2 0:1 / /x rw - ext4 /dev/sda rw",
        "1 2 01 / /x rw - ext4 /dev/sda rw",
        "1 2 0:1 / relative rw - ext4 /dev/sda rw",
    ],
)
def test_bad_lines_raise_parse_error(line: str) -> None:
    with pytest.raises(ParseError):
        parse_mountinfo(line)


def test_empty_source_is_kept() -> None:
    (mount,) = parse_mountinfo("40 1 0:50 / /mnt/x rw - tmpfs  rw,size=4k")
    assert (mount.source, mount.super_options) == ("", ("rw", "size=4k"))


def test_read_mounts_drops_pseudo_filesystems_and_fills_capacity() -> None:
    mounts, notes = read_mounts(RecordedHost(FIXTURES / "devvm-lab"))
    assert notes == ()
    assert not {m.fs_type for m in mounts} & PSEUDO_FS_TYPES
    assert [m.mountpoint for m in mounts] == [
        "/dev/shm",
        "/",
        "/dev/shm",
        "/sys/fs/cgroup",
        "/tmp/tdfio/tmpfs",
        "/srv/tdlab/btr",
        "/srv/tdlab/btr sub",
        "/srv/tdlab/single",
        "/srv/tdlab/odd name\ttab\\back",
        "/srv/tdlab/mnt",
    ]
    btr = mounts[5]
    # os.statvfs of /srv/tdlab/btr at capture time; used = size - free, like df.
    assert (btr.size_bytes, btr.used_bytes, btr.avail_bytes) == (
        536870912,
        536870912 - 488947712,
        431816704,
    )
    pool = mounts[-1]
    assert (pool.size_bytes, pool.avail_bytes) == (270553174016, 85139271680)


def test_read_mounts_statvfs_failure_becomes_note(tmp_path: Path) -> None:
    (tmp_path / "root/proc/self").mkdir(parents=True)
    (tmp_path / "root/proc/self/mountinfo").write_text(TEXTS["proc5-example.mountinfo"])
    (tmp_path / "host.json").write_text('{"statvfs": {}}')
    (mount,), (note,) = read_mounts(RecordedHost(tmp_path))
    assert (mount.size_bytes, mount.used_bytes, mount.avail_bytes) == (None, None, None)
    assert note.source == "mount /mnt2"
    assert "statvfs /mnt2" in note.message


def test_read_mounts_without_mountinfo(tmp_path: Path) -> None:
    (tmp_path / "host.json").write_text("{}")
    mounts, (note,) = read_mounts(RecordedHost(tmp_path))
    assert mounts == ()
    assert note.source == "mounts"


def test_read_mounts_skips_bad_line_with_note(tmp_path: Path) -> None:
    (tmp_path / "root/proc/self").mkdir(parents=True)
    text = "garbage line\n" + TEXTS["proc5-example.mountinfo"]
    (tmp_path / "root/proc/self/mountinfo").write_text(text)
    (tmp_path / "host.json").write_text('{"statvfs": {"/mnt2": {"size": 10, "avail": 4}}}')
    mounts, notes = read_mounts(RecordedHost(tmp_path))
    assert [m.mountpoint for m in mounts] == ["/mnt2"]
    assert mounts[0].used_bytes == 6
    assert [n.source for n in notes] == ["mounts"]


class HangingHost(RecordedHost):
    """statvfs of the cifs share never answers, like a dead server on a hard mount."""

    release = threading.Event()

    def statvfs(self, path: str) -> FsUsage:
        if path == "/DATA/foo_bla_bla":
            self.release.wait(30)
        return super().statvfs(path)


def test_hung_network_mount_times_out_with_note(tmp_path: Path) -> None:
    (tmp_path / "root/proc/self").mkdir(parents=True)
    (tmp_path / "root/proc/self/mountinfo").write_text(TEXTS["docker-fedora.mountinfo"])
    (tmp_path / "host.json").write_text('{"statvfs": {"/": {"size": 100, "avail": 50}}}')
    host = HangingHost(tmp_path)
    try:
        start = time.monotonic()
        mounts, notes = read_mounts(host, network_timeout=0.2)
        assert time.monotonic() - start < 3
        cifs = next(m for m in mounts if m.fs_type == "cifs")
        assert cifs.size_bytes is None
        hung = [n for n in notes if n.source == "mount /DATA/foo_bla_bla"]
        assert len(hung) == 1 and "no answer within 0.2s" in hung[0].message
        # Asking again does not start a second thread behind the stuck one.
        with pytest.raises(TimeoutError, match="still not returned"):
            statvfs_with_timeout(host, "/DATA/foo_bla_bla", 0.2)
    finally:
        HangingHost.release.set()


def test_mount_for_path_prefers_longest_and_latest() -> None:
    mounts = parse_mountinfo(TEXTS["devvm-lab.mountinfo"])

    def holder(path: str) -> str | None:
        found = mount_for_path(mounts, path)
        return found.mountpoint if found else None

    assert holder("/srv/tdlab/a") == "/"
    assert holder("/srv/tdlab/btr/x") == "/srv/tdlab/btr"
    assert holder("/srv/tdlab/btrx") == "/"
    shm = mount_for_path(mounts, "/dev/shm/f")
    assert shm is not None and shm.mount_id == 30  # the later of two stacked mounts
    assert mount_for_path((), "/x") is None


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_random_text_parses_or_raises_parse_error(text: str) -> None:
    with contextlib.suppress(ParseError):
        parse_mountinfo(text)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(sorted(TEXTS)),
    edits(max_pos=10**6, max_insert=4, max_edits=6),
)
def test_mutated_fixtures_parse_or_raise_parse_error(name: str, changes: list[Edit]) -> None:
    text = apply_edits(TEXTS[name], changes)
    try:
        for mount in parse_mountinfo(text):
            assert mount.mountpoint.startswith("/")
    except ParseError:
        pass
