"""Mounted filesystems, from ``/proc/self/mountinfo``, with df-style capacity.

mountinfo (proc(5)) has one line per mount::

    36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
    (1)(2) (3)  (4)   (5)     (6)       (7)   (8) (9)    (10)         (11)

Field 7 is zero or more optional fields ("shared:1", "master:1"), ended by the lone
"-" of field 8. The kernel escapes space, tab, newline and backslash in paths as
``\\040 \\011 \\012 \\134``; we unescape root, mountpoint and source.

Capacity comes from ``statvfs`` like df: used = size - free (free to root), avail =
free to users. statvfs on a hung NFS/CIFS server (or a wedged FUSE daemon) blocks
forever in the kernel, so for those types the call runs in a daemon thread and we give
up after a short timeout, leaving the size unknown and saying so in a note.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import TypeVar

from ..core.errors import HostError, ParseError
from ..core.models import Mount, SourceNote
from .host import FsUsage, Host

MOUNTINFO = "/proc/self/mountinfo"
NETWORK_STATVFS_TIMEOUT = 2.0
T = TypeVar("T")

# Kernel-internal filesystems that say nothing about storage. tmpfs, ramfs, overlay and
# squashfs stay: they hold data an admin may well benchmark or wonder about.
PSEUDO_FS_TYPES = frozenset(
    {
        "proc",
        "sysfs",
        "cgroup",
        "cgroup2",
        "devpts",
        "mqueue",
        "debugfs",
        "tracefs",
        "securityfs",
        "pstore",
        "bpf",
        "configfs",
        "fusectl",
        "hugetlbfs",
        "autofs",
        "binfmt_misc",
        "efivarfs",
        "nsfs",
        "rpc_pipefs",
        "selinuxfs",
        "devtmpfs",
        "fuse.gvfsd-fuse",
    }
)

NETWORK_FS_TYPES = frozenset(
    {"nfs", "nfs4", "cifs", "smb3", "smbfs", "fuse.sshfs", "9p", "ceph", "glusterfs"}
)

_ESCAPE_RE = re.compile(r"\\([0-7]{3})")
_MAJOR_MINOR_RE = re.compile(r"^[0-9]{1,10}:[0-9]{1,10}$")
_INT_RE = re.compile(r"^[0-9]{1,20}$")


def unescape(field: str) -> str:
    """``/mnt/my\\040disk`` -> ``/mnt/my disk`` (the kernel's octal escapes)."""
    return _ESCAPE_RE.sub(lambda m: chr(int(m.group(1), 8)), field)


def _parse_line(line: str) -> Mount:
    # Split on single spaces, not runs of whitespace: an empty source ("") is legal and
    # shows up as two spaces in a row.
    fields = line.split(" ")
    try:
        sep = fields.index("-", 6)
    except ValueError:
        raise ParseError("mountinfo", "no ' - ' separator", line) from None
    if len(fields) - sep < 4:
        raise ParseError("mountinfo", "expected fstype, source and options after ' - '", line)
    mount_id, parent_id, major_minor, root, mountpoint, options = fields[:6]
    if not (_INT_RE.match(mount_id) and _INT_RE.match(parent_id)):
        raise ParseError("mountinfo", "mount ids are not numbers", line)
    if not _MAJOR_MINOR_RE.match(major_minor):
        raise ParseError("mountinfo", "bad major:minor", line)
    fs_type, source = fields[sep + 1], fields[sep + 2]
    # Older cifs printed its "unc=\\srv\share name" option without escaping spaces;
    # everything after the source is the super options, spaces and all.
    super_options = " ".join(fields[sep + 3 :])
    if not fs_type or not mountpoint.startswith("/"):
        raise ParseError("mountinfo", "missing filesystem type or mountpoint", line)
    return Mount(
        mount_id=int(mount_id),
        parent_id=int(parent_id),
        major_minor=major_minor,
        root=unescape(root),
        mountpoint=unescape(mountpoint),
        fs_type=fs_type,
        source=unescape(source),
        options=tuple(options.split(",")),
        super_options=tuple(super_options.split(",")) if super_options else (),
    )


def parse_mountinfo(text: str) -> tuple[Mount, ...]:
    """Every mount in mountinfo text, in kernel order. Raises ParseError on a bad line."""
    return tuple(_parse_line(line) for line in text.splitlines() if line.strip())


def may_hang(fs_type: str) -> bool:
    """True for filesystems whose statvfs can block for minutes: network filesystems,
    and FUSE (a stuck daemon, or mergerfs over a dead NFS branch)."""
    return fs_type in NETWORK_FS_TYPES or fs_type.startswith("fuse.")


def mount_for_path(mounts: tuple[Mount, ...], path: str) -> Mount | None:
    """The mount holding ``path``: the longest mountpoint prefix (the last one mounted
    wins when two are stacked on the same directory)."""
    best: Mount | None = None
    for mount in mounts:
        mp = mount.mountpoint.rstrip("/") or "/"
        inside = path == mp or path.startswith(mp + "/") or mp == "/"
        if inside and (best is None or len(mp) >= len(best.mountpoint.rstrip("/") or "/")):
            best = mount
    return best


# Calls still stuck in the kernel, by (host, what): a later refresh does not pile up
# another thread behind a server that has not answered the first one.
_stuck: dict[tuple[int, str], threading.Thread] = {}
_stuck_lock = threading.Lock()


def call_with_timeout(host: Host, what: str, call: Callable[[], T], timeout: float) -> T:
    """``call()`` in a daemon thread. Raises TimeoutError if it does not return within
    ``timeout`` seconds (the thread is left behind: a syscall cannot be cancelled)."""
    key = (id(host), what)
    with _stuck_lock:
        previous = _stuck.get(key)
        if previous is not None and previous.is_alive():
            raise TimeoutError(f"{what}: an earlier call has still not returned")
    result: list[T] = []
    error: list[BaseException] = []

    def run() -> None:
        try:
            result.append(call())
        except BaseException as exc:  # noqa: BLE001 - handed back to the caller
            error.append(exc)

    # A daemon thread, not an executor: executor workers are joined at interpreter exit,
    # so one hung NFS call would keep tierdeck from quitting.
    worker = threading.Thread(target=run, name=what, daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        with _stuck_lock:
            _stuck[key] = worker
        raise TimeoutError(f"{what}: no answer within {timeout:g}s")
    with _stuck_lock:
        _stuck.pop(key, None)
    if error:
        raise error[0]
    return result[0]


def statvfs_with_timeout(host: Host, path: str, timeout: float) -> FsUsage:
    """host.statvfs that gives up after ``timeout`` seconds (TimeoutError)."""
    return call_with_timeout(host, f"statvfs {path}", lambda: host.statvfs(path), timeout)


def usage(
    host: Host, path: str, fs_type: str, timeout: float = NETWORK_STATVFS_TIMEOUT
) -> tuple[FsUsage | None, str | None]:
    """statvfs of ``path`` or (None, why). Never raises for an unreadable filesystem."""
    try:
        if may_hang(fs_type):
            return statvfs_with_timeout(host, path, timeout), None
        return host.statvfs(path), None
    except TimeoutError as exc:
        return None, f"{exc} (hung {fs_type} server?)"
    except (OSError, HostError) as exc:
        return None, f"statvfs {path}: {exc}"


def read_mounts(
    host: Host, *, network_timeout: float = NETWORK_STATVFS_TIMEOUT
) -> tuple[tuple[Mount, ...], tuple[SourceNote, ...]]:
    """Real (non-pseudo) mounts with size/used/avail filled where statvfs answers."""
    try:
        text = host.read_text(MOUNTINFO)
    except (OSError, HostError) as exc:
        return (), (SourceNote("mounts", f"cannot read {MOUNTINFO}: {exc}"),)
    mounts: list[Mount] = []
    notes: list[SourceNote] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            mount = _parse_line(line)
        except ParseError as exc:
            notes.append(SourceNote("mounts", str(exc)))
            continue
        if mount.fs_type in PSEUDO_FS_TYPES:
            continue
        fs, why = usage(host, mount.mountpoint, mount.fs_type, network_timeout)
        if fs is None:
            notes.append(SourceNote(f"mount {mount.mountpoint}", why or "statvfs failed"))
        else:
            mount = replace(
                mount,
                size_bytes=fs.size_bytes,
                used_bytes=fs.used_bytes,
                avail_bytes=fs.avail_bytes,
            )
        mounts.append(mount)
    return tuple(mounts), tuple(notes)
