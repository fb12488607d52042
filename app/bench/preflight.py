"""Before a benchmark runs: where it goes, and whether it may go there at all.

:func:`plan_run` turns a user's choice (a path, jobs, overrides) into a
:class:`RunRequest`, or refuses with a :class:`BenchRefused` saying why and what to do:

* the target is resolved through the inventory (mergerfs pool, branch, ZFS dataset,
  mount, or a plain directory) with the disks under it;
* test files are named ``.tierdeck-bench.*`` and live only in the target directory; a
  symlink or a directory under such a name is refused (tierdeck often runs as root);
* free space is checked against the files fio will create;
* O_DIRECT is probed by writing one aligned block: FUSE (mergerfs over some
  filesystems), ramfs and older tmpfs answer EINVAL, and the caller may offer direct=0;
* raw block devices are refused unless raw mode is asked for, the device name is typed
  to confirm, and the device carries no filesystem, partition in use, holder or pool;
* only one run per target at a time.

The checks read the machine through the Host, except the O_DIRECT probe, which must
really open a file (:func:`probe_write`; skipped for recorded hosts).
"""

from __future__ import annotations

import errno
import posixpath
from collections.abc import Sequence
from dataclasses import dataclass

from ...backends.host import FsUsage, Host
from ...backends.mergerfs import FS_TYPE as MERGERFS_FS_TYPE
from ...backends.mounts import (
    NETWORK_STATVFS_TIMEOUT,
    PSEUDO_FS_TYPES,
    may_hang,
    mount_for_path,
    statvfs_with_timeout,
)
from ...core.bench_models import (
    BenchRefused,
    BenchTarget,
    RefusalKind,
    RunRequest,
    RunWarning,
    TargetKind,
    WarningKind,
)
from ...core.errors import HostError
from ...core.jobspec import (
    BENCH_FILE_PREFIX,
    DEFAULT_FILENAME_PREFIX,
    JobSpec,
    JobSpecError,
    fio_size_bytes,
    with_overrides,
)
from ...core.models import BranchMode, Disk, Inventory, MergerfsPool, Mount, Partition
from ...core.placement import BenchFile, place_jobs, planned_files
from ...core.presets import find_preset
from ...core.relations import disks_under
from ...core.units import format_bytes
from . import runner as bench_runner

PROBE_NAME = f"{DEFAULT_FILENAME_PREFIX}.probe"
PROBE_BYTES = 4096  # a multiple of every logical block size (512, 4096)

DIRECT_UNSUPPORTED = (
    "{where} does not support O_DIRECT (direct=1): FUSE filesystems such as mergerfs, "
    "tmpfs and ramfs may refuse it (the probe got EINVAL). You can run with direct=0 "
    "instead, but then the page cache sits between fio and the disks and can inflate "
    "the results far beyond what the disks deliver."
)
BUFFERED_WARNING = (
    "direct=0 (buffered I/O) on {where}: the page cache can inflate these results; "
    "compare them only with other buffered runs."
)

# Mounts not offered as benchmark targets: kernel pseudo filesystems, memory-backed and
# read-only images. A typed path on tmpfs is still accepted (plan_run), just not listed.
_UNLISTED_FS = PSEUDO_FS_TYPES | {"tmpfs", "ramfs", "squashfs", "iso9660", "udf", "overlay"}
# Not storage at all: refused even when typed.
_REFUSED_FS = PSEUDO_FS_TYPES


# --------------------------------------------------------------------------- targets


def _within(path: str, top: str) -> bool:
    top = top.rstrip("/") or "/"
    return path == top or top == "/" or path.startswith(top + "/")


def _suffix(path: str, top: str) -> str:
    return "" if path == top else f" ({path})"


def _block_device(inv: Inventory, path: str) -> tuple[Disk, Partition | None] | None:
    """The inventory disk (and partition) a /dev path names, if it names one."""
    base = posixpath.basename(path)
    for disk in inv.disks:
        if base == disk.name or path == disk.path or path in disk.by_id:
            return disk, None
        for part in disk.partitions:
            if base == part.name or path == part.path:
                return disk, part
    return None


