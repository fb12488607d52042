"""mergerfs options for the ladder's throwaway pools, and the option sweep's values.

A throwaway pool is mounted with the options the real pool runs with, as its
``.mergerfs`` xattrs report them (``MergerfsPool.options``, keys normalised to "-"),
turned back into what ``mergerfs -o`` accepts at mount time. mergerfs 2.33.5 refuses a
key spelled with "-" where it lists "_" (``fuse: unknown option
`cache.negative-entry=7'``: checked here), so keys are respelled as that release lists
them (``core/layout/runtime``'s sets), and any key it does not know is left out (and
reported) rather than failing the mount. Left out on purpose: what names or identifies
a pool (fsname, mount, pid, version, branches, srcmounts) and the ``category.*``
shorthands, whose ``func.*`` values are passed one by one.

``--option NAME=V1,V2`` values are checked here against what mergerfs 2.33 accepts for
the options its benchmarking guide names (cache.files, direct_io, async_read ...);
anything else is refused before a pool is mounted, since mergerfs exits on a bad value.
Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..errors import ParseError, TierdeckError
from ..layout.runtime import RUNTIME_READ_ONLY, RUNTIME_SETTABLE
from ..mergerfs_policy import CreatePolicy
from ..units import parse_size

# The 2.33.5 spelling of every key, by its normalised ("-") spelling.
_SPELLING = {key.replace("_", "-"): key for key in RUNTIME_SETTABLE | RUNTIME_READ_ONLY}
_NOT_PASSED = frozenset({"fsname", "mount", "pid", "version", "branches", "srcmounts"})
_CATEGORIES = ("category.action", "category.create", "category.search")
THROWAWAY_FSNAME = "tierdeck-throwaway"


def _normal(key: str) -> str:
    return key.replace("_", "-")


@dataclass(frozen=True)
class MountOptions:
    """``pairs`` for ``mergerfs -o``, in order (a later key overrides an earlier one),
    and the pool's keys that were not passed because this mergerfs would refuse them."""

    pairs: tuple[tuple[str, str], ...]
    dropped: tuple[str, ...] = ()

    def text(self) -> str:
        return ",".join(f"{key}={value}" for key, value in self.pairs)

    def with_option(self, key: str, value: str) -> MountOptions:
        """The same options with ``key`` set to ``value`` (replacing the pool's)."""
        spelled = _SPELLING.get(_normal(key), key)
        kept = tuple((k, v) for k, v in self.pairs if _normal(k) != _normal(spelled))
        return MountOptions((*kept, (spelled, value)), self.dropped)


def pool_mount_options(options: Mapping[str, str]) -> MountOptions:
    """A running pool's xattr options as mount options for a throwaway copy of it."""
    pairs: list[tuple[str, str]] = []
    dropped: list[str] = []
    for key in sorted(options):
        value = options[key]
        normal = _normal(key)
        if normal in _NOT_PASSED or normal in _CATEGORIES or value == "":
            continue
        spelled = _SPELLING.get(normal)
        if spelled is None or "," in value:
            dropped.append(key)  # unknown to mergerfs 2.33, or would split the -o list
            continue
        pairs.append((spelled, value))
    pairs.append(("fsname", THROWAWAY_FSNAME))
    return MountOptions(tuple(pairs), tuple(dropped))


# ------------------------------------------------------------------ the option sweep

_BOOL = ("true", "false")
# mergerfs 2.33's accepted values (its docs and src/config_*.cpp enums); None: a size.
SWEEPABLE: Mapping[str, tuple[str, ...] | None] = {
    "cache.files": ("libfuse", "off", "partial", "full", "auto-full", "per-process"),
    "direct_io": _BOOL,
    "async_read": _BOOL,
    "kernel_cache": _BOOL,
    "auto_cache": _BOOL,
    "cache.writeback": _BOOL,
    "cache.readdir": _BOOL,
    "readdirplus": _BOOL,
    "dropcacheonclose": _BOOL,
    "link_cow": _BOOL,
    "nullrw": _BOOL,
    "threads": tuple(str(n) for n in range(0, 65)),
    "cache.attr": tuple(str(n) for n in range(0, 3601)),
    "cache.entry": tuple(str(n) for n in range(0, 3601)),
    "cache.statfs": tuple(str(n) for n in range(0, 3601)),
    "fuse_msg_size": tuple(str(n) for n in range(1, 257)),
    "category.create": tuple(p.value for p in CreatePolicy),
    "func.create": tuple(p.value for p in CreatePolicy),
    "minfreespace": None,
}
MAX_OPTION_VALUES = 8


class OptionSweepError(TierdeckError):
    """An ``--option`` tierdeck refuses; the message names the option or value."""


@dataclass(frozen=True)
class OptionSweep:
    name: str  # as mergerfs 2.33 spells it
    values: tuple[str, ...]


def parse_option_sweep(text: str) -> OptionSweep:
    """``cache.files=off,partial,auto-full`` -> OptionSweep; raises OptionSweepError."""
    name, eq, rest = text.partition("=")
    name = name.strip()
    if not eq or not name:
        raise OptionSweepError(f"--option {text!r}: write NAME=V1,V2 (cache.files=off,partial)")
    spelled = _SPELLING.get(_normal(name), name)
    if spelled not in SWEEPABLE:
        known = ", ".join(sorted(SWEEPABLE))
        raise OptionSweepError(f"--option: tierdeck cannot sweep {name!r}; it can sweep: {known}")
    values = tuple(v.strip() for v in rest.split(","))
    if not values or any(not v for v in values):
        raise OptionSweepError(f"--option {spelled}: an empty value in {rest!r}")
    if len(set(values)) != len(values):
        raise OptionSweepError(f"--option {spelled}: a value is given twice in {rest!r}")
    if len(values) > MAX_OPTION_VALUES:
        raise OptionSweepError(f"--option {spelled}: at most {MAX_OPTION_VALUES} values")
    allowed = SWEEPABLE[spelled]
    for value in values:
        if allowed is None:
            try:
                parse_size(value, spelled)
            except (ParseError, OverflowError, ValueError):
                raise OptionSweepError(
                    f"--option {spelled}: {value!r} is not a size (4G, 100M)"
                ) from None
        elif value not in allowed:
            shown = ", ".join(allowed) if len(allowed) <= 20 else f"{allowed[0]}..{allowed[-1]}"
            raise OptionSweepError(f"--option {spelled}: {value!r} is not one of {shown}")
    return OptionSweep(spelled, values)


def tmpfs_size_bytes(planned_bytes: int) -> int:
    """A tmpfs for the job's files: their total plus a margin for fio's own layout
    (a tenth, at least 16 MiB), rounded up to whole MiB."""
    mib = 1024 * 1024
    wanted = planned_bytes + max(16 * mib, planned_bytes // 10)
    return -(-wanted // mib) * mib


def branches_arg(paths: Sequence[str]) -> str:
    return ":".join(f"{p}=RW" for p in paths)
