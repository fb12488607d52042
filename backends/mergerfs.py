"""mergerfs pools, from the runtime control file ``<mountpoint>/.mergerfs``.

mergerfs exposes every option as an extended attribute ``user.mergerfs.<key>`` on that
pseudo file (see its "runtime interface" docs). What we read:

* ``branches``: ``/mnt/a=RW:/mnt/b=RO,100G:/mnt/c=NC``, colon-separated; after the last
  ``=`` comes the mode (RW, RO, NC) and optionally ``,`` and a per-branch minfreespace.
  mergerfs 2.33 prints that minfreespace as it was given ("2G"); newer ones may print
  bytes. Releases before ``branches`` existed only have ``srcmounts`` (paths only, all
  RW).
* ``minfreespace``: a byte count ("1073741824"); size suffixes are accepted as well.
* ``category.create`` (or ``func.create``): the create policy.
* ``version``, ``fsname``, and the rest, kept in ``MergerfsPool.options``.

**Key spelling is normalised to "-".** mergerfs 2.33 lists ``cache.negative_entry``,
``async_read``, ``statfs_ignore`` ... (with a few "-" keys like ``follow-symlinks``
already), while newer releases list ``cache.negative-entry``, ``async-read``,
``statfs-ignore``. mergerfs itself treats both spellings alike (its ``Config::get``
replaces "_" with "-" before the lookup), so we do the same: every key in
``options`` is spelled with "-", whatever the release printed.

A pool whose control file cannot be read (non-root on a pool without ``allow_other``,
``xattr=nosys``, a dead FUSE daemon) is still returned, with ``error`` saying why and no
branches: the mount exists and the user should see it.
"""

from __future__ import annotations

from dataclasses import replace

from ..core.errors import HostError, ParseError, PermissionDenied
from ..core.models import BranchMode, MergerfsBranch, MergerfsPool, Mount, SourceNote
from ..core.units import parse_size
from .host import Host
from .mounts import NETWORK_STATVFS_TIMEOUT, call_with_timeout, mount_for_path, usage

PREFIX = "user.mergerfs."
FS_TYPE = "fuse.mergerfs"
CONTROL_TIMEOUT = NETWORK_STATVFS_TIMEOUT
# Read even when listxattr leaves them out (some releases hid keys from the listing).
_ESSENTIAL_KEYS = ("branches", "srcmounts", "version", "minfreespace", "category.create")


def normalise_key(key: str) -> str:
    """``cache.negative_entry`` -> ``cache.negative-entry`` (see the module docstring)."""
    return key.replace("_", "-")


def _size(text: str, what: str) -> int:
    try:
        return parse_size(text, what)
    except (OverflowError, ValueError) as exc:  # "9"*400 overflows float -> int
        raise ParseError(what, f"not a size: {text[:40]!r}") from exc


def parse_branches(text: str) -> tuple[MergerfsBranch, ...]:
    """``/a=RW,2G:/b=RO:/c`` -> branches in pool order. Raises ParseError on garbage."""
    text = text.strip()
    if not text:
        return ()  # a pool whose branches were all removed at runtime
    branches: list[MergerfsBranch] = []
    for entry in text.split(":"):
        # mergerfs splits on the *last* "=": a path may contain "=" itself.
        path, eq, opts = entry.rpartition("=")
        if not eq:
            path, opts = entry, ""
        if not path.startswith("/"):
            raise ParseError("mergerfs branches", "branch path is not absolute", entry)
        mode = BranchMode.RW
        minfree: int | None = None
        if eq:
            parts = opts.split(",")
            if len(parts) > 2:
                raise ParseError("mergerfs branches", "too many branch options", entry)
            try:
                mode = BranchMode(parts[0].strip().upper())
            except ValueError:
                raise ParseError("mergerfs branches", "mode is not RW/RO/NC", entry) from None
            if len(parts) == 2:
                minfree = _size(parts[1], "mergerfs branch minfreespace")
        branches.append(MergerfsBranch(path=path, mode=mode, minfreespace_bytes=minfree))
    return tuple(branches)


