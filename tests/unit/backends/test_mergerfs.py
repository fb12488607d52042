"""mergerfs pools from the .mergerfs control file (tests/fixtures/mergerfs)."""

from __future__ import annotations

import contextlib
import json
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tierdeck.backends import mergerfs as mergerfs_backend
from tierdeck.backends.host import RecordedHost
from tierdeck.backends.mergerfs import normalise_key, parse_branches, read_mergerfs
from tierdeck.backends.mounts import parse_mountinfo, read_mounts
from tierdeck.core.errors import ParseError
from tierdeck.core.models import BranchMode, MergerfsBranch, Mount

from tests.mutations import Edit, apply_edits, edits

from ...paths import FIXTURES as ALL_FIXTURES

FIXTURES = ALL_FIXTURES / "mergerfs"
LAB = FIXTURES / "lab-2.33.5"
LAB_BRANCHES = json.loads((LAB / "host.json").read_text())["xattrs"]["/srv/tdlab/mnt/.mergerfs"][
    "user.mergerfs.branches"
]
GIB = 1024**3


def pool_mount(mountpoint: str, source: str = "mergerfs") -> Mount:
    return Mount(
        mount_id=50,
        parent_id=1,
        major_minor="0:50",
        root="/",
        mountpoint=mountpoint,
        fs_type="fuse.mergerfs",
        source=source,
        options=("rw",),
        super_options=("rw",),
    )


def test_lab_pool_2_33_5() -> None:
    host = RecordedHost(LAB)
    mounts, _ = read_mounts(host)
    (pool,), notes = read_mergerfs(host, mounts)
    assert notes == ()
    assert pool.error is None
    assert (pool.mountpoint, pool.fsname, pool.version) == ("/srv/tdlab/mnt", "x", "2.33.5")
    assert (pool.create_policy, pool.minfreespace_bytes) == ("mfs", GIB)
    root_fs = (270553174016, 85139271680)  # a, b, c all live on the VM's root filesystem
    assert pool.branches == (
        MergerfsBranch("/srv/tdlab/a", BranchMode.RW, 2 * GIB, *root_fs),
        MergerfsBranch("/srv/tdlab/b", BranchMode.RO, None, *root_fs),
        MergerfsBranch("/srv/tdlab/c", BranchMode.NC, None, *root_fs),
    )
    assert [pool.branch_minfreespace(b) for b in pool.branches] == [2 * GIB, GIB, GIB]
    assert (pool.size_bytes, pool.avail_bytes) == root_fs
    assert len(pool.options) == 63


def test_2_33_5_underscore_keys_are_normalised() -> None:
    host = RecordedHost(LAB)
    mounts, _ = read_mounts(host)
    (pool,), _ = read_mergerfs(host, mounts)
    assert pool.options["cache.negative-entry"] == "0"
    assert pool.options["async-read"] == "true"
    assert pool.options["statfs-ignore"] == "none"
    assert pool.options["follow-symlinks"] == "never"  # already "-" in 2.33.5
    assert not [k for k in pool.options if "_" in k]


def test_newer_release_dash_keys() -> None:
    host = RecordedHost(FIXTURES / "newer-dash-keys")
    (pool,), notes = read_mergerfs(host, (pool_mount("/mnt/mergerfs"),))
    assert pool.error is None
    assert pool.version is None
    assert (pool.create_policy, pool.minfreespace_bytes) == ("pfrd", 4294967295)
    assert pool.options["cache.negative-entry"] == "0"
    assert pool.options["symlinkify-timeout"] == "3600"
    assert pool.branches == (
        MergerfsBranch("/mnt/a", BranchMode.RW, None),
        MergerfsBranch("/mnt/b", BranchMode.RW, None),
    )
    # The recording has no statvfs for the branches: sizes stay unknown, with a note each.
    assert [n.message.split(":")[0] for n in notes] == ["branch /mnt/a", "branch /mnt/b"]
    assert {n.source for n in notes} == {"mergerfs /mnt/mergerfs"}


def test_old_release_falls_back_to_srcmounts() -> None:
    host = RecordedHost(FIXTURES / "old-srcmounts")
    (pool,), _ = read_mergerfs(host, (pool_mount("/mnt/mergeFS"),))
    assert pool.error is None
    assert (pool.version, pool.create_policy, pool.minfreespace_bytes) == (
        None,
        None,
        4294967295,
    )
    assert pool.branches == (
        MergerfsBranch("/media/Multimedia-3To", BranchMode.RW, None),
        MergerfsBranch("/media/Multimedia-3To-2", BranchMode.RW, None),
    )
    assert pool.options["category.action"] == "all"


