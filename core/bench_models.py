"""Benchmark runs as typed data: what was asked, what happened, what was measured.

The runner (app/bench_runner.py) produces these, the history store (app/history.py)
persists them, the CLI and the screens show them. fio's own numbers live in
``core.fio_models``; this module adds the target, the disks under it, the environment,
and the outcome.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from tierdeck.core.errors import TierdeckError
from tierdeck.core.fio_models import Sample
from tierdeck.core.jobspec import JobSpec


class RunStatus(StrEnum):
    OK = "ok"
    FAILED = "failed"
    CANCELLED = "cancelled"


class TargetKind(StrEnum):
    MOUNT = "mount"  # a mounted filesystem (or a directory inside one)
    MERGERFS = "mergerfs"  # a mergerfs pool's mountpoint
    BRANCH = "branch"  # one mergerfs branch, bypassing the pool
    ZFS = "zfs"  # a mounted ZFS dataset
    PATH = "path"  # a directory typed by the user
    RAW = "raw"  # a whole block device (explicit raw mode only)


@dataclass(frozen=True)
class BenchTarget:
    path: str  # the directory the test files go in; the device node in raw mode
    kind: TargetKind
    label: str  # "mergerfs /mnt/cached", "branch /mnt/disk1", "zfs cache/media"
    disks: tuple[str, ...]  # physical disks under it (core.relations.disks_under)
    fs_type: str | None = None
    mountpoint: str | None = None


@dataclass(frozen=True)
class DeviceSample:
    """One disk over one interval, from /proc/diskstats deltas."""

    t: float  # seconds since the run started, at the end of the interval
    device: str  # kernel name, "sdb"
    read_bytes_per_s: float
    write_bytes_per_s: float
    read_iops: float
    write_iops: float
    util_pct: float  # share of the interval the device was busy (io_ticks delta)


@dataclass(frozen=True)
class EnvFingerprint:
    """What could change a result between two runs on the "same" target."""

    kernel: str | None = None
    fio_version: str | None = None
    fs_type: str | None = None
    mount_options: tuple[str, ...] = ()
    mergerfs_version: str | None = None
    mergerfs_options: dict[str, str] = field(default_factory=dict)
    zfs_version: str | None = None
    zfs_properties: dict[str, str] = field(default_factory=dict)  # dataset properties
    disk_models: dict[str, str] = field(default_factory=dict)  # disk name -> model


@dataclass(frozen=True)
class DirectionSummary:
    bw_bytes: int  # bytes/s over the run, as fio reports it
    iops: float
    lat_mean_ns: float | None
    lat_p99_ns: int | None


@dataclass(frozen=True)
class RunRequest:
    """A validated request to run: what the preflight checks turned a user's choice into."""

    target: BenchTarget
    jobs: tuple[JobSpec, ...]
    name: str  # shown in history; defaults to "<preset> on <target label>"
    preset: str | None = None
    drop_caches: bool = False  # root only: sync + drop_caches before measuring
    lay_out_first: bool = False  # create the files before measuring
    warnings: tuple[str, ...] = ()  # e.g. "direct=0: page cache may inflate results"


@dataclass(frozen=True)
class RunResult:
    id: int | None  # the history store's id; None until stored
    name: str
    status: RunStatus
    target: BenchTarget
    jobs: tuple[JobSpec, ...]
    started_at: float  # epoch seconds
    finished_at: float | None
    preset: str | None = None
    error: str | None = None  # fio's own message for failed runs
    fio_json: dict[str, Any] | None = None  # the full final fio JSON document
    summary: dict[str, DirectionSummary] = field(default_factory=dict)  # "read"/"write"
    series: tuple[Sample, ...] = ()  # per-second fio samples
    device_series: tuple[DeviceSample, ...] = ()  # per-second, per-disk samples
    env: EnvFingerprint = field(default_factory=EnvFingerprint)
    tags: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()  # cache warning, direct=0, ...


class BenchRefused(TierdeckError):
    """A run was refused before it started; the message says why and what to do.

    ``offer_buffered`` is True when the reason is that O_DIRECT is not supported by the
    target (FUSE, tmpfs, ramfs): the caller may offer direct=0, with a warning."""

    def __init__(self, reason: str, *, offer_buffered: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.offer_buffered = offer_buffered