def _read_options(host: Host, ctrl: str) -> dict[str, str]:
    names = [n for n in host.listxattr(ctrl) if n.startswith(PREFIX)]
    wanted = names + [PREFIX + k for k in _ESSENTIAL_KEYS if PREFIX + k not in names]
    options: dict[str, str] = {}
    for name in wanted:
        try:
            value = host.getxattr(ctrl, name)
        except KeyError:
            continue  # absent in this release
        options[normalise_key(name[len(PREFIX) :])] = value
    return options


def _control_error(ctrl: str, exc: Exception) -> str:
    if isinstance(exc, PermissionDenied):
        return f"cannot read {ctrl}: permission denied (run as root to see branches and options)"
    if isinstance(exc, FileNotFoundError):
        return f"cannot read {ctrl}: no such control file (mergerfs too old, or xattr=nosys)"
    return f"cannot read {ctrl}: {exc}"


def _read_pool(
    host: Host, mount: Mount, mounts: tuple[Mount, ...]
) -> tuple[MergerfsPool, list[SourceNote]]:
    mp = mount.mountpoint
    source = f"mergerfs {mp}"
    ctrl = mp.rstrip("/") + "/.mergerfs"
    # The mount's own statvfs was already taken by read_mounts (with the hang guard):
    # reuse it rather than asking a possibly stuck pool twice.
    pool = MergerfsPool(
        mountpoint=mp,
        fsname=mount.source,
        version=None,
        branches=(),
        options={},
        create_policy=None,
        minfreespace_bytes=None,
        size_bytes=mount.size_bytes,
        avail_bytes=mount.avail_bytes,
    )
    try:
        # A stuck mergerfs (or one over a dead NFS branch) blocks xattr calls too.
        options = call_with_timeout(
            host, f"xattrs {ctrl}", lambda: _read_options(host, ctrl), CONTROL_TIMEOUT
        )
    except TimeoutError:
        hung = f"{ctrl} did not answer within {CONTROL_TIMEOUT:g}s (mergerfs hung?)"
        return replace(pool, error=hung), []
    except (OSError, HostError) as exc:
        return replace(pool, error=_control_error(ctrl, exc)), []
    notes: list[SourceNote] = []
    error: str | None = None
    try:
        if "branches" in options:
            branches = parse_branches(options["branches"])
        else:
            srcmounts = options.get("srcmounts", "")
            branches = tuple(
                MergerfsBranch(path=p, mode=BranchMode.RW, minfreespace_bytes=None)
                for p in srcmounts.split(":")
                if p
            )
    except ParseError as exc:
        branches, error = (), str(exc)
    minfree: int | None = None
    if "minfreespace" in options:
        try:
            minfree = _size(options["minfreespace"], "mergerfs minfreespace")
        except ParseError as exc:
            notes.append(SourceNote(source, str(exc)))
    sized: list[MergerfsBranch] = []
    for branch in branches:
        holder = mount_for_path(mounts, branch.path)
        fs, why = usage(host, branch.path, holder.fs_type if holder else "")
        if fs is None:
            notes.append(SourceNote(source, f"branch {branch.path}: {why}"))
            sized.append(branch)
        else:
            sized.append(replace(branch, size_bytes=fs.size_bytes, avail_bytes=fs.avail_bytes))
    pool = MergerfsPool(
        mountpoint=mp,
        fsname=options.get("fsname") or mount.source,
        version=options.get("version"),
        branches=tuple(sized),
        options=options,
        create_policy=options.get("category.create") or options.get("func.create"),
        minfreespace_bytes=minfree,
        size_bytes=mount.size_bytes,
        avail_bytes=mount.avail_bytes,
        error=error,
    )
    return pool, notes


def read_mergerfs(
    host: Host, mounts: tuple[Mount, ...]
) -> tuple[tuple[MergerfsPool, ...], tuple[SourceNote, ...]]:
    """One MergerfsPool per fuse.mergerfs mount, in mount order. Never raises for an
    unreadable pool: it comes back with ``error`` set."""
    pools: list[MergerfsPool] = []
    notes: list[SourceNote] = []
    for mount in mounts:
        if mount.fs_type != FS_TYPE:
            continue
        pool, pool_notes = _read_pool(host, mount, mounts)
        pools.append(pool)
        notes.extend(pool_notes)
    return tuple(pools), tuple(notes)
