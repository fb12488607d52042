"""Before a benchmark runs: where it goes, and whether it may go there at all.

:func:`plan_run` turns a user's choice (a path, jobs, overrides) into a
:class:`RunRequest`, or refuses with a :class:`BenchRefused` saying why and what to do:

* the target is resolved through the inventory (mergerfs pool, branch, ZFS dataset,
  mount, or a plain directory) with the disks under it (``target_lookup``);
* test files are named ``.tierdeck-bench.*`` and live only in the target directory; a
  symlink or a directory under such a name is refused (tierdeck often runs as root);
* free space is checked against the files fio will create (``space``);
* O_DIRECT is probed by writing one aligned block: FUSE (mergerfs over some
  filesystems), ramfs and older tmpfs answer EINVAL, and the caller may offer direct=0;
* raw block devices are refused unless raw mode is asked for, the device name is typed
  to confirm, and the device carries no filesystem, partition in use, holder or pool
  (``raw_target``);
* only one run per target at a time (``claims``).

The checks read the machine through the Host, except the O_DIRECT probe, which must
really open a file (:func:`probe_write`; skipped for recorded hosts).
"""

from __future__ import annotations

import errno
import posixpath
from collections.abc import Sequence

from ...backends.host import Host
from ...backends.mounts import (
    PSEUDO_FS_TYPES,
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
    with_overrides,
)
from ...core.models import Inventory
from ...core.placement import BenchFile, place_jobs, planned_files
from ...core.presets import find_preset
from .claims import running_request, running_requests
from .raw_target import plan_raw
from .space import check_space
from .target_lookup import resolve_target

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

# Not storage at all: refused even when typed.
_REFUSED_FS = PSEUDO_FS_TYPES

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

    busy = running_request(target.path)
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

    for other in running_requests():
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
        warnings += plan_raw(host, inv, target, planned, raw_confirm)
    else:
        present = _check_files(host, target, planned, files)
        to_create = [f for f in files if f.name not in present]
        warnings += check_space(host, inv, target, to_create)
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
