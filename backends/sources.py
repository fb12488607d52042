"""Inventory sources: one adapter per kind of storage, and the registry of them.

A ``Source`` reads one kind of storage (disks, mounts, mergerfs, ZFS, btrfs, md, the
dm/md/bcache stacking) through a ``Host`` and returns its typed part of the
``Inventory`` plus ``SourceNote``s. It declares, rather than lets the caller discover:

* ``name``: who it is. Its failures are noted under this name, and later sources ask
  for its result by it.
* ``needs``: the names of sources whose results it reads (mergerfs and btrfs read the
  mounts). They must come earlier in the registry; ``read`` sees only these.
* ``runs_commands``: whether ``read`` may start external commands (``zpool``,
  ``lsscsi``). ``app/machine/inventory.collect_inventory`` runs such sources in worker threads
  beside the sysfs/procfs readers, so a slow tool never holds up the rest.
* ``part_type``: the type ``read`` returns, as a type expression (``tuple[Disk, ...]``).
  The contract test (tests/unit/backends/test_sources.py) checks every result against it.
* ``fills``: the ``Inventory`` fields the part goes to. One field: the part is the value
  (``"disks"`` <- ``tuple[Disk, ...]``). Several: the part has an attribute of each name
  (the stacking source's ``Stacking`` -> ``dev_names`` and ``slaves``).
* ``empty()``: the part when ``read`` failed, so the section is there, only empty.

``SOURCES`` is the registry, in order: ``collect_inventory`` reads them all, joins their
notes in this order and builds the ``Inventory`` from their parts by field name. Adding
a kind of storage is a backend module, its model (plus an ``Inventory`` field with a
default) and one entry here; see "Where to add things" in docs/architecture.md.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from ..core.errors import TierdeckError
from ..core.models import (
    BtrfsFilesystem,
    Disk,
    Inventory,
    MdArray,
    MergerfsPool,
    Mount,
    SourceNote,
    ZfsInfo,
)
from .btrfs import read_btrfs
from .disks import read_disks
from .host import Host
from .md import read_md
from .mergerfs import read_mergerfs
from .mounts import read_mounts
from .stacking import Stacking, read_stacking
from .zfs.inventory import read_zfs

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)
Notes = tuple[SourceNote, ...]

# Inventory fields that describe the host itself, not a source's part.
HOST_FIELDS = frozenset({"hostname", "kernel", "is_root", "notes"})


class Parts:
    """The results of the sources a source declared in ``needs``, looked up by source.

    ``parts.get(MOUNTS)`` is typed by the source it is given. Asking for a source that
    was not declared raises ``KeyError``: the registry order (and the threads) only
    guarantee what was declared.
    """

    def __init__(self, values: Mapping[str, object] | None = None) -> None:
        self._values: dict[str, object] = dict(values or {})

    def get(self, source: Source[T]) -> T:
        try:
            value = self._values[source.name]
        except KeyError:
            raise KeyError(
                f"{source.name!r} is not among this source's needs: declare it in `needs`"
            ) from None
        return value  # type: ignore[return-value]  # stored under this source's name


class Source(Protocol[T_co]):
    """One kind of storage, read through a Host (see the module docstring)."""

    @property
    def name(self) -> str:
        """Short lower-case name: "disks", "zfs". Used in notes and in ``needs``."""
        ...

    @property
    def part_type(self) -> object:
        """The type expression of the part ``read`` returns (``tuple[Disk, ...]``)."""
        ...

    @property
    def needs(self) -> tuple[str, ...]:
        """Names of earlier sources whose parts ``read`` uses."""
        ...

    @property
    def runs_commands(self) -> bool:
        """True when ``read`` may run external commands (it then runs in a thread)."""
        ...

    @property
    def fills(self) -> tuple[str, ...]:
        """The ``Inventory`` fields this part fills (see the module docstring)."""
        ...

    def read(self, host: Host, parts: Parts) -> tuple[T_co, Notes]:
        """The part and what could not be read, as notes.

        A source says what it could not read in notes and keeps the rest. It may raise
        ``TierdeckError`` (a ``HostError`` such as ``ToolMissing``, ``PermissionDenied``,
        ``ParseError``) or ``OSError`` when nothing of it can be read; then
        ``read_guarded`` gives ``empty()`` and one note with the error. Any other
        exception is a bug and propagates.
        """
        ...

    def empty(self) -> T_co:
        """The part of a source that failed: an empty section (no disks, no pools)."""
        ...


@dataclass(frozen=True)
class ReaderSource(Generic[T]):
    """A ``Source`` made of a reader function and its declarations (every built-in
    source is one). ``fills`` defaults to the source's own name."""

    name: str
    part_type: object
    reader: Callable[[Host, Parts], tuple[T, Notes]]
    make_empty: Callable[[], T]
    needs: tuple[str, ...] = ()
    runs_commands: bool = False
    fills: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.fills:
            object.__setattr__(self, "fills", (self.name,))

    def read(self, host: Host, parts: Parts) -> tuple[T, Notes]:
        return self.reader(host, parts)

    def empty(self) -> T:
        return self.make_empty()