def _branch_for(inv: Inventory, path: str) -> str | None:
    best: str | None = None
    for pool in inv.mergerfs:
        for branch in pool.branches:
            point = posixpath.normpath(branch.path)
            if _within(path, point) and (best is None or len(point) > len(best)):
                best = point
    return best


def resolve_target(inv: Inventory, path: str) -> BenchTarget:
    """What ``path`` is in the inventory, and the disks under it. ``path`` should be
    canonical (plan_run resolves symlinks through the host first)."""
    if not path.startswith("/"):
        raise BenchRefused(f"{path!r}: give an absolute path")
    path = posixpath.normpath(path)
    if path.startswith("/dev/"):
        found = _block_device(inv, path)
        if found is not None:
            disk, part = found
            node = part.path if part is not None else disk.path
            fs_type = part.fs_type if part is not None else disk.fs_type
            return BenchTarget(node, TargetKind.RAW, f"raw {node}", (disk.name,), fs_type)
    mount = mount_for_path(inv.mounts, path)
    disks = disks_under(inv, path)
    fs_type = mount.fs_type if mount is not None else None
    point = mount.mountpoint if mount is not None else None
    branch = _branch_for(inv, path)
    if mount is not None and mount.fs_type == MERGERFS_FS_TYPE:
        kind, label = TargetKind.MERGERFS, f"mergerfs {point}{_suffix(path, mount.mountpoint)}"
    elif branch is not None:
        kind, label = TargetKind.BRANCH, f"branch {branch}{_suffix(path, branch)}"
    elif mount is not None and mount.fs_type == "zfs":
        kind, label = TargetKind.ZFS, f"zfs {mount.source}{_suffix(path, mount.mountpoint)}"
    elif mount is not None and path == mount.mountpoint:
        kind, label = TargetKind.MOUNT, f"{mount.fs_type} {path}"
    else:
        kind, label = TargetKind.PATH, f"path {path}"
    return BenchTarget(path, kind, label, disks, fs_type, point)


def _listable(mount: Mount) -> bool:
    return (
        mount.fs_type not in _UNLISTED_FS
        and "ro" not in mount.options
        and not mount.mountpoint.startswith(("/proc", "/sys", "/dev", "/run", "/snap"))
    )


def list_targets(inv: Inventory) -> tuple[BenchTarget, ...]:
    """Benchmark targets for a picker: mergerfs pools, their branches, mounted ZFS
    datasets, then other writable storage mounts. Each path once."""
    paths: list[str] = []
    for pool in inv.mergerfs:
        paths.append(pool.mountpoint)
    for pool in inv.mergerfs:
        paths += [b.path for b in pool.branches if b.mode is not BranchMode.RO]
    mounted = {m.mountpoint for m in inv.mounts}
    for dataset in inv.zfs.datasets:
        point = dataset.mountpoint
        if dataset.kind == "filesystem" and point is not None and point in mounted:
            paths.append(point)
    paths += [m.mountpoint for m in inv.mounts if _listable(m)]
    seen: set[str] = set()
    targets: list[BenchTarget] = []
    for path in paths:
        path = posixpath.normpath(path)
        if path not in seen:
            seen.add(path)
            targets.append(resolve_target(inv, path))
    return tuple(targets)


# --------------------------------------------------------------------------- sizes


def _human(n: int) -> str:
    return f"{format_bytes(n)} ({n} bytes)"


def _usage(host: Host, path: str, fs_type: str | None) -> FsUsage:
    try:
        if fs_type is not None and may_hang(fs_type):
            return statvfs_with_timeout(host, path, NETWORK_STATVFS_TIMEOUT)
        return host.statvfs(path)
    except TimeoutError as exc:
        raise BenchRefused(f"cannot check free space on {path}: {exc}") from exc
    except (OSError, HostError) as exc:
        raise BenchRefused(f"cannot check free space on {path}: {exc}") from exc


