"""What differs between compared runs: the comparability panel's content.

Every parameter that could explain a delta, one value per run: the machine the runs ran
on, each fio job option (per row of matched jobs), fio version, kernel, filesystem and mount options, mergerfs
version and options, ZFS version and properties, disk models, and the target. A value
of None means the run does not say (an imported run without environment, a job without
a spec); such runs are left out when deciding whether values differ, so "unknown" is
never reported as a difference by itself.

Pure: reads RunResults, returns typed Differences.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from ..bench_models import EnvFingerprint, RunHost, RunResult
from ..jobspec import TARGET_OPTIONS, JobSpec, fio_size_bytes


class DifferenceKind(StrEnum):
    JOB = "job"  # a fio job option (bs, iodepth, ...) or the job's name
    # The machine: it stands for all the fingerprint does not record (CPU, memory,
    # controllers), so runs of two machines are not called comparable.
    HOST = "host"
    FIO = "fio"  # fio's version
    KERNEL = "kernel"
    FILESYSTEM = "filesystem"  # type and mount options
    MERGERFS = "mergerfs"
    ZFS = "zfs"
    DISKS = "disks"  # disk models under the target
    TARGET = "target"  # path and kind: the usual thing to compare, not a warning

    @property
    def informational(self) -> bool:
        """Shown, but does not make runs less comparable."""
        return self is DifferenceKind.TARGET


@dataclass(frozen=True)
class Difference:
    key: str  # "job[seqwrite].bs", "kernel", "mergerfs.category.create"
    values: tuple[str | None, ...]  # one per run, in the comparison's order
    kind: DifferenceKind
    # per run: its imported file did not state the option (its value is None then);
    # () when no run is unknown
    unknown: tuple[bool, ...] = ()

    def shown(self) -> tuple[str, ...]:
        """The values as text: "?" where unknown, "-" where the run has none."""
        unknown = self.unknown or (False,) * len(self.values)
        return tuple("?" if u else (v or "-") for v, u in zip(self.values, unknown, strict=True))


# JobSpec's boolean fields: options() leaves them out when off; here off is "0", so
# "direct: 1 vs 0" reads as what it is rather than "1 vs (none)".
_FLAGS = ("direct", "time_based", "end_fsync", "group_reporting", "stonewall")


def job_options(spec: JobSpec) -> dict[str, str]:
    """A job's options as comparable text; where its files go is the target's business.
    Options an imported job's file did not state are absent: unknown, not off."""
    options = {key: "1" if value is None else value for key, value in spec.options()}
    for flag in _FLAGS:
        if spec.states(flag):
            options.setdefault(flag, "0")
    if spec.file_tag is not None:
        options["file_tag"] = spec.file_tag
    return {k: v for k, v in options.items() if k not in TARGET_OPTIONS}


def _canonical(value: str | None) -> str | None:
    """fio reads "4k", "4K" and "4096" alike: sizes compare as bytes."""
    if value is None:
        return None
    size = fio_size_bytes(value)
    return value if size is None else str(size)


def _differs(values: Sequence[str | None]) -> bool:
    return len({v for v in values if v is not None}) > 1


def _env_known(env: EnvFingerprint) -> bool:
    return env != EnvFingerprint()


def job_differences(
    label: str, names: Sequence[str | None], specs: Sequence[JobSpec | None]
) -> list[Difference]:
    """One row of matched jobs: its name (when matched by position) and every option."""
    out: list[Difference] = []
    if _differs(names):
        out.append(Difference(f"job[{label}].name", tuple(names), DifferenceKind.JOB))
    options = [None if spec is None else job_options(spec) for spec in specs]
    keys: list[str] = []
    for opts in options:
        keys += [k for k in (opts or {}) if k not in keys]
    for key in keys:
        values = tuple(None if opts is None else opts.get(key) for opts in options)
        # among runs whose spec says, an option one of them did not set is a difference
        with_spec = {
            _canonical(v)
            for v, spec in zip(values, specs, strict=True)
            if spec is not None and spec.states(key)
        }
        if len(with_spec) > 1:
            unknown = tuple(spec is not None and not spec.states(key) for spec in specs)
            out.append(
                Difference(
                    f"job[{label}].{key}",
                    values,
                    DifferenceKind.JOB,
                    unknown if any(unknown) else (),
                )
            )
    return out


