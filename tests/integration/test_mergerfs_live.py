"""A real mergerfs pool over temp dirs, read back through LiveHost.

Needs root (FUSE mount with allow_other semantics) and the mergerfs binary; no loop
devices. The pool is always unmounted, even when an assertion fails.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from tierdeck.backends.host import LiveHost
from tierdeck.backends.mergerfs import read_mergerfs
from tierdeck.backends.mounts import read_mounts
from tierdeck.core.models import BranchMode

from tests.waiting import wait_until_sync

pytestmark = pytest.mark.integration  # root and mergerfs

GIB = 1024**3


def installed_version() -> str:
    out = subprocess.run(["mergerfs", "--version"], capture_output=True, text=True).stdout
    match = re.search(r"version:?\s*v?([0-9][0-9.]*)", out)
    assert match, out
    return match.group(1)


def unmount(mnt: Path) -> None:
    if not os.path.ismount(mnt):
        return
    subprocess.run(["fusermount", "-u", str(mnt)], capture_output=True)
    if os.path.ismount(mnt):
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def test_live_pool_reads_back(tmp_path: Path) -> None:
    a, b, c = tmp_path / "disk a", tmp_path / "disk-b", tmp_path / "disk-c"
    mnt = tmp_path / "pool"
    for d in (a, b, c, mnt):
        d.mkdir()
    fsname = f"tdtest{os.getpid()}"
    try:
        subprocess.run(
            [
                "mergerfs",
                "-o",
                f"category.create=mfs,minfreespace=1G,fsname={fsname}",
                f"{a}=RW,2G:{b}=RO:{c}=NC",
                str(mnt),
            ],
            check=True,
            capture_output=True,
            timeout=30,
        )
        wait_until_sync(lambda: os.path.ismount(mnt), "mergerfs to mount", 10)

        host = LiveHost()
        mounts, _ = read_mounts(host)
        mine = [m for m in mounts if m.mountpoint == str(mnt)]
        assert len(mine) == 1 and mine[0].fs_type == "fuse.mergerfs"
        assert mine[0].source == fsname
        pools, notes = read_mergerfs(host, tuple(mine))
        assert notes == ()
        (pool,) = pools
        assert pool.error is None
        assert [(br.path, br.mode, br.minfreespace_bytes) for br in pool.branches] == [
            (str(a), BranchMode.RW, 2 * GIB),
            (str(b), BranchMode.RO, None),
            (str(c), BranchMode.NC, None),
        ]
        assert all(br.size_bytes and br.avail_bytes is not None for br in pool.branches)
        assert (pool.create_policy, pool.minfreespace_bytes) == ("mfs", GIB)
        assert (pool.fsname, pool.mountpoint) == (fsname, str(mnt))
        assert pool.version == installed_version()  # 2.33.5 on the lab VM
        assert pool.options["category.create"] == "mfs"
        assert pool.size_bytes is not None and pool.size_bytes > 0
    finally:
        unmount(mnt)
    assert not os.path.ismount(mnt)
