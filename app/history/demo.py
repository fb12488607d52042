"""The history behind ``tierdeck --demo``: seed 000's own results, imported.

The seed's fio reports (``demo_runs/``, verbatim cuts; ``demo_runs/SOURCES.md``) are
imported, each named and placed on the target the seed says it measured, with a year of
its disks' health readings (demo_readings.py), into a history
file of the demo's own under the user's cache folder, never the user's history. The
file is built when missing, in a folder named after the shipped snippets, so a tierdeck
whose demo changed builds anew. ``use_demo_history`` points this process's history
(``TIERDECK_DATA_DIR``) at it: the TUI and every ``tierdeck --demo history ...``
command then read the demo's runs.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from ...backends.fio.imports import imported_run, jobs_of_command
from ...backends.localfiles import cache_folder
from ...core.bench_models import BenchTarget, RunResult, TargetKind
from ...core.errors import TierdeckError
from .demo_readings import READINGS_FILE, demo_readings
from .store import DB_NAME, ENV_DATA_DIR, HistoryStore

RUNS_DIR = Path(__file__).resolve().parent / "demo_runs"
COMMAND_FILE = "command.txt"  # the seed's fio command, for snippets without their own
# Snippets without a date of their own (a group status line alone): the seed's night.
SEED_NIGHT = 1_667_527_200.0  # 2022-11-04 02:00 UTC
TAGS = ("nas-notes-2022", "demo")
# What tierdeck reads from the same snippets; bumped when that changes (2: the jobs of
# fio's "rw=..., bs=..." line completed by the seed's command, direct=1 included), so
# a demo built by an older tierdeck is built anew.
READING = 2

_ZFS_DISKS = ("sdb", "nvme0n1")
_SLOW_DISKS = ("sdc", "sde")  # /mnt/disk2 and /mnt/disk1 under /mnt/slow-storage


def _mergerfs(path: str, label: str, disks: tuple[str, ...]) -> BenchTarget:
    return BenchTarget(path, TargetKind.MERGERFS, label, disks, "fuse.mergerfs", path)


@dataclass(frozen=True)
class DemoRun:
    file: str  # in demo_runs/
    name: str
    target: BenchTarget
    zfs_version: str | None = None  # the seed says which ZFS each ZFS run had


DEMO_RUNS = (
    DemoRun(
        "raw-zfs-pool.txt",
        "raw ZFS pool /cache (ZFS 0.8.4)",
        BenchTarget("/cache", TargetKind.ZFS, "zfs cache", _ZFS_DISKS, "zfs", "/cache"),
        "0.8.4",
    ),
    DemoRun(
        "mergerfs-zfs-0.8.txt",
        "mergerfs /mnt/cached over the ZFS pool (ZFS 0.8.4)",
        _mergerfs("/mnt/cached", "mergerfs /mnt/cached (over zfs cache)", _ZFS_DISKS),
        "0.8.4",
    ),
    DemoRun(
        "mergerfs-zfs-2.1.txt",
        "mergerfs /mnt/cached over the ZFS pool (ZFS 2.1.4)",
        _mergerfs("/mnt/cached", "mergerfs /mnt/cached (over zfs cache)", _ZFS_DISKS),
        "2.1.4",
    ),
    DemoRun(
        "slow-pool.txt",
        "slow pool: mergerfs over the 18 TB and 8 TB disks",
        _mergerfs("/mnt/slow-storage", "mergerfs /mnt/slow-storage", _SLOW_DISKS),
    ),
    DemoRun(
        "btrfs.txt",
        "btrfs /cache on the NVMe",
        BenchTarget("/cache", TargetKind.MOUNT, "btrfs /cache", ("nvme0n1",), "btrfs", "/cache"),
    ),
    DemoRun(
        "btrfs-mergerfs.txt",
        "mergerfs /mnt/cached over btrfs",
        _mergerfs("/mnt/cached", "mergerfs /mnt/cached (over btrfs)", ("nvme0n1",)),
    ),
    DemoRun(
        "btrfs-raid1.txt",
        "btrfs raid1 /cache (NVMe + SSD)",
        BenchTarget(
            "/cache", TargetKind.MOUNT, "btrfs raid1 /cache", _ZFS_DISKS, "btrfs", "/cache"
        ),
    ),
    DemoRun(
        "btrfs-raid1-mergerfs.txt",
        "mergerfs /mnt/cached over btrfs raid1",
        _mergerfs("/mnt/cached", "mergerfs /mnt/cached (over btrfs raid1)", _ZFS_DISKS),
    ),
    DemoRun(
        "autotier-zfs.txt",
        "autotier over the ZFS pool and the slow pool",
        BenchTarget(
            "/mnt/autotier",
            TargetKind.PATH,
            "autotier /mnt/autotier (zfs cache + slow pool)",
            (*_ZFS_DISKS, *_SLOW_DISKS),
            "fuse.autotierfs",
            "/mnt/autotier",
        ),
        "0.8.4",
    ),
    DemoRun(
        "autotier-ext4.txt",
        "autotier over ext4 and the slow pool",
        BenchTarget(
            "/mnt/autotier",
            TargetKind.PATH,
            "autotier /mnt/autotier (ext4 cache + slow pool)",
            ("nvme0n1", *_SLOW_DISKS),
            "fuse.autotierfs",
            "/mnt/autotier",
        ),
    ),
)


def demo_runs() -> list[RunResult]:
    """The demo's runs, oldest first, as imported from the seed's text."""
    command = (RUNS_DIR / COMMAND_FILE).read_text(encoding="utf-8")
    # The seed's one command, minus its first test's file: each test wrote elsewhere.
    jobs = tuple(replace(job, filename=None) for job in jobs_of_command(command))
    runs = []
    for demo in DEMO_RUNS:
        run = imported_run(
            (RUNS_DIR / demo.file).read_bytes(),
            demo.file,
            now=SEED_NIGHT,
            name=demo.name,
            tags=TAGS,
            target=demo.target,
            default_jobs=jobs,
        )
        env = replace(run.env, fs_type=demo.target.fs_type, zfs_version=demo.zfs_version)
        runs.append(replace(run, env=env))
    return sorted(runs, key=lambda r: r.started_at)


def _fingerprint() -> str:
    digest = hashlib.sha256()
    for path in sorted(RUNS_DIR.glob("*.txt")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    digest.update(repr((DEMO_RUNS, TAGS)).encode())  # a history tagged otherwise is rebuilt
    digest.update(f"reading {READING}".encode())
    if READINGS_FILE.exists():  # the disks' kept health readings (demo_readings.py)
        digest.update(READINGS_FILE.read_bytes())
    return digest.hexdigest()[:12]


def demo_history_folder(cache_dir: Path | None = None) -> Path:
    """The demo history's folder, built if missing. Under ``cache_dir`` (default: the
    user's cache folder, ``backends/localfiles.cache_folder``); in a fresh
    temporary folder when that cannot be written."""
    if cache_dir is None:
        cache_dir = cache_folder()
    folder = cache_dir / f"demo-history-{_fingerprint()}"
    if (folder / DB_NAME).exists():
        return folder
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        _build(folder, cache_dir)
    except (OSError, TierdeckError):
        folder = Path(tempfile.mkdtemp(prefix="tierdeck-demo-"))
        _fill(folder)
    return folder


def _build(folder: Path, parent: Path) -> None:
    # Built aside and renamed into place: a demo started meanwhile never sees half.
    scratch = Path(tempfile.mkdtemp(prefix=".demo-history-", dir=parent))
    try:
        _fill(scratch)
        try:
            os.rename(scratch, folder)
        except OSError:
            if not (folder / DB_NAME).exists():
                raise  # not another demo's finished copy: a real failure
    finally:
        with contextlib.suppress(OSError):
            shutil.rmtree(scratch)


def _fill(folder: Path) -> None:
    store = HistoryStore(folder / DB_NAME)
    for run in demo_runs():
        store.save(run)
    store.save_health(demo_readings(), "demo")


def use_demo_history(cache_dir: Path | None = None) -> Path:
    """Point this process's history at the demo's (never the user's) and return it."""
    folder = demo_history_folder(cache_dir)
    os.environ[ENV_DATA_DIR] = str(folder)
    return folder / DB_NAME
