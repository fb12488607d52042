"""A throwaway "lab NAS" on loop files, for tests and for trying tierdeck safely.

Layout under one directory (default /var/tmp/tierdeck-lab)::

    images/cache0.img cache1.img   btrfs raid1 (data and metadata): the fast "cache"
    images/hdd0.img                ext4, throttled to HDD speed through the blkio cgroup
    images/hdd1.img                xfs, throttled the same way
    mnt/cache mnt/hdd0 mnt/hdd1    their mounts
    pool/slow                      mergerfs hdd0:hdd1, create policy mfs
    pool/cached                    mergerfs cache:hdd0:hdd1, create policy ff (the
                                   classic mergerfs "tiered cache": new files land on
                                   the cache branch while it has minfreespace left)
    lab.json                       what has been created so far

``lab.json`` is rewritten (atomically) after every step, so ``lab down`` can undo a
``lab up`` that crashed half-way. ``lab down`` also scans for mounts under the directory
and loop devices backed by its images, in case the state file itself was lost. It only
removes what the lab created: its images, its mount directories and lab.json.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ...backends.host import Host, LiveHost
from ...backends.localfiles import write_atomically
from ...backends.mounts import MOUNTINFO, parse_mountinfo
from ...core.errors import HostError, ToolMissing, ToolTimeout

DEFAULT_LAB_DIR = Path("/var/tmp/tierdeck-lab")
BLKIO_ROOT = "/sys/fs/cgroup/blkio"
REQUIRED_TOOLS = ("losetup", "mkfs.btrfs", "mkfs.ext4", "mkfs.xfs", "mergerfs", "mount", "umount")

# Sizes: btrfs needs >= ~110 MiB per device, xfs >= 300 MiB.
CACHE_IMAGE_MB = 256
HDD_IMAGE_MB = 320
SLOW_MINFREESPACE = "32M"
CACHED_MINFREESPACE = "64M"


class LabError(Exception):
    """lab up / lab down could not do what was asked; the message says why."""


@dataclass(frozen=True)
class HddThrottle:
    read_bps: int = 150 * 1024 * 1024
    write_bps: int = 150 * 1024 * 1024
    read_iops: int = 200
    write_iops: int = 200


@dataclass
class LabState:
    directory: str
    loops: dict[str, str] = field(default_factory=dict)  # image name -> /dev/loopN
    mounts: list[str] = field(default_factory=list)  # mountpoints, in mount order
    throttled: list[str] = field(default_factory=list)  # "7:3" major:minor
    complete: bool = False

    @property
    def path(self) -> Path:
        return Path(self.directory) / "lab.json"

    def save(self) -> None:
        # Atomic: a crash leaves the previous or the new state, never half a file.
        write_atomically(self.path, json.dumps(asdict(self), indent=2))

    @classmethod
    def load(cls, directory: Path) -> LabState | None:
        try:
            data = json.loads((directory / "lab.json").read_text())
        except (OSError, ValueError):
            return None
        return cls(
            directory=str(directory),
            loops=dict(data.get("loops", {})),
            mounts=list(data.get("mounts", [])),
            throttled=list(data.get("throttled", [])),
            complete=bool(data.get("complete", False)),
        )


Progress = Callable[[str], None]


def _run(host: Host, argv: list[str], timeout: float = 120) -> str:
    try:
        proc = host.run(argv, timeout=timeout)
    except ToolMissing as exc:
        raise LabError(f"{argv[0]} is not installed") from exc
    except ToolTimeout as exc:
        raise LabError(f"{' '.join(argv)} did not finish within {timeout:g}s") from exc
    except HostError as exc:
        raise LabError(f"{' '.join(argv)}: {exc}") from exc
    if proc.returncode != 0:
        raise LabError(f"{' '.join(argv)} failed: {proc.stderr.strip() or proc.stdout.strip()}")
    return proc.stdout


def _crash_point(step: str) -> None:
    """Fault injection for the tests: die like a power cut right after ``step``."""
    if os.environ.get("TIERDECK_LAB_CRASH_AFTER") == step:
        os._exit(137)


def check_prerequisites(host: Host) -> None:
    if not host.capabilities.live or not host.is_root:
        raise LabError("the lab NAS needs root on this machine (loop devices, mounts, blkio)")
    missing = [tool for tool in REQUIRED_TOOLS if not host.has_tool(tool)]
    if missing:
        raise LabError(
            f"missing tools: {', '.join(missing)} (scripts/setup.sh installs them as root)"
        )


def _major_minor(host: Host, loop: str) -> str:
    return host.read_text(f"/sys/block/{Path(loop).name}/dev").strip()


def _set_throttle(host: Host, major_minor: str, throttle: HddThrottle | None) -> None:
    values = {
        "blkio.throttle.read_bps_device": throttle.read_bps if throttle else 0,
        "blkio.throttle.write_bps_device": throttle.write_bps if throttle else 0,
        "blkio.throttle.read_iops_device": throttle.read_iops if throttle else 0,
        "blkio.throttle.write_iops_device": throttle.write_iops if throttle else 0,
    }
    for name, value in values.items():
        host.write_text(f"{BLKIO_ROOT}/{name}", f"{major_minor} {value}\n")


@contextmanager
def _step(state: LabState, progress: Progress, message: str, name: str) -> Iterator[None]:
    progress(message)
    yield
    state.save()
    _crash_point(name)


def lab_up(
    directory: Path = DEFAULT_LAB_DIR,
    throttle: HddThrottle | None = HddThrottle(),
    progress: Progress = lambda _msg: None,
    host: Host | None = None,
) -> LabState:
    """Build the lab NAS. On failure, everything built so far is torn down again."""
    host = host or LiveHost()
    check_prerequisites(host)
    directory = directory.resolve()
    existing = LabState.load(directory)
    if existing is not None and (existing.loops or existing.mounts):
        raise LabError(f"a lab already exists in {directory}: run 'tierdeck lab down' first")
    if throttle is not None and not host.exists(f"{BLKIO_ROOT}/blkio.throttle.read_bps_device"):
        raise LabError("no v1 blkio cgroup at /sys/fs/cgroup/blkio: use --no-throttle")
    for sub in ("images", "mnt/cache", "mnt/hdd0", "mnt/hdd1", "pool/slow", "pool/cached"):
        (directory / sub).mkdir(parents=True, exist_ok=True)
    state = LabState(directory=str(directory))
    state.save()
    try:
        _build(host, state, directory, throttle, progress)
    except BaseException:
        progress("lab up failed: tearing down what was built")
        lab_down(directory, progress=progress, host=host)
        raise
    return state


def _build(
    host: Host,
    state: LabState,
    directory: Path,
    throttle: HddThrottle | None,
    progress: Progress,
) -> None:
    images = directory / "images"
    sizes = {"cache0": CACHE_IMAGE_MB, "cache1": CACHE_IMAGE_MB}
    sizes |= {"hdd0": HDD_IMAGE_MB, "hdd1": HDD_IMAGE_MB}
    for name, size_mb in sizes.items():
        with _step(state, progress, f"loop device for {name} ({size_mb} MiB)", f"loop-{name}"):
            image = images / f"{name}.img"
            with open(image, "wb") as fh:
                fh.truncate(size_mb * 1024 * 1024)
            state.loops[name] = _run(host, ["losetup", "--find", "--show", str(image)]).strip()
    loops = state.loops
    with _step(state, progress, "mkfs: btrfs raid1 on cache0+cache1, ext4, xfs", "mkfs"):
        _run(host, ["mkfs.btrfs", "-q", "-f", "-L", "tierdeck-cache", "-d", "raid1", "-m", "raid1",
              loops["cache0"], loops["cache1"]])  # fmt: skip
        _run(host, ["mkfs.ext4", "-q", "-F", "-L", "tierdeck-hdd0", loops["hdd0"]])
        _run(host, ["mkfs.xfs", "-q", "-f", "-L", "td-hdd1", loops["hdd1"]])
    for name, loop in (
        ("cache", loops["cache0"]),
        ("hdd0", loops["hdd0"]),
        ("hdd1", loops["hdd1"]),
    ):
        mountpoint = str(directory / "mnt" / name)
        with _step(state, progress, f"mount {mountpoint}", f"mount-{name}"):
            _run(host, ["mount", loop, mountpoint])
            state.mounts.append(mountpoint)
    if throttle is not None:
        for name in ("hdd0", "hdd1"):
            major_minor = _major_minor(host, loops[name])
            with _step(state, progress, f"throttle {loops[name]} to HDD speed", f"throttle-{name}"):
                _set_throttle(host, major_minor, throttle)
                state.throttled.append(major_minor)
    mnt = directory / "mnt"
    pools = {
        "slow": (f"{mnt}/hdd0=RW:{mnt}/hdd1=RW", "mfs", SLOW_MINFREESPACE),
        "cached": (f"{mnt}/cache=RW:{mnt}/hdd0=RW:{mnt}/hdd1=RW", "ff", CACHED_MINFREESPACE),
    }
    for name, (branches, policy, minfree) in pools.items():
        mountpoint = str(directory / "pool" / name)
        options = f"category.create={policy},minfreespace={minfree},fsname=lab-{name},allow_other"
        with _step(state, progress, f"mergerfs {mountpoint} ({policy})", f"mergerfs-{name}"):
            _run(host, ["mergerfs", "-o", options, branches, mountpoint])
            state.mounts.append(mountpoint)
    state.complete = True
    state.save()
    progress(f"lab NAS is up in {directory}")


def _mounts_under(host: Host, directory: Path) -> list[str]:
    """Mountpoints at or under ``directory``, in the order they were mounted."""
    top = str(directory)
    return [
        m.mountpoint
        for m in parse_mountinfo(host.read_text(MOUNTINFO))
        if m.mountpoint == top or m.mountpoint.startswith(top + "/")
    ]


def backing_file(host: Host, loop: str) -> str | None:
    """The file behind loop device ``loop`` (a name or /dev path), None when detached."""
    try:
        return host.read_text(f"/sys/block/{Path(loop).name}/loop/backing_file").strip()
    except (OSError, HostError):
        return None  # detached, or not a loop device


def _loops_backed_by(host: Host, images: Path) -> list[str]:
    found = []
    for name in host.listdir("/sys/block"):
        backing = backing_file(host, name) if name.startswith("loop") else None
        if backing is not None and backing.startswith(str(images) + "/"):
            found.append(f"/dev/{name}")
    return found


def lab_down(
    directory: Path = DEFAULT_LAB_DIR,
    progress: Progress = lambda _m: None,
    host: Host | None = None,
) -> None:
    """Tear the lab down, whatever state it is in. Safe to run twice."""
    host = host or LiveHost()
    if not host.capabilities.live or not host.is_root:
        raise LabError("the lab NAS needs root on this machine (loop devices, mounts, blkio)")
    directory = directory.resolve()
    state = LabState.load(directory) or LabState(directory=str(directory))
    problems: list[str] = []
    # Newest first (mountinfo lists mounts in the order they were made), so the
    # mergerfs pools go before the filesystems under their branches.
    for point in reversed(_mounts_under(host, directory)):
        progress(f"unmount {point}")
        try:
            _run(host, ["umount", point], timeout=60)
        except LabError:
            try:
                _run(host, ["umount", "-l", point], timeout=60)
            except LabError as exc:
                problems.append(str(exc))
    loops = set(state.loops.values()) | set(_loops_backed_by(host, directory / "images"))
    for major_minor in state.throttled:
        try:
            _set_throttle(host, major_minor, None)
        except (OSError, HostError):
            pass  # the loop may already be gone; then so is its rule
    for loop in sorted(loops):
        attached_to = backing_file(host, loop)
        if attached_to is None:
            continue  # already detached
        if not attached_to.startswith(str(directory / "images") + "/"):
            continue  # the number was reused by someone else: not ours
        progress(f"detach {loop}")
        try:
            _run(host, ["losetup", "-d", loop])
        except LabError as exc:
            problems.append(str(exc))
    if problems:
        raise LabError("lab down left something behind: " + "; ".join(problems))
    for name in ("cache0", "cache1", "hdd0", "hdd1"):
        (directory / "images" / f"{name}.img").unlink(missing_ok=True)
    for sub in ("images", "mnt/cache", "mnt/hdd0", "mnt/hdd1", "mnt", "pool/slow",
                "pool/cached", "pool"):  # fmt: skip
        try:
            (directory / sub).rmdir()
        except OSError:
            pass  # not empty or not there: not ours to remove
    (directory / "lab.json").unlink(missing_ok=True)
    try:
        directory.rmdir()
    except OSError:
        pass
    progress("lab NAS is down")


def lab_status(directory: Path = DEFAULT_LAB_DIR) -> LabState | None:
    return LabState.load(directory.resolve())


def lab_status_dict(state: LabState) -> dict[str, object]:
    """``lab status --json``: the keys it has always printed."""
    return {"directory": state.directory, "complete": state.complete, "loops": state.loops,
            "mounts": state.mounts}  # fmt: skip


def lab_status_text(state: LabState) -> str:
    """``lab status`` for a person: what the lab has, one thing a line."""
    if state.complete:
        head = f"lab NAS in {state.directory}: complete"
    else:
        head = f"lab NAS in {state.directory}: half built (lab up stopped); lab down removes it"
    lines = [head]
    width = max((len(name) for name in state.loops), default=0)
    lines += [f"  loop   {name:<{width}}  {dev}" for name, dev in sorted(state.loops.items())]
    lines += [f"  mount  {point}" for point in state.mounts]
    if state.throttled:
        lines.append(f"  HDD throttle on {', '.join(state.throttled)} (major:minor)")
    if not state.loops and not state.mounts:
        lines.append("  nothing created yet")
    return "\n".join(lines)