def _scalar(
    runs: Sequence[RunResult],
    key: str,
    kind: DifferenceKind,
    read: Callable[[RunResult], str | None],
) -> list[Difference]:
    values = tuple(read(r) for r in runs)
    return [Difference(key, values, kind)] if _differs(values) else []


def _mapping(
    runs: Sequence[RunResult],
    prefix: str,
    kind: DifferenceKind,
    read: Callable[[EnvFingerprint], Mapping[str, str]],
) -> list[Difference]:
    known = [_env_known(r.env) and bool(read(r.env)) for r in runs]
    keys: list[str] = []
    for run, ok in zip(runs, known, strict=True):
        if ok:
            keys += [k for k in sorted(read(run.env)) if k not in keys]
    out = []
    for key in keys:
        values = tuple(
            read(r.env).get(key) if ok else None for r, ok in zip(runs, known, strict=True)
        )
        seen = {v for v, ok in zip(values, known, strict=True) if ok}
        if len(seen) > 1:
            out.append(Difference(f"{prefix}.{key}", values, kind))
    return out


# mergerfs settings that name the pool itself (its branches, mountpoint, name) or repeat
# mergerfs_version: they differ with the target, not with how it behaves.
_POOL_OWN = frozenset({"branches", "srcmounts", "mount", "fsname", "version"})


def _models(env: EnvFingerprint) -> str | None:
    if not env.disk_models:
        return None
    counts: dict[str, int] = {}
    for model in env.disk_models.values():
        counts[model] = counts.get(model, 0) + 1
    return ", ".join(f"{n}x {m}" if n > 1 else m for m, n in sorted(counts.items()))


def host_difference(runs: Sequence[RunResult]) -> list[Difference]:
    """The machines, when two runs are known to have run on different ones: each run's
    host name ("nas1 vs nas2"), with its machine id where two machines share a name.
    One machine reached locally and over SSH, or renamed, is one host (RunHost)."""
    hosts = [r.host for r in runs]
    if not any(a.same_machine(b) is False for i, a in enumerate(hosts) for b in hosts[i + 1 :]):
        return []
    shown = tuple(_host_shown(h, hosts) if h.known else None for h in hosts)
    return [Difference("host", shown, DifferenceKind.HOST)]


def _host_shown(host: RunHost, hosts: Sequence[RunHost]) -> str:
    shared = any(
        o.name.lower() == host.name.lower() and o.same_machine(host) is False for o in hosts
    )
    return host.label if shared or not host.name else host.name


def env_differences(runs: Sequence[RunResult]) -> list[Difference]:
    """Environment and target differences, in the comparability panel's order."""
    K = DifferenceKind
    out = host_difference(runs)
    out += _scalar(runs, "fio_version", K.FIO, lambda r: r.env.fio_version)
    out += _scalar(runs, "kernel", K.KERNEL, lambda r: r.env.kernel)
    out += _scalar(runs, "fs_type", K.FILESYSTEM, lambda r: r.env.fs_type or r.target.fs_type)
    out += _scalar(
        runs,
        "mount_options",
        K.FILESYSTEM,
        lambda r: ",".join(r.env.mount_options) if r.env.mount_options else None,
    )
    out += _scalar(runs, "mergerfs_version", K.MERGERFS, lambda r: r.env.mergerfs_version)
    # branches and mount name the pool's own paths: they differ with the target
    out += [
        d
        for d in _mapping(runs, "mergerfs", K.MERGERFS, lambda e: e.mergerfs_options)
        if d.key.removeprefix("mergerfs.") not in _POOL_OWN
    ]
    out += _scalar(runs, "zfs_version", K.ZFS, lambda r: r.env.zfs_version)
    out += _mapping(runs, "zfs", K.ZFS, lambda e: e.zfs_properties)
    out += _scalar(runs, "disk_models", K.DISKS, lambda r: _models(r.env))
    out += _scalar(runs, "target.kind", K.TARGET, lambda r: str(r.target.kind))
    out += _scalar(runs, "target.path", K.TARGET, lambda r: r.target.path)
    return out
