"""Which options of a running mergerfs pool change without a remount, and what differs.

mergerfs takes most of its options at runtime as extended attributes on the pool's
control file (``setxattr MOUNTPOINT/.mergerfs user.mergerfs.KEY VALUE``, its "runtime
config" docs); a few only at mount time (it answers EROFS). Which is which was found by
writing each key's own value back to a mounted mergerfs 2.33.5 here;
tests/integration/test_layout_apply_live.py does it again on the lab NAS so these sets
cannot drift from the release installed.

Only typed, checked values are ever sent: mergerfs 2.33.5 exits on an unknown policy
name written at runtime (``category.create=bogus`` kills the pool) and keeps a garbled
value after rejecting a bad size (``minfreespace=abc`` leaves 4294967295), so the
layout's untyped options (``other``) are never set this way; they take effect at the
next mount from fstab.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..errors import ParseError
from ..units import parse_size
from .model import Branch, PoolSpec
from .outputs import branches_text, typed_options

__all__ = [
    "CONTROL_FILE",
    "COMPARED_KEYS",
    "MEASURED_VERSION",
    "RUNTIME_READ_ONLY",
    "RUNTIME_SETTABLE",
    "XATTR_PREFIX",
    "RuntimeChange",
    "RuntimeDiff",
    "control_path",
    "runtime_diff",
]

XATTR_PREFIX = "user.mergerfs."
CONTROL_FILE = ".mergerfs"
MEASURED_VERSION = "2.33.5"

# Keys as mergerfs 2.33.5 lists them. setxattr of the key's current value: accepted.
RUNTIME_SETTABLE = frozenset({
    "auto_cache", "branches", "cache.attr", "cache.entry", "cache.files",
    "cache.negative_entry", "cache.readdir", "cache.statfs", "category.action",
    "category.create", "category.search", "direct_io", "dropcacheonclose", "follow-symlinks",
    "func.access", "func.chmod", "func.chown", "func.create", "func.getattr",
    "func.getxattr", "func.link", "func.listxattr", "func.mkdir", "func.mknod", "func.open",
    "func.readlink", "func.removexattr", "func.rename", "func.rmdir", "func.setxattr",
    "func.symlink", "func.truncate", "func.unlink", "func.utimens", "ignorepponrename",
    "inodecalc", "kernel_cache", "link-exdev", "link_cow", "log.metrics", "minfreespace",
    "moveonenospc", "nfsopenhack", "posix_acl", "rename-exdev", "security_capability",
    "srcmounts", "statfs", "statfs_ignore", "symlinkify", "symlinkify_timeout", "xattr",
})  # fmt: skip
# ... refused with EROFS: set at mount time only (or facts, like pid and version).
RUNTIME_READ_ONLY = frozenset({
    "async_read", "cache.symlinks", "cache.writeback", "fsname", "fuse_msg_size", "mount",
    "nullrw", "pid", "readdirplus", "threads", "version",
})  # fmt: skip

# What apply compares between the layout and the running pool: the typed options and
# the branch list (the untyped ones are not checked values; see the module doc).
COMPARED_KEYS = ("branches", *(key for key, _ in typed_options(PoolSpec("/").options)))


def control_path(mountpoint: str) -> str:
    return f"{mountpoint.rstrip('/')}/{CONTROL_FILE}"


@dataclass(frozen=True)
class RuntimeChange:
    """``key`` goes from ``before`` (as the pool reports it; None: it reports nothing)
    to ``value`` (the layout's, as fstab spells it)."""

    key: str
    value: str
    before: str | None


@dataclass(frozen=True)
class RuntimeDiff:
    settable: tuple[RuntimeChange, ...]  # set now through the control file
    remount: tuple[RuntimeChange, ...]  # only a mount takes them

    @property
    def empty(self) -> bool:
        return not self.settable and not self.remount


def _same(key: str, wanted: str, live: str) -> bool:
    if key == "minfreespace":
        try:
            return parse_size(wanted, key) == parse_size(live, key)
        except (ParseError, OverflowError, ValueError):
            return False
    if key == "moveonenospc" and wanted == "true":
        return live not in ("false", "0")  # "true" reads back as its policy, "mfs"
    return wanted == live


def runtime_diff(
    pool: PoolSpec, branches: tuple[Branch, ...], live: Mapping[str, str]
) -> RuntimeDiff:
    """What differs between the running pool's ``live`` options (key -> value as its
    xattrs say) and ``pool`` with ``branches``, split by whether mergerfs takes it at
    runtime. A key the pool does not report counts as different."""
    wanted = (("branches", branches_text(branches)), *typed_options(pool.options))
    settable: list[RuntimeChange] = []
    remount: list[RuntimeChange] = []
    for key, value in wanted:
        before = live.get(key)
        if before is not None and _same(key, value, before):
            continue
        change = RuntimeChange(key, value, before)
        (settable if key in RUNTIME_SETTABLE else remount).append(change)
    return RuntimeDiff(tuple(settable), tuple(remount))
