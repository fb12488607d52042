"""What a layout becomes on the machine: fstab lines, systemd units, the mover's timer
and, when the layout asks for one, the health check's timer.

Pure text from a Layout; apply (a later step) writes it. The mergerfs options are
spelled as mergerfs 2.33 reads them (``category.create=``, ``minfreespace=300G`` ...),
branches as ``path=MODE`` joined with ``:``. Unit file names follow
``systemd-escape --path --suffix=mount`` (systemd 252's unit_name_path_escape), because
systemd ignores a mount unit whose name does not match its ``Where=``;
tests/unit/core/layout/test_layout_outputs.py compares with the real binary.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from ..errors import TierdeckError
from .destination import destination_of
from .model import Branch, HealthTimer, Layout, PoolOptions, PoolSpec

__all__ = [
    "DEFAULT_LAYOUT_PATH",
    "LayoutOutputs",
    "OutputError",
    "branches_text",
    "escape_path",
    "fstab_line",
    "health_unit_names",
    "layout_outputs",
    "mergerfs_size",
    "mount_unit_name",
    "pool_options_text",
    "typed_options",
]

# Where the mover's service reads the layout when the user saved it nowhere else.
DEFAULT_LAYOUT_PATH = "/etc/tierdeck/layout.toml"

_UNIT_NAME_MAX = 255  # systemd's UNIT_NAME_MAX is 256 with the NUL
_NAME_MAX = 255  # one path component (systemd-escape refuses longer ones)
_VALID = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:_.")
_HEADER = "# Written by tierdeck from a layout (tierdeck.layout/1); tierdeck layout apply\n"


class OutputError(TierdeckError):
    """A layout that cannot be written as fstab or units (a path systemd cannot name,
    a branch mergerfs would split); ``path`` is the one at fault."""

    def __init__(self, path: str, detail: str) -> None:
        super().__init__(f"{path!r}: {detail}")
        self.path = path
        self.detail = detail


# -- systemd names ---------------------------------------------------------------------
def _simplify(path: str) -> str:
    """systemd's path_simplify: no doubled slashes, no ``.`` components, no trailing
    slash; ``..`` is kept (and refused by the caller, as systemd-escape does)."""
    parts = [p for p in path.split("/") if p and p != "."]
    return "/" + "/".join(parts)


def escape_path(path: str) -> str:
    """``systemd-escape --path PATH``: ``/mnt/slow-storage`` -> ``mnt-slow\\x2dstorage``."""
    if not path.startswith("/"):
        raise OutputError(path, "not an absolute path")
    simple = _simplify(path)
    parts = simple.strip("/").split("/")
    if ".." in parts:
        raise OutputError(path, "not a normalized path (it has '..')")
    if any(len(p.encode()) > _NAME_MAX for p in parts):
        raise OutputError(path, "a folder name longer than 255 bytes")
    if simple == "/":
        return "-"
    out: list[str] = []
    for i, byte in enumerate(simple.strip("/").encode()):
        char = chr(byte)
        if char == "/":
            out.append("-")
        elif char in _VALID and not (i == 0 and char == "."):
            out.append(char)
        else:  # "-" too: it would read back as "/"
            out.append(f"\\x{byte:02x}")
    return "".join(out)


def _unit_name(stem: str, suffix: str, path: str) -> str:
    name = f"{stem}.{suffix}"
    if len(name) > _UNIT_NAME_MAX:
        raise OutputError(path, f"its unit name would be {len(name)} characters (systemd: 255)")
    return name


def mount_unit_name(mountpoint: str) -> str:
    """``systemd-escape --path --suffix=mount MOUNTPOINT``."""
    return _unit_name(escape_path(mountpoint), "mount", mountpoint)


def _mover_stem(layout: Layout) -> str:
    return f"tierdeck-mover-{escape_path(layout.tiered_pool.mountpoint)}"


def health_unit_names(layout: Layout) -> tuple[str, str]:
    """The health check's service and timer names for ``layout``'s pool, whether it has
    a health timer or not (apply removes those an earlier apply left when it has none).
    One per layout, as the mover's: its check reads that layout's cache fill and mover."""
    stem = f"tierdeck-health-{escape_path(layout.tiered_pool.mountpoint)}"
    mountpoint = layout.tiered_pool.mountpoint
    return _unit_name(stem, "service", mountpoint), _unit_name(stem, "timer", mountpoint)


# -- mergerfs options ------------------------------------------------------------------
_SIZE_SUFFIXES = (("T", 1024**4), ("G", 1024**3), ("M", 1024**2), ("K", 1024))


def mergerfs_size(n: int) -> str:
    """Bytes in mergerfs's notation, in the largest unit that is exact: ``300G``, ``4G``,
    ``1536M``; plain bytes otherwise (mergerfs reads a bare number as bytes)."""
    for suffix, unit in _SIZE_SUFFIXES:
        if n and n % unit == 0:
            return f"{n // unit}{suffix}"
    return str(n)


def _flag(value: bool) -> str:
    return "true" if value else "false"


def typed_options(options: PoolOptions) -> tuple[tuple[str, str], ...]:
    """The typed options as mergerfs keys and values (fstab's spelling; apply sets the
    same values at runtime through the pool's xattrs)."""
    move = options.moveonenospc
    return (
        ("category.create", str(options.create)),
        ("minfreespace", mergerfs_size(options.minfreespace_bytes)),
        ("moveonenospc", _flag(move) if isinstance(move, bool) else str(move)),
        ("cache.files", str(options.cache_files)),
        ("dropcacheonclose", _flag(options.dropcacheonclose)),
        ("fsname", options.fsname),
    )


def pool_options_text(options: PoolOptions) -> str:
    """The options field: the untyped options as written, then the typed ones."""
    typed = [f"{key}={value}" for key, value in typed_options(options)]
    return ",".join([*options.other, *typed])


def branches_text(branches: tuple[Branch, ...]) -> str:
    """``/mnt/cache=RW:/mnt/disk1=NC``. mergerfs splits the list on ``:`` and a branch
    on its last ``=``, so a path holding ``:`` cannot be listed at all."""
    for b in branches:
        if ":" in b.path:
            raise OutputError(b.path, "mergerfs separates branches with ':'")
    return ":".join(f"{b.path}={b.mode}" for b in branches)


# -- fstab -----------------------------------------------------------------------------
def _fstab_field(text: str) -> str:
    # fstab splits on blanks; libmount decodes these octal escapes (fstab(5)).
    for char, code in (("\\", "\\134"), (" ", "\\040"), ("\t", "\\011"), ("\n", "\\012")):
        text = text.replace(char, code)
    return text


def fstab_line(pool: PoolSpec, branches: tuple[Branch, ...]) -> str:
    fields = (branches_text(branches), pool.mountpoint, "fuse.mergerfs",
              pool_options_text(pool.options))  # fmt: skip
    return " ".join(_fstab_field(f) for f in fields) + " 0 0"


# -- systemd units ---------------------------------------------------------------------
def _unit_value(text: str) -> str:
    # systemd expands %-specifiers in these settings; a literal % is written %%.
    return text.replace("%", "%%")


def _unit_word(path: str) -> str:
    """One path in a space-separated setting (RequiresMountsFor=, ExecStart=): quoted
    when it holds anything systemd's word splitting would take apart."""
    text = _unit_value(path)
    if any(c in text for c in " \t\"\\'$;"):
        escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("$", "$$")
        return f'"{escaped}"'
    return text


def _mount_unit(pool: PoolSpec, branches: tuple[Branch, ...], what: str) -> str:
    needs = " ".join(_unit_word(b.path) for b in branches)
    return (
        f"{_HEADER}"
        "[Unit]\n"
        f"Description=tierdeck {what} {_unit_value(pool.mountpoint)} (mergerfs)\n"
        f"RequiresMountsFor={needs}\n"
        "\n"
        "[Mount]\n"
        f"What={_unit_value(branches_text(branches))}\n"
        f"Where={_unit_value(posixpath.normpath(pool.mountpoint))}\n"
        "Type=fuse.mergerfs\n"
        f"Options={_unit_value(pool_options_text(pool.options))}\n"
        "\n"
        "[Install]\n"
        "WantedBy=local-fs.target\n"
    )


def _mover_service(layout: Layout, command: tuple[str, ...], layout_path: str) -> str:
    mover = layout.mover
    # The mover writes to the slow branches directly, not through the slow pool: those
    # are the mounts it needs (an unmounted branch would take files onto the root disk).
    needs = " ".join(_unit_word(p) for p in (*mover.source, *destination_of(layout).branches))
    exec_start = " ".join(
        _unit_word(w) for w in (*command, "mover", "run", "--layout", layout_path)
    )
    return (
        f"{_HEADER}"
        "[Unit]\n"
        f"Description=tierdeck mover: cache branches of "
        f"{_unit_value(layout.tiered_pool.mountpoint)} to {_unit_value(mover.destination)}\n"
        f"RequiresMountsFor={needs}\n"
        "\n"
        "[Service]\n"
        "Type=oneshot\n"
        f"ExecStart={exec_start}\n"
        # Moving is background work: it must not slow the pool's readers down.
        "Nice=19\n"
        "IOSchedulingClass=idle\n"
    )


def _mover_timer(layout: Layout) -> str:
    return (
        f"{_HEADER}"
        "[Unit]\n"
        f"Description=tierdeck mover for {_unit_value(layout.tiered_pool.mountpoint)}, "
        f"{_unit_value(layout.mover.schedule)}\n"
        "\n"
        "[Timer]\n"
        f"OnCalendar={_unit_value(layout.mover.schedule)}\n"
        # A run missed while the machine was off happens at the next boot.
        "Persistent=true\n"
        "\n"
        "[Install]\n"
        "WantedBy=timers.target\n"
    )


def _health_service(
    layout: Layout, health: HealthTimer, command: tuple[str, ...], layout_path: str
) -> str:
    words = [*command, "check", "--layout", layout_path, "--keep-readings"]
    if health.prometheus is not None:
        words += ["--prometheus", health.prometheus]
    textfile = (f"; the figures to {_unit_value(health.prometheus)}"
                if health.prometheus is not None else "")  # fmt: skip
    return (
        f"{_HEADER}"
        "[Unit]\n"
        "Description=tierdeck health check: disks, pools, the cache and mover of "
        f"{_unit_value(layout.tiered_pool.mountpoint)}{textfile}\n"
        # No RequiresMountsFor=: a branch that failed to mount is what the check must report.
        "\n"
        "[Service]\n"
        "Type=oneshot\n"
        f"ExecStart={' '.join(_unit_word(w) for w in words)}\n"
        # check's WARNING (1) and CRITICAL (2) are its verdict, in the journal and the
        # textfile; only UNKNOWN (3: it could not check) fails the unit.
        "SuccessExitStatus=1 2\n"
        "Nice=10\n"
    )


def _health_timer(layout: Layout, health: HealthTimer) -> str:
    return (
        f"{_HEADER}"
        "[Unit]\n"
        "Description=tierdeck health check with the cache and mover of "
        f"{_unit_value(layout.tiered_pool.mountpoint)}, {_unit_value(health.schedule)}\n"
        "\n"
        "[Timer]\n"
        f"OnCalendar={_unit_value(health.schedule)}\n"
        # a check missed while the machine was off runs at the next boot: the readings
        # of the wear forecast keep their pace
        "Persistent=true\n"
        "\n"
        "[Install]\n"
        "WantedBy=timers.target\n"
    )


@dataclass(frozen=True)
class LayoutOutputs:
    """Everything apply writes. ``units`` maps a unit file name to its text: the pools'
    ``.mount`` units, then the mover's service and timer (named again in
    ``mover_service``/``mover_timer``), then the health check's service and timer when
    the layout has one (``health_service``/``health_timer``, None without)."""

    fstab: tuple[str, ...]
    units: dict[str, str]
    mover_service: str
    mover_timer: str
    health_service: str | None = None
    health_timer: str | None = None


def layout_outputs(
    layout: Layout,
    *,
    command: str | tuple[str, ...] = "tierdeck",
    layout_path: str = DEFAULT_LAYOUT_PATH,
) -> LayoutOutputs:
    """The fstab lines and unit files of ``layout``. ``command`` is how the mover's
    service starts tierdeck (one path, or the words of a command: systemd needs the
    first to be absolute), ``layout_path`` the file it reads. OutputError when a path
    cannot be written (see the class). The health check's service starts tierdeck
    alike, reading the same layout file."""
    what = ("tiered pool", "slow pool")
    units: dict[str, str] = {}
    fstab: list[str] = []
    for (pool, branches), name in zip(layout.pools(), what, strict=False):
        fstab.append(fstab_line(pool, branches))
        units[mount_unit_name(pool.mountpoint)] = _mount_unit(pool, branches, name)
    stem = _mover_stem(layout)
    service = _unit_name(stem, "service", layout.tiered_pool.mountpoint)
    timer = _unit_name(stem, "timer", layout.tiered_pool.mountpoint)
    words = (command,) if isinstance(command, str) else command
    units[service] = _mover_service(layout, words, layout_path)
    units[timer] = _mover_timer(layout)
    health = layout.health
    if health is None:
        return LayoutOutputs(tuple(fstab), units, service, timer)
    health_service, health_timer = health_unit_names(layout)
    units[health_service] = _health_service(layout, health, words, layout_path)
    units[health_timer] = _health_timer(layout, health)
    return LayoutOutputs(tuple(fstab), units, service, timer, health_service, health_timer)