def read_guarded(source: Source[T], host: Host, parts: Parts) -> tuple[T, Notes]:
    """``source.read``, with a failure (TierdeckError, OSError) turned into the empty
    part and a note: one broken tool never hides the other sources."""
    try:
        return source.read(host, parts)
    except (TierdeckError, OSError) as exc:
        return source.empty(), (SourceNote(source.name, str(exc)),)


def inventory_fields(source: Source[T], part: T) -> dict[str, object]:
    """The ``Inventory`` fields a source's part fills, by name."""
    if len(source.fills) == 1:
        return {source.fills[0]: part}
    return {name: getattr(part, name) for name in source.fills}


def check_registry(sources: Iterable[Source[Any]]) -> None:
    """Raise ValueError unless names are unique, every need names an earlier source, and
    every ``Inventory`` field besides the host's own is filled by exactly one source."""
    seen: set[str] = set()
    filled: dict[str, str] = {}
    fields = {f.name for f in dataclasses.fields(Inventory)} - HOST_FIELDS
    for source in sources:
        if source.name in seen:
            raise ValueError(f"two sources are named {source.name!r}")
        for need in source.needs:
            if need not in seen:
                raise ValueError(f"{source.name!r} needs {need!r}, which is not read before it")
        for name in source.fills:
            if name not in fields:
                raise ValueError(
                    f"{source.name!r} fills {name!r}, which is not a field of "
                    "core.models.Inventory (add it there, with a default)"
                )
            if name in filled:
                raise ValueError(f"{name!r} is filled by both {filled[name]!r} and {source.name!r}")
            filled[name] = source.name
        seen.add(source.name)
    if missing := sorted(fields - filled.keys()):
        raise ValueError(f"no source fills Inventory field(s) {', '.join(missing)}")


# --- The built-in sources --------------------------------------------------------------


def _zfs(host: Host, parts: Parts) -> tuple[ZfsInfo, Notes]:
    # ZfsInfo says itself why ZFS is unavailable (the dashboard shows it), so a failure
    # is not a note; a message from a working ZFS (one command failed) is.
    try:
        info = read_zfs(host)
    except (TierdeckError, OSError) as exc:
        return ZfsInfo(available=False, message=str(exc)), ()
    notes = (SourceNote("zfs", info.message),) if info.message and info.available else ()
    return info, notes


DISKS = ReaderSource[tuple[Disk, ...]](
    name="disks",
    part_type=tuple[Disk, ...],
    reader=lambda host, parts: read_disks(host),
    make_empty=tuple,
    runs_commands=True,  # lsscsi, for disks whose SCSI address sysfs does not give
)
MOUNTS = ReaderSource[tuple[Mount, ...]](
    name="mounts",
    part_type=tuple[Mount, ...],
    reader=lambda host, parts: read_mounts(host),
    make_empty=tuple,
)
MERGERFS = ReaderSource[tuple[MergerfsPool, ...]](
    name="mergerfs",
    part_type=tuple[MergerfsPool, ...],
    reader=lambda host, parts: read_mergerfs(host, parts.get(MOUNTS)),
    make_empty=tuple,
    needs=("mounts",),
)
BTRFS = ReaderSource[tuple[BtrfsFilesystem, ...]](
    name="btrfs",
    part_type=tuple[BtrfsFilesystem, ...],
    reader=lambda host, parts: read_btrfs(host, parts.get(MOUNTS)),
    make_empty=tuple,
    needs=("mounts",),
)
MD = ReaderSource[tuple[MdArray, ...]](
    name="md",
    part_type=tuple[MdArray, ...],
    reader=lambda host, parts: read_md(host),
    make_empty=tuple,
)
ZFS = ReaderSource[ZfsInfo](
    name="zfs",
    part_type=ZfsInfo,
    reader=_zfs,
    make_empty=lambda: ZfsInfo(available=False),
    runs_commands=True,  # zpool, zfs
)
STACKING = ReaderSource[Stacking](
    name="stacking",
    part_type=Stacking,
    reader=lambda host, parts: (read_stacking(host, parts.get(DISKS)), ()),
    make_empty=Stacking,
    needs=("disks",),
    fills=("dev_names", "slaves"),
)

# The registry. Notes come out in this order; a source's needs come before it.
SOURCES: tuple[Source[Any], ...] = (DISKS, MOUNTS, MERGERFS, BTRFS, MD, ZFS, STACKING)