# Copy-on-write filesystems write new blocks before freeing the old ones (btrfs frees
# them at the next commit, and a 4 KiB overwrite keeps its whole old extent pinned):
# measured on the lab's btrfs raid1, randwrite over a 180 MiB file with 215 MiB free
# hit ENOSPC. statvfs already divides by the data profile's copies (raid1/dup: 215 MiB
# of 512 MiB raw), so copies are not counted twice; ZFS "copies=N" is not in statvfs.
COW_FS = frozenset({"btrfs", "zfs", "bcachefs"})


@dataclass(frozen=True)
class SpaceNeed:
    """What the test files take on one filesystem, and why."""

    bytes: int
    largest_file: int
    why: str  # "" or the reason it is more than the files' sizes


def space_need(files: Sequence[BenchFile], fs_type: str | None, copies: int = 1) -> SpaceNeed:
    cow = fs_type in COW_FS
    total = largest = 0
    rewritten = False
    for f in files:
        size = (f.size_bytes or 0) * copies
        if cow and f.overwritten:
            size *= 2
            rewritten = True
        total += size
        largest = max(largest, size)
    reasons = []
    if rewritten:
        reasons.append(
            f"{fs_type} is copy-on-write: files written over again need room for the old "
            "and the new blocks, up to twice their size"
        )
    if copies > 1:
        reasons.append(f"the dataset keeps copies={copies}")
    return SpaceNeed(total, largest, "; ".join(reasons))


def _zfs_copies(host: Host, target: BenchTarget, inv: Inventory) -> int:
    if target.fs_type != "zfs" or target.mountpoint is None:
        return 1
    from .fingerprint import zfs_properties

    mount = next((m for m in inv.mounts if m.mountpoint == target.mountpoint), None)
    if mount is None:
        return 1
    value = zfs_properties(host, mount.source).get("copies", "1")
    return int(value) if value.isdigit() and int(value) > 0 else 1


