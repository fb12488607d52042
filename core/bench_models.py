"""Benchmark runs as typed data: what was asked, what happened, what was measured.

The runner (app/bench/runner.py) produces these, the history store (app/history/store.py)
persists them, the CLI and the screens show them. fio's own numbers live in
``core.fio_models``; this module adds the target, the disks under it, the environment,
and the outcome.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .errors import TierdeckError
from .fio_models import Sample
from .imports import ImportSource, RunOrigin
from .jobspec import JobSpec
from .placement import BenchFile


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


class WarningKind(StrEnum):
    """What a warning attached to a run is about."""

    CACHE = "cache"  # fio moved more than the disks did: a cache answered
    BUFFERED = "buffered"  # run with direct=0: the page cache sits in between
    MEMORY_TARGET = "memory-target"  # tmpfs/ramfs: the results measure RAM
    CACHES_KEPT = "caches-kept"  # caches could not be (or are not) emptied first
    NO_DISKS = "no-disks"  # no local disk under the target to check fio against
    SHARED_DISKS = "shared-disks"  # another run uses the same disks
    PLACEMENT = "placement"  # a job's own directory= replaced by the target
    NO_CAPACITY = "no-capacity"  # the target reports no size: space not checked
    RAW_MODE = "raw-mode"  # the device's contents are lost
    IMPORT_OPTIONS = "import-options"  # an imported job option tierdeck could not read
    OTHER = "other"

    @property
    def inflates_results(self) -> bool:
        """The figures may be memory's, not the disks': shown apart, marked in lists."""
        return self in _INFLATING


_INFLATING = frozenset(
    {WarningKind.CACHE, WarningKind.BUFFERED, WarningKind.MEMORY_TARGET, WarningKind.CACHES_KEPT}
)


@dataclass(frozen=True)
class RunWarning:
    kind: WarningKind
    text: str

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class BenchTarget:
    path: str  # the directory the test files go in; the device node in raw mode
    kind: TargetKind
    label: str  # "mergerfs /mnt/cached", "branch /mnt/disk1", "zfs cache/media"
    disks: tuple[str, ...]  # physical disks under it (core.relations.disks_under)
    fs_type: str | None = None
    mountpoint: str | None = None


@dataclass(frozen=True)
class RunHost:
    """The machine a run ran on, as the host seam named it when the run was made: its
    ``uname -n`` and its ``Host.identity`` ("local:<machine-id>", "ssh:<machine-id>").
    Empty where unknown: the id of runs stored before tierdeck kept it, both for a run
    imported from a file of fio output."""

    name: str = ""
    id: str = ""

    @property
    def known(self) -> bool:
        return bool(self.name or self.id)

    @property
    def label(self) -> str:
        """The host as shown: its name and id ("nas1 (ssh:4f1c...)"), as much of it as
        is known; empty when nothing is."""
        if not self.name:
            return self.id
        return f"{self.name} ({self.id})" if self.id else self.name

    @property
    def machine(self) -> str:
        """The id without how the machine was reached: the same machine benchmarked on
        its own console ("local:") and over SSH ("ssh:") is one machine."""
        return self.id.partition(":")[2] or self.id

    def same_machine(self, other: RunHost) -> bool | None:
        """Whether two runs ran on one machine: by machine id when both have one (a
        renamed host keeps its id), else by name; None when either does not say."""
        if self.id and other.id:
            return self.machine == other.machine
        if self.name and other.name:
            return self.name.lower() == other.name.lower()  # hostnames ignore case
        return None


def host_names(hosts: Iterable[RunHost]) -> set[str]:
    """The hosts named (hostnames ignore case), unknown ones aside: a listing shows each
    run's host only when it holds two or more."""
    return {host.name.lower() for host in hosts if host.name}


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
    # None when the source did not say: an imported snippet of fio's text that holds
    # only the "Run status group" line (bandwidth and runtime).
    iops: float | None
    lat_mean_ns: float | None
    lat_p99_ns: int | None


