"""The create-policy simulator against real mergerfs: for every create policy, a pool is
mounted from a generated fstab line (``mount --fstab FILE MOUNTPOINT``), one file is
created through it, and it must land where ``core.mergerfs_policy`` said (pfrd and
rand: on one of the branches it said they pick from), or fail with the errno it said.

Three tmpfs branches with different free and used space stand for the disks; the
branches' statvfs and parent directories are read right before each create and fed to
the simulator, as the compose screen will feed it the inventory's. Every pool and tmpfs
is unmounted, even when an assertion fails.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from tierdeck.core.mergerfs_policy import CreatePolicy, PolicyBranch, simulate
from tierdeck.core.models import BranchMode

from tests.conftest import MountDir
from tests.waiting import wait_until_sync

pytestmark = pytest.mark.integration  # root, FUSE, mergerfs, tmpfs

MIB = 1024**2
# name: (tmpfs size, bytes already used): a has the most free space, b the least, c the
# least used, so mfs, lfs and lus each pick another branch.
BRANCHES = {"a": ("200m", 50 * MIB), "b": ("64m", 20 * MIB), "c": ("100m", 10 * MIB)}


@dataclass(frozen=True)
class Scenario:
    name: str
    modes: dict[str, str]  # branch -> "RW", "NC", "RO", or "RW,1M" (its own minfreespace)
    minfreespace: str
    file: str  # the new file, relative to the pool
    mtimes: dict[str, int]  # branch -> the parent's mtime (newest)
    spot: dict[str, str]  # policy -> where the file lands, or the errno: the scenario's point
    dirs: dict[str, tuple[str, ...]] = field(default_factory=dict)  # directories on a branch
    extra: dict[str, int] = field(default_factory=dict)  # bytes written to a branch first


ROOT_MTIMES = {"a": 1_000_000, "b": 1_000_000, "c": 1_000_000}
ALL_RW = {"a": "RW", "b": "RW", "c": "RW"}
SCENARIOS = (
    # the pool's root: every branch has the parent; newest picks b
    Scenario(
        name="root",
        modes=ALL_RW,
        minfreespace="1M",
        file="f",
        mtimes={"a": 1_000_000, "b": 3_000_000, "c": 2_000_000},
        spot={"mfs": "a", "lfs": "b", "lus": "c", "newest": "b", "ff": "a", "all": "a"},
    ),
    # a filled up to c's free space (90M each), b NC: mfs, lfs and newest ties go to
    # the last tied branch
    Scenario(
        name="ties-free-space",
        modes={"a": "RW", "b": "NC", "c": "RW"},
        minfreespace="1M",
        file="f",
        mtimes=ROOT_MTIMES,
        extra={"a": 60 * MIB},
        spot={"mfs": "c", "epmfs": "c", "lfs": "c", "eplfs": "c", "newest": "c", "lus": "c"},
    ),
    # c filled up to b's used space (20M each): lus's tie goes to the first
    Scenario(
        name="ties-used-space",
        modes=ALL_RW,
        minfreespace="1M",
        file="f",
        mtimes=ROOT_MTIMES,
        extra={"c": 10 * MIB},
        spot={"lus": "b", "eplus": "b", "msplus": "b", "mfs": "a"},
    ),
    # sub only on b and c, and b below minfreespace: ep* take c, mfs a, lfs and lus c
    Scenario(
        name="parent-and-minfreespace",
        modes=ALL_RW,
        minfreespace="60M",
        file="sub/f",
        dirs={"b": ("sub",), "c": ("sub",)},
        mtimes={"b": 2_000_000, "c": 1_000_000},
        spot={"mfs": "a", "epmfs": "c", "epff": "c", "newest": "c", "ff": "a", "mspmfs": "c"},
    ),
    # modes: only b can take files (its own minfreespace of 1M beats the pool's 60M), and
    # sub is not on b: ep* fail with EROFS, msp* climb to the root and take b
    Scenario(
        name="modes-and-own-minfreespace",
        modes={"a": "NC", "b": "RW,1M", "c": "RO"},
        minfreespace="60M",
        file="sub/f",
        dirs={"a": ("sub",), "c": ("sub",)},
        mtimes={"a": 1_000_000, "c": 2_000_000},
        spot={"mfs": "b", "epmfs": "EROFS", "newest": "EROFS", "msplfs": "b", "pfrd": "b"},
    ),
    # no branch has 1G free: ENOSPC (erofs: EROFS)
    Scenario(
        name="full",
        modes=ALL_RW,
        minfreespace="1G",
        file="f",
        mtimes=ROOT_MTIMES,
        spot={"mfs": "ENOSPC", "rand": "ENOSPC", "erofs": "EROFS"},
    ),
    # one NC branch and the others full: EROFS wins over ENOSPC
    Scenario(
        name="full-and-no-create",
        modes={"a": "RW", "b": "NC", "c": "RW"},
        minfreespace="1G",
        file="f",
        mtimes=ROOT_MTIMES,
        spot={"mfs": "EROFS", "pfrd": "EROFS", "ff": "EROFS"},
    ),
)


@pytest.fixture
def branches(tmpfs_dir: MountDir) -> Iterator[dict[str, Path]]:
    with contextlib.ExitStack() as stack:
        paths = {}
        for name, (size, used) in BRANCHES.items():
            path = stack.enter_context(tmpfs_dir(f"branch-{name}", size=size))
            (path / ".filler").write_bytes(b"\1" * used)
            paths[name] = path
        yield paths


def unmount(mnt: Path) -> None:
    subprocess.run(["umount", str(mnt)], capture_output=True, timeout=30)
    if os.path.ismount(mnt):
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True, timeout=30)


@contextlib.contextmanager
def pool(tmp_path: Path, branch_list: str, options: str) -> Iterator[Path]:
    """A mergerfs pool mounted the way an fstab line of tierdeck's would be."""
    mnt = tmp_path / "pool"
    mnt.mkdir(exist_ok=True)
    fstab = tmp_path / "fstab"
    fstab.write_text(f"{branch_list} {mnt} fuse.mergerfs {options} 0 0\n")
    try:
        subprocess.run(
            ["mount", "--fstab", str(fstab), str(mnt)], check=True, capture_output=True, timeout=30
        )
        wait_until_sync(lambda: os.path.ismount(mnt), "mergerfs to mount", 10)
        yield mnt
    finally:
        unmount(mnt)