def _check_space(
    host: Host, inv: Inventory, target: BenchTarget, files: Sequence[BenchFile]
) -> tuple[RunWarning, ...]:
    """``files``: those still to be created (a sweep's kept files already take their
    room on the target, and its free space already says so)."""
    pool = _pool_at(inv, target)
    fs_type = target.fs_type
    if pool is not None:  # the branches' filesystems decide, not fuse.mergerfs
        branch_types = {_fs_type_at(inv, b.path) for b in pool.branches}
        fs_type = next((t for t in branch_types if t in COW_FS), fs_type)
    need = space_need(files, fs_type, _zfs_copies(host, target, inv))
    usage = _usage(host, target.path, target.fs_type)
    if usage.size_bytes == 0:
        # ramfs (and mergerfs over it) report no capacity at all: nothing to compare.
        return (
            RunWarning(
                WarningKind.NO_CAPACITY,
                f"{target.label} reports no capacity (ramfs?): free space was not checked",
            ),
        )
    # Keep a little free: filling a NAS filesystem to the last byte hurts everything
    # else running on it, and filesystems need room for their own metadata.
    reserve = min(1 << 30, usage.size_bytes // 100)
    if need.bytes > usage.avail_bytes - reserve:
        count = len(files)
        raise BenchRefused(
            f"not enough free space on {target.label}: the {count} test "
            f"file{'s need' if count != 1 else ' needs'} {_human(need.bytes)}"
            + (f" ({need.why})" if need.why else "")
            + f", but only {_human(usage.avail_bytes)} is available"
            + (f" (tierdeck keeps {format_bytes(reserve)} free)" if reserve else "")
            + ". Choose a smaller size, fewer jobs or fewer files.",
            kind=RefusalKind.NO_SPACE,
        )
    if pool is not None:
        _check_branches(host, inv, pool, target, files)
    return ()


def _fs_type_at(inv: Inventory, path: str) -> str | None:
    mount = mount_for_path(inv.mounts, posixpath.normpath(path))
    return mount.fs_type if mount is not None else None


def _pool_at(inv: Inventory, target: BenchTarget) -> MergerfsPool | None:
    if target.kind is not TargetKind.MERGERFS:
        return None
    return next((p for p in inv.mergerfs if p.mountpoint == target.mountpoint), None)


def _check_branches(
    host: Host, inv: Inventory, pool: MergerfsPool, target: BenchTarget, files: Sequence[BenchFile]
) -> None:
    # A mergerfs file lives on one branch: the pool's summed free space says nothing
    # about whether the largest test file fits anywhere.
    best = 0
    largest = 0
    for branch in pool.branches:
        if branch.mode is not BranchMode.RW:
            continue
        fs_type = _fs_type_at(inv, branch.path)
        try:
            # a branch on NFS or FUSE may hang: with a timeout, as the target's own check
            avail = _usage(host, branch.path, fs_type).avail_bytes
        except BenchRefused:
            continue
        largest = max(largest, space_need(files, fs_type).largest_file)
        best = max(best, avail - (pool.branch_minfreespace(branch) or 0))
    if largest > best:
        raise BenchRefused(
            f"not enough free space on any branch of {target.label}: a test file needs "
            f"{_human(largest)}, but the emptiest writable branch has only {_human(best)} "
            "above minfreespace, and mergerfs keeps each file on one branch. "
            "Choose a smaller size.",
            kind=RefusalKind.NO_SPACE,
        )


# --------------------------------------------------------------------------- raw mode


def _signatures(host: Host, node: str) -> list[str]:
    """Signatures on a device (filesystem, RAID/LVM/ZFS member, swap, partition table),
    as "TYPE" or "PTTYPE=..." strings. Raises BenchRefused when it cannot tell."""
    try:
        result = host.run(["blkid", "-p", "-o", "export", node])
    except HostError:
        result = None
    if result is not None:
        if result.returncode == 2 and not result.stdout.strip():
            return []  # blkid(8): exit 2 when nothing could be identified
        if result.returncode in (0, 8):  # 8: ambivalent, several signatures
            found = []
            for line in result.stdout.splitlines():
                key, _, value = line.partition("=")
                if key == "TYPE":
                    found.append(value)
                elif key == "PTTYPE":
                    found.append(f"PTTYPE={value}")
            return found or ["unidentified signature (blkid exit 8)"]
        raise BenchRefused(
            f"cannot check {node} for a filesystem: blkid exited {result.returncode}: "
            f"{result.stderr.strip() or result.stdout.strip()}"
        )
    try:
        wiped = host.run(["wipefs", "-n", node])
    except HostError as exc:
        raise BenchRefused(
            f"cannot check {node} for a filesystem signature: neither blkid nor wipefs "
            f"works here ({exc}); raw mode needs one of them (util-linux)"
        ) from exc
    if not wiped.ok:
        raise BenchRefused(f"cannot check {node} for a filesystem: {wiped.stderr.strip()}")
    # wipefs lists one signature per line with its hex offset ("loop2 0x438 ext4 ...").
    return [line.strip() for line in wiped.stdout.splitlines() if "0x" in line]


def _raw_problems(host: Host, inv: Inventory, disk: Disk, part: Partition | None) -> list[str]:
    names = {part.name} if part is not None else {disk.name, *(p.name for p in disk.partitions)}
    problems: list[str] = []
    holders = part.holders if part is not None else disk.holders
    if holders:
        problems.append(f"it is held by {', '.join(holders)}")
    if part is None:
        for p in disk.partitions:
            if p.holders:
                problems.append(f"partition {p.name} is held by {', '.join(p.holders)}")
    for mount in inv.mounts:
        # btrfs mounts carry an anonymous 0:N device number: the source names the disk
        sources = {inv.dev_names.get(mount.major_minor), posixpath.basename(mount.source)}
        for mounted in sorted(n for n in sources if n in names):
            problems.append(f"{mounted} is mounted on {mount.mountpoint}")
    for fs in inv.btrfs:
        if any(posixpath.basename(d.path) in names for d in fs.devices):
            problems.append(f"it belongs to btrfs filesystem {fs.label or fs.uuid}")
    for array in inv.md:
        if any(m.name in names for m in array.members):
            problems.append(f"it is a member of md array {array.name}")
    for pool in inv.zfs.pools:
        if disk.name in disks_under(inv, f"zpool:{pool.name}"):
            problems.append(f"it belongs to ZFS pool {pool.name}")
    try:
        swaps = host.read_text("/proc/swaps")
    except (OSError, HostError):
        swaps = ""
    for line in swaps.splitlines()[1:]:
        device = line.split()[0] if line.split() else ""
        if posixpath.basename(device) in names:
            problems.append(f"{posixpath.basename(device)} is in use as swap")
    node = part.path if part is not None else disk.path
    fs_type = part.fs_type if part is not None else disk.fs_type
    if fs_type:
        problems.append(f"it carries a {fs_type} filesystem")
    signatures = _signatures(host, node)
    if any(not s.startswith("PTTYPE=") for s in signatures):
        problems.append(f"blkid finds a signature on {node}: {', '.join(signatures)}")
    if part is None:
        for p in disk.partitions:
            found = [s for s in _signatures(host, p.path) if not s.startswith("PTTYPE=")]
            if found or p.fs_type:
                problems.append(f"partition {p.name} carries {', '.join(found) or p.fs_type}")
    return list(dict.fromkeys(problems))


def _plan_raw(
    host: Host,
    inv: Inventory,
    target: BenchTarget,
    jobs: Sequence[JobSpec],
    raw_confirm: str | None,
) -> tuple[RunWarning, ...]:
    found = _block_device(inv, target.path)
    if found is None:  # pragma: no cover - resolve_target only makes RAW from these
        raise BenchRefused(f"{target.path} is not a disk tierdeck knows")
    disk, part = found
    name = part.name if part is not None else disk.name
    # Everything that makes raw mode impossible first: nobody should type a device
    # name only to learn that the device is in use.
    if not host.is_root:
        raise BenchRefused("raw mode needs root (to check and open the device)")
    problems = _raw_problems(host, inv, disk, part)
    if problems:
        raise BenchRefused(
            f"refusing raw mode on {target.path}: {'; '.join(problems)}. A raw benchmark "
            "would destroy it. Benchmark a directory on it instead."
        )
    size = part.size_bytes if part is not None else disk.size_bytes
    for job in jobs:
        wanted = fio_size_bytes(job.size) if job.size is not None else None
        if wanted is not None and wanted > size:
            raise BenchRefused(
                f"{job.name}: size {_human(wanted)} is larger than {target.path} ({_human(size)})"
            )
        if disk.read_only and not job.rw.split(":", 1)[0].endswith("read"):
            raise BenchRefused(f"{target.path} is read-only; {job.name} writes (rw={job.rw})")
    if raw_confirm is None:
        raise BenchRefused(
            f"{target.path} is a block device: a benchmark there reads and writes the "
            "device itself and destroys what is on it. tierdeck does that only in raw "
            "mode, for a device with no filesystem, no partition in use and no pool "
            f"membership, with its name ({name}) typed to confirm.",
            kind=RefusalKind.RAW_CONFIRMATION,
        )
    if raw_confirm.strip() not in (name, f"/dev/{name}"):
        raise BenchRefused(
            f"raw mode: the confirmation {raw_confirm!r} does not match the device name "
            f"{name!r}; type it exactly to confirm"
        )
    return (
        RunWarning(
            WarningKind.RAW_MODE,
            f"raw mode: fio reads and writes {target.path} directly; its contents are lost",
        ),
    )


# --------------------------------------------------------------------------- plan_run


def _apply_overrides(
    jobs: Sequence[JobSpec], size: str | None, runtime: int | None, direct: bool | None
) -> tuple[JobSpec, ...]:
    try:
        return with_overrides(jobs, size, runtime, direct)
    except JobSpecError as exc:
        raise BenchRefused(str(exc)) from exc


def _check_files(
    host: Host, target: BenchTarget, jobs: Sequence[JobSpec], files: Sequence[BenchFile]
) -> frozenset[str]:
    """Refuse names fio must not write through; return the planned files that exist
    already as tierdeck test files (a sweep's previous cell left them for this one)."""
    present: set[str] = set()
    planned = {f.name for f in files}
    for job in jobs:
        if job.size is None and "filesize" not in job.extra:
            raise BenchRefused(
                f"{job.name}: no size: fio needs one to create its test file (give a size)"
            )
    top = target.path.rstrip("/") or "/"
    for name in sorted({f.name for f in files} | {PROBE_NAME}):
        path = posixpath.join(top, name)
        parent = posixpath.dirname(path)
        try:
            if parent != top and not host.is_dir(parent):
                raise BenchRefused(
                    f"{path}: its folder {parent} does not exist; fio would create it and "
                    "tierdeck would leave it behind. Create it first, or use a plain name."
                )
            if not host.exists(path) and host.realpath(path) == path:
                continue
            # realpath differs exactly when the name is a symlink (dangling ones too):
            # the target directory itself is canonical already.
            unsafe = host.realpath(path) != path or host.is_dir(path)
        except (OSError, HostError):
            continue
        if unsafe:
            raise BenchRefused(
                f"{path} exists and is not a plain file (a symlink or a directory): "
                "tierdeck will not write through it. Remove it and try again."
            )
        if not posixpath.basename(path).startswith(BENCH_FILE_PREFIX):
            raise BenchRefused(
                f"{path} exists and is not a tierdeck test file: fio would write over it "
                "and tierdeck would delete it after the run. Name a file that does not "
                "exist yet (or remove filename= and let fio name its files)."
            )
        if name in planned:
            present.add(name)
    return frozenset(present)


def _default_name(preset: str | None, jobs: Sequence[JobSpec], target: BenchTarget) -> str:
    what = preset or (jobs[0].name if len(jobs) == 1 else f"{len(jobs)} jobs")
    return f"{what} on {target.label}"


def plan_run(
    host: Host,
    inv: Inventory,
    target_path: str,
    jobs: Sequence[JobSpec],
    *,
    preset: str | None = None,
    size: str | None = None,
    runtime: int | None = None,
    direct: bool | None = None,
    drop_caches: bool = False,
    lay_out_first: bool = False,
    raw_confirm: str | None = None,
    name: str | None = None,
    tags: Sequence[str] = (),
    keep_files: bool = False,
) -> RunRequest:
    """Check everything that can be checked before fio starts. Raises BenchRefused.

    ``preset`` names a preset of core.presets.PRESETS (its lay-out and drop-caches
    flags apply) or any label. ``size``/``runtime``/``direct`` override every job.
    ``direct=False`` is the answer to an O_DIRECT refusal with ``offer_buffered``: the
    request then carries a warning that caches can inflate the results. ``tags`` go
    with the stored run; ``keep_files`` leaves the files for the next run (sweeps).
    """
    if not jobs:
        raise BenchRefused("nothing to run: no jobs given")
    if not host.has_tool("fio"):
        raise BenchRefused("fio is not installed (not found on PATH): install the fio package")
    if not target_path.startswith("/"):
        raise BenchRefused(f"{target_path!r}: give the target as an absolute path")
    try:
        exists = host.exists(target_path)
        real = host.realpath(target_path)
    except (OSError, HostError) as exc:
        raise BenchRefused(f"cannot look at {target_path}: {exc}") from exc
    if not exists:
        raise BenchRefused(f"{target_path} does not exist")
    raw = real.startswith("/dev/") and not host.is_dir(real)
    if not raw and not host.is_dir(real):
        raise BenchRefused(
            f"{target_path} is not a directory: tierdeck puts its test files in a "
            "directory (a block device needs raw mode)"
        )
    target = resolve_target(inv, real)
    if raw and target.kind is not TargetKind.RAW:
        raise BenchRefused(f"{target_path} is not a disk or partition tierdeck knows")
    if target.fs_type in _REFUSED_FS:
        raise BenchRefused(f"{target_path} is on {target.fs_type}, which is not storage")

    busy = bench_runner.running_request(target.path)
    if busy is not None:
        raise BenchRefused(
            f"a benchmark is already running on {target.label} ({busy.name}): "
            "one run per target at a time",
            kind=RefusalKind.BUSY,
        )

    known = find_preset(preset)
    wanted_direct = any(job.direct for job in jobs)
    planned = _apply_overrides(jobs, size, runtime, direct)
    warnings: list[RunWarning] = []
    if not raw:
        try:
            placed = place_jobs(planned, target.path)
        except JobSpecError as exc:
            raise BenchRefused(str(exc)) from exc
        planned = placed.jobs
        warnings += [RunWarning(WarningKind.PLACEMENT, n) for n in placed.notices]

    if drop_caches and not host.is_root:
        raise BenchRefused(
            "dropping caches before measuring needs root (it writes "
            "/proc/sys/vm/drop_caches): run tierdeck as root, or without drop caches"
        )
    drop = drop_caches or (known is not None and known.drop_caches)
    if drop and not host.is_root:
        drop = False
        warnings.append(
            RunWarning(
                WarningKind.CACHES_KEPT,
                f"preset {known.name if known else preset} drops caches before measuring, "
                "which needs root: skipped, so cached data may inflate read results",
            )
        )
    lay_out = (lay_out_first or (known is not None and known.lay_out_first)) and not raw
    if drop and target.fs_type == "zfs":
        warnings.append(
            RunWarning(
                WarningKind.CACHES_KEPT,
                "drop caches empties the page cache, not the ZFS ARC: reads may still "
                "come from memory (export and import the pool to empty it)",
            )
        )
    files = () if raw else planned_files(planned, laid_out=lay_out)

    for other in bench_runner.running_requests():
        shared = sorted(set(other.target.disks) & set(target.disks))
        if shared:
            warnings.append(
                RunWarning(
                    WarningKind.SHARED_DISKS,
                    f"another benchmark ({other.name}) is running on {', '.join(shared)}: "
                    "both results will be lower than either disk alone can do",
                )
            )

    if raw:
        warnings += _plan_raw(host, inv, target, planned, raw_confirm)
    else:
        present = _check_files(host, target, planned, files)
        to_create = [f for f in files if f.name not in present]
        warnings += _check_space(host, inv, target, to_create)
        use_direct = any(job.direct for job in planned)
        problem = host.probe_write(target.path, PROBE_NAME, direct=use_direct)
        if problem is not None:
            if use_direct and problem.errno == errno.EINVAL:
                raise BenchRefused(
                    DIRECT_UNSUPPORTED.format(where=target.label),
                    kind=RefusalKind.DIRECT_UNSUPPORTED,
                )
            raise BenchRefused(
                f"cannot write a test file in {target.path}: "
                f"{problem.strerror or problem} ({errno.errorcode.get(problem.errno or 0, '?')})"
            )
        if direct is False and wanted_direct:
            warnings.append(
                RunWarning(WarningKind.BUFFERED, BUFFERED_WARNING.format(where=target.label))
            )

    return RunRequest(
        target=target,
        jobs=planned,
        name=name or _default_name(preset, planned, target),
        preset=preset,
        drop_caches=drop,
        lay_out_first=lay_out,
        warnings=tuple(warnings),
        files=files,
        tags=tuple(tags),
        keep_files=keep_files and not raw,
    )
