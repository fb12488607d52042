"""Trees of files for the mover's tests and benchmarks, and what must survive a move.

``make_tree`` writes a seeded mix on a cache branch: small and medium files, a sparse
one, xattrs, nested folders with their own modes and times, a symlink; ``snapshot``
records per relative path what a move must keep (content sha256, mode, owner, mtime
and atime in ns, xattrs, a link's target, whether a file is sparse), so a test compares
the snapshot before on the cache with the one after on the slow branch.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import random
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from tierdeck.core.layout.model import Branch, Layout, default_layout
from tierdeck.core.mover import CachedFile, MoveReason, PlannedMove

OLD_NS = 1_600_000_000_123_456_789  # 2020-09-13: long before any test runs


@dataclass(frozen=True)
class FileState:
    kind: str  # "file" | "link"
    sha256: str
    mode: int
    uid: int
    gid: int
    mtime_ns: int
    atime_ns: int
    xattrs: tuple[tuple[str, bytes], ...]
    sparse: bool


def make_tree(root: Path, seed: int, *, files: int = 12, max_size: int = 256 * 1024) -> None:
    """A seeded mix of ``files`` regular files (and one sparse file, one symlink) under
    nested folders of ``root``, every time set far in the past."""
    rng = random.Random(seed)
    folders = ["", "tv", "tv/show", "tv/show/s01", "music", "docs/deep/er"]
    for index in range(files):
        folder = rng.choice(folders)
        path = root / folder / f"f{index:03d}.bin"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(rng.randbytes(rng.choice([0, 1, 100, 4096, rng.randrange(max_size)])))
        os.chmod(path, rng.choice([0o644, 0o600, 0o640, 0o755]))
        if index % 3 == 0:
            os.setxattr(path, "user.tierdeck.test", f"value {index}".encode())
        os.utime(path, ns=(OLD_NS + index, OLD_NS - index * 1000))
    sparse = root / "images" / "disk.img"
    sparse.parent.mkdir(parents=True, exist_ok=True)
    with open(sparse, "wb") as fh:
        fh.truncate(8 * 2**20)
        fh.seek(3 * 2**20)
        fh.write(rng.randbytes(5000))
    os.utime(sparse, ns=(OLD_NS, OLD_NS))
    os.symlink("../music", root / "tv" / "music-link")
    os.utime(root / "tv" / "music-link", ns=(OLD_NS, OLD_NS), follow_symlinks=False)
    for folder in sorted({p.parent for p in root.rglob("*")}, reverse=True):
        if folder != root:
            os.chmod(folder, 0o750)
            os.utime(folder, ns=(OLD_NS, OLD_NS))


def planned(cache: Path, slow: Path, reason: MoveReason = MoveReason.AGE) -> list[PlannedMove]:
    """A move of every file and symlink of ``cache`` to ``slow``, in a stable order."""
    moves = []
    for path in sorted(cache.rglob("*")):
        st = path.lstat()
        if stat.S_ISDIR(st.st_mode):
            continue
        rel = path.relative_to(cache).as_posix()
        file = CachedFile(str(cache), rel, st.st_size, st.st_atime, st.st_mtime,
                          st.st_nlink, stat.S_ISLNK(st.st_mode))  # fmt: skip
        moves.append(PlannedMove(file, str(slow), reason))
    return moves


def state_of(path: Path) -> FileState:
    st = path.lstat()
    link = stat.S_ISLNK(st.st_mode)
    names = sorted(os.listxattr(path, follow_symlinks=not link))
    xattrs = tuple((n, os.getxattr(path, n, follow_symlinks=not link)) for n in names)
    if link:
        digest = hashlib.sha256(os.fsencode(os.readlink(path))).hexdigest()
    else:
        fd = os.open(path, os.O_RDONLY | os.O_NOATIME)
        try:
            hasher = hashlib.sha256()
            while data := os.read(fd, 2**20):
                hasher.update(data)
        finally:
            os.close(fd)
        digest = hasher.hexdigest()
    # A symlink's atime is not compared: reading the link (readlink) sets it, here too.
    return FileState("link" if link else "file", digest, st.st_mode, st.st_uid, st.st_gid,
                     st.st_mtime_ns, 0 if link else st.st_atime_ns, xattrs,
                     not link and st.st_blocks * 512 < st.st_size)  # fmt: skip


def snapshot(root: Path) -> dict[str, FileState]:
    """Every file and symlink under ``root`` (temp names included: a test must see them)."""
    return {
        p.relative_to(root).as_posix(): state_of(p)
        for p in sorted(root.rglob("*"))
        if not p.is_dir() or p.is_symlink()
    }


def small_disk_layout(cache: Path, slow: tuple[Path, ...], pool: Path, slow_pool: Path) -> Layout:
    """The recipe's layout over small test disks: minfreespace 0 on both pools, since
    mergerfs's default 4 GiB is more than these branches hold (the minfreespace rule,
    which every mover run checks, refuses that)."""
    layout = default_layout((str(cache),), tuple(Branch(str(d)) for d in slow), str(pool),
                            str(slow_pool))  # fmt: skip
    spec = layout.slow_pool
    assert spec is not None
    options = dataclasses.replace(spec.options, minfreespace_bytes=0)
    tiered = layout.tiered_pool
    return dataclasses.replace(
        layout, slow_pool=dataclasses.replace(spec, options=options),
        tiered_pool=dataclasses.replace(tiered, options=dataclasses.replace(
            tiered.options, minfreespace_bytes=0)),
    )  # fmt: skip


def empty(*folders: Path) -> None:
    """Everything inside ``folders`` removed (the folders stay: they are mountpoints)."""
    for folder in folders:
        for entry in folder.iterdir():
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