def test_permission_denied_keeps_pool_with_error(tmp_path: Path) -> None:
    meta = json.loads((LAB / "host.json").read_text())
    meta["is_root"] = False
    meta["xattr_denied"] = ["/srv/tdlab/mnt/.mergerfs"]
    (tmp_path / "host.json").write_text(json.dumps(meta))
    mounts = tuple(m for m in parse_mountinfo((LAB / "root/proc/self/mountinfo").read_text()))
    (pool,), notes = read_mergerfs(RecordedHost(tmp_path), mounts)
    assert notes == ()
    assert pool.branches == ()
    assert pool.fsname == "x"  # from mountinfo, as the control file is unreadable
    assert pool.error == (
        "cannot read /srv/tdlab/mnt/.mergerfs: permission denied "
        "(run as root to see branches and options)"
    )


def test_missing_control_file_keeps_pool_with_error(tmp_path: Path) -> None:
    (tmp_path / "host.json").write_text("{}")
    (pool,), _ = read_mergerfs(RecordedHost(tmp_path), (pool_mount("/pool", "tank"),))
    assert (pool.mountpoint, pool.fsname, pool.branches) == ("/pool", "tank", ())
    assert pool.error is not None and "no such control file" in pool.error


def test_unparsable_branches_set_error(tmp_path: Path) -> None:
    xattrs = {"user.mergerfs.branches": "/a=XX", "user.mergerfs.version": "2.33.5"}
    (tmp_path / "host.json").write_text(json.dumps({"xattrs": {"/p/.mergerfs": xattrs}}))
    (pool,), _ = read_mergerfs(RecordedHost(tmp_path), (pool_mount("/p"),))
    assert pool.branches == ()
    assert pool.version == "2.33.5"
    assert pool.error is not None and "mode is not RW/RO/NC" in pool.error


def test_only_mergerfs_mounts_become_pools() -> None:
    host = RecordedHost(LAB)
    mounts, _ = read_mounts(host)
    pools, _ = read_mergerfs(host, tuple(m for m in mounts if m.fs_type != "fuse.mergerfs"))
    assert pools == ()


def test_parse_branches() -> None:
    assert parse_branches(LAB_BRANCHES) == (
        MergerfsBranch("/srv/tdlab/a", BranchMode.RW, 2 * GIB),
        MergerfsBranch("/srv/tdlab/b", BranchMode.RO, None),
        MergerfsBranch("/srv/tdlab/c", BranchMode.NC, None),
    )
    # Bytes (newer releases) and a path with "=" in it (mergerfs splits on the last "=").
    assert parse_branches("/mnt/x=y=NC,1073741824:/mnt/z") == (
        MergerfsBranch("/mnt/x=y", BranchMode.NC, GIB),
        MergerfsBranch("/mnt/z", BranchMode.RW, None),
    )
    assert parse_branches("") == ()


@pytest.mark.parametrize(
    "text", ["relative=RW", "/a=", "/a=RW,1G,x", "/a=RW,lots", "/a::/b", "/a=RW,9" + "9" * 400]
)
def test_parse_branches_rejects_garbage(text: str) -> None:
    with pytest.raises(ParseError):
        parse_branches(text)


def test_normalise_key() -> None:
    assert normalise_key("cache.negative_entry") == "cache.negative-entry"
    assert normalise_key("func.getattr") == "func.getattr"


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_random_branches_parse_or_raise_parse_error(text: str) -> None:
    try:
        for branch in parse_branches(text):
            assert branch.path.startswith("/")
    except ParseError:
        pass


@settings(max_examples=300, deadline=None)
@given(edits(max_pos=500, max_insert=3, max_edits=5))
def test_mutated_branches_parse_or_raise_parse_error(changes: list[Edit]) -> None:
    text = apply_edits(LAB_BRANCHES, changes)
    with contextlib.suppress(ParseError):
        parse_branches(text)


class HungPoolHost(RecordedHost):
    """A stopped mergerfs daemon: xattr calls on its control file never return."""

    release = threading.Event()

    def listxattr(self, path: str) -> list[str]:
        self.release.wait(30)
        return super().listxattr(path)


def test_hung_control_file_times_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mergerfs_backend, "CONTROL_TIMEOUT", 0.2)
    host = HungPoolHost(FIXTURES / "newer-dash-keys")
    try:
        (pool,), _ = read_mergerfs(host, (pool_mount("/mnt/mergerfs"),))
        assert pool.branches == ()
        assert pool.error == "/mnt/mergerfs/.mergerfs did not answer within 0.2s (mergerfs hung?)"
    finally:
        HungPoolHost.release.set()