def facts(path: Path, mode: str, parent: str, mtime: int | None) -> PolicyBranch:
    """What mergerfs reads of a branch when it creates ``parent``/file: statvfs, the parent."""
    st = os.statvfs(path)
    mode_name, _, own = mode.partition(",")
    missing = 0
    where = Path(parent)
    while where != Path(".") and not (path / where).is_dir():
        missing, where = missing + 1, where.parent
    if mtime is not None and missing == 0:
        os.utime(path / parent, (mtime, mtime))
    return PolicyBranch(
        path=str(path),
        mode=BranchMode(mode_name),
        avail_bytes=st.f_bavail * st.f_frsize,
        used_bytes=(st.f_blocks - st.f_bavail) * st.f_frsize,
        readonly_fs=bool(st.f_flag & os.ST_RDONLY),
        minfreespace_bytes=int(own.removesuffix("M")) * MIB if own else None,
        missing_dirs=missing,
        parent_mtime=int((path / parent).stat().st_mtime) if missing == 0 else 0,
    )


def tree(paths: dict[str, Path]) -> dict[str, set[str]]:
    return {
        n: {str(p.relative_to(b)) for p in b.rglob("*") if p.name != ".filler"}
        for n, b in paths.items()
    }


def restore(paths: dict[str, Path], before: dict[str, set[str]]) -> None:
    """Take away what the create added (the file, directories mergerfs cloned)."""
    for name, branch in paths.items():
        for rel in sorted(tree({name: branch})[name] - before[name], key=len, reverse=True):
            target = branch / rel
            target.rmdir() if target.is_dir() else target.unlink()


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_files_land_where_the_simulator_says(
    scenario: Scenario, branches: dict[str, Path], tmp_path: Path
) -> None:
    for name, size in scenario.extra.items():
        with (branches[name] / ".filler").open("ab") as filler:
            filler.write(b"\1" * size)
    for name, rels in scenario.dirs.items():
        for rel in rels:
            (branches[name] / rel).mkdir(parents=True)
    before = tree(branches)
    branch_list = ":".join(f"{branches[n]}={scenario.modes[n]}" for n in BRANCHES)
    parent = os.path.dirname(scenario.file) or "."
    by_path = {str(p): n for n, p in branches.items()}
    seen = []
    for policy in CreatePolicy:
        options = f"category.create={policy},minfreespace={scenario.minfreespace},fsname=tdpolicy{os.getpid()}"
        with pool(tmp_path, branch_list, options) as mnt:
            branch_facts = [
                facts(branches[n], scenario.modes[n], parent, scenario.mtimes.get(n))
                for n in BRANCHES
            ]
            minfree = int(scenario.minfreespace[:-1]) * (
                MIB if scenario.minfreespace.endswith("M") else 1024**3
            )
            said = simulate(policy, branch_facts, minfreespace=minfree)
            try:
                os.close(os.open(mnt / scenario.file, os.O_CREAT | os.O_WRONLY | os.O_EXCL, 0o644))
                failed = None
            except OSError as exc:
                failed = exc.errno
        landed = sorted(n for n in BRANCHES if scenario.file in tree(branches)[n])
        restore(branches, before)
        expected = sorted(by_path[p] for p in said.candidates)
        if said.error is not None:
            assert (failed, landed) == (said.error.number, []), (policy, said)
        elif said.random:
            assert failed is None and len(landed) == 1 and landed[0] in expected, (
                policy,
                said,
                landed,
            )
        else:
            assert (failed, landed) == (None, expected), (policy, said)
        seen.append((str(policy), said.error.value if said.error else ",".join(expected)))
    assert len(seen) == len(CreatePolicy)
    assert {p: a for p, a in seen if p in scenario.spot} == scenario.spot