@dataclass(frozen=True)
class JobSummary:
    """One job of a run as fio reported it at the end: its clones together (or its
    reporting group, under group_reporting). A suite such as seed 002's mixes 1M
    sequential and 4K random jobs, where only per-job figures mean anything."""

    name: str
    rw: str | None  # from the job as run; None when fio reported a job tierdeck did not plan
    bs: str | None
    directions: Mapping[str, DirectionSummary]  # "read"/"write"/"trim" that had I/O
    error: int = 0  # errno of the job's failure


class FileLayout(StrEnum):
    """How a run's test files were laid out.

    FIO: fio's own naming (directory= and filename_format=): one file per job clone and
    per nrfiles, as plain fio. ONE_PER_JOB: tierdeck before 0.2 gave every job a single
    filename=, so the clones of a numjobs>1 job shared one file and contended on it."""

    FIO = "fio"
    ONE_PER_JOB = "one-per-job"


@dataclass(frozen=True)
class RunRequest:
    """A validated request to run: what the preflight checks turned a user's choice into."""

    target: BenchTarget
    jobs: tuple[JobSpec, ...]
    name: str  # shown in history; defaults to "<preset> on <target label>"
    preset: str | None = None
    drop_caches: bool = False  # root only: sync + drop_caches before measuring
    lay_out_first: bool = False  # create the files before measuring
    warnings: tuple[RunWarning, ...] = ()  # e.g. direct=0: the page cache may inflate
    files: tuple[BenchFile, ...] = ()  # what fio will create under the target (not raw)
    tags: tuple[str, ...] = ()  # carried to the stored result ("sweep:12")
    # Leave the planned files in place after an ok run, for the next run of a sweep
    # with the same files (fio reuses them); the caller removes them. A failed or
    # cancelled run removes them as always.
    keep_files: bool = False


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
    warnings: tuple[RunWarning, ...] = ()  # cache warning, direct=0, ...
    job_summaries: tuple[JobSummary, ...] = ()
    file_layout: FileLayout = FileLayout.FIO
    imported: ImportSource | None = None  # read from a file (history import), not run
    host: RunHost = field(default_factory=RunHost)  # the machine it ran on

    @property
    def origin(self) -> RunOrigin:
        return RunOrigin.IMPORTED if self.imported is not None else RunOrigin.TIERDECK

    @property
    def inflated(self) -> bool:
        """A warning says memory may have answered instead of the disks."""
        return any(w.kind.inflates_results for w in self.warnings)

    @property
    def mixed_jobs(self) -> bool:
        """True when the jobs differ in rw or bs: the whole-run summary then adds
        sequential and random I/O together, and the per-job figures are the headline."""
        kinds = {(j.rw, j.bs) for j in self.job_summaries}
        return len(self.job_summaries) > 1 and len(kinds) > 1

    @property
    def clones_shared_file(self) -> bool:
        """Stored before 0.2 with a job whose clones (numjobs) or nrfiles should each
        have had a file of their own but shared one: its figures are lower than plain
        fio's. Jobs with a file_tag shared their file on purpose (KDiskMark does)."""
        if self.file_layout is not FileLayout.ONE_PER_JOB:
            return False
        return any(
            job.file_tag is None
            and job.filename is None
            and (job.numjobs > 1 or (job.extra.get("nrfiles") or "1").strip() not in ("", "1"))
            for job in self.jobs
        )


class RefusalKind(StrEnum):
    """Why a run was refused, for callers that answer some refusals with a question."""

    INVALID = "invalid"  # the request itself (target, job, options) cannot run
    NO_SPACE = "no-space"
    DIRECT_UNSUPPORTED = "direct-unsupported"  # offer direct=0, with its warning
    RAW_CONFIRMATION = "raw-confirmation"  # ask for the device name, typed
    BUSY = "busy"  # another run holds the target


class BenchRefused(TierdeckError):
    """A run was refused before it started; the message says why and what to do.

    ``kind`` lets a caller react without reading the text: DIRECT_UNSUPPORTED (FUSE,
    tmpfs, ramfs) may be answered with direct=0 and a cache warning, RAW_CONFIRMATION
    with the device name typed by the user."""

    def __init__(self, reason: str, *, kind: RefusalKind = RefusalKind.INVALID) -> None:
        super().__init__(reason)
        self.reason = reason
        self.kind = kind

    @property
    def offer_buffered(self) -> bool:
        return self.kind is RefusalKind.DIRECT_UNSUPPORTED
