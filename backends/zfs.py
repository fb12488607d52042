"""ZFS inventory: pools with their vdev trees, capacity, and datasets.

OpenZFS >= 2.3 answers ``-j`` with JSON; older releases (most NAS today run 2.1/2.2)
reject it with ``invalid option 'j'`` and a usage text (exit 2), so :func:`read_zfs`
tries JSON once and falls back to the text forms for every later command.

The text parser follows ``print_status_config()`` in ``cmd/zpool/zpool_main.c``: one
vdev row per line, nesting shown by indentation, class sections ("logs", "cache",
"spares", "special", "dedup") as bare header rows. It reads the tree from relative
indentation only, because pasted outputs come with tabs, 4-space or 8-space indents.

Every parser raises :class:`ParseError` on anything it cannot read, never another
exception; :func:`read_zfs` turns failures into a one-line ``ZfsInfo.message`` and keeps
whatever it did parse.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from tierdeck.backends.host import CommandResult, Host
from tierdeck.core.errors import HostError, ParseError, TierdeckError, ToolFailed, ToolMissing
from tierdeck.core.models import (
    ScanStatus,
    Vdev,
    VdevClass,
    VdevKind,
    ZfsDataset,
    ZfsInfo,
    ZPool,
)
from tierdeck.core.units import parse_count, parse_size

# Other people record demo hosts with exactly these argv lists: keep them stable.
ZFS_VERSION_ARGV = ["zfs", "version"]
ZPOOL_STATUS_JSON_ARGV = ["zpool", "status", "-j", "--json-int"]
ZPOOL_STATUS_TEXT_ARGV = ["zpool", "status"]
ZPOOL_LIST_JSON_ARGV = ["zpool", "list", "-j", "--json-int"]
ZPOOL_LIST_TEXT_ARGV = [
    "zpool", "list", "-H", "-p", "-o", "name,size,alloc,free,frag,cap,dedup,health",
]  # fmt: skip
# Accepted by the real 2.3.2 option parser (checked with Debian's zfsutils-linux build).
ZFS_LIST_JSON_ARGV = [
    "zfs", "list", "-j", "--json-int", "-t", "filesystem,volume",
    "-o", "name,type,used,avail,refer,mountpoint",
]  # fmt: skip
ZFS_LIST_TEXT_ARGV = [
    "zfs", "list", "-H", "-p", "-t", "filesystem,volume",
    "-o", "name,type,used,avail,refer,mountpoint",
]  # fmt: skip

SYSFS_VERSION = "/sys/module/zfs/version"
NOT_INSTALLED = "ZFS is not installed (no zpool command)"


@dataclass(frozen=True)
class PoolCapacity:
    """One row of ``zpool list``: what ``zpool status`` does not say."""

    name: str
    size_bytes: int | None
    alloc_bytes: int | None
    free_bytes: int | None
    fragmentation_pct: int | None
    capacity_pct: int | None
    dedup_ratio: float | None
    health: str | None


_T = TypeVar("_T")


def _guarded(source: str, build: Callable[[], _T]) -> _T:
    """Run a parser body; anything but ParseError escaping it is a shape we did not
    foresee in garbage input, and the contract is ParseError for all of those."""
    try:
        return build()
    except ParseError:
        raise
    except (
        ArithmeticError,
        ValueError,
        LookupError,
        TypeError,
        AttributeError,
        RecursionError,
    ) as exc:
        raise ParseError(source, f"unexpected shape: {exc!r}") from exc


# --------------------------------------------------------------------------- helpers

_COUNT_RE = re.compile(r"^[0-9]+(?:\.[0-9]+)?[KMGTPEZ]?$")
_STATE_RE = re.compile(r"^[A-Z][A-Z_]*$")
_CLASS_HEADERS = {
    "logs": VdevClass.LOG,
    "cache": VdevClass.CACHE,
    "spares": VdevClass.SPARE,
    "special": VdevClass.SPECIAL,
    "dedup": VdevClass.DEDUP,
}
_MIRROR_RE = re.compile(r"^mirror(?:-\d+)?$")
_RAIDZ_RE = re.compile(r"^raidz([123])?(?:-\d+)?$")
_DRAID_RE = re.compile(r"^(draid([123])?(?::[0-9a-z]+)*)-\d+$")
_DSPARE_RE = re.compile(r"^draid\d+-\d+-\d+$")  # a distributed spare: a leaf
_GUID_RE = re.compile(r"^\d{6,20}$")


def _kind_from_name(name: str, has_children: bool) -> tuple[VdevKind, int | None, str | None]:
    """Vdev kind, parity and dRAID spec from the name zpool prints (VDEV_NAME_TYPE_ID)."""
    if _MIRROR_RE.match(name):
        return VdevKind.MIRROR, None, None
    match = _RAIDZ_RE.match(name)
    if match:
        return VdevKind.RAIDZ, int(match.group(1) or 1), None
    if not _DSPARE_RE.match(name):
        match = _DRAID_RE.match(name)
        if match and (":" in match.group(1) or has_children):
            return VdevKind.DRAID, int(match.group(2) or 1), match.group(1)
    if re.match(r"^replacing(?:-\d+)?$", name):
        return VdevKind.REPLACING, None, None
    if re.match(r"^spare(?:-\d+)?$", name) and has_children:
        return VdevKind.SPARE, None, None
    if re.match(r"^indirect-\d+$", name):
        return VdevKind.INDIRECT, None, None
    if _GUID_RE.match(name) and not has_children:
        return VdevKind.MISSING, None, None
    if name.startswith("/") and not name.startswith("/dev/"):
        return VdevKind.FILE, None, None
    return VdevKind.DISK, None, None


def _with_class(vdev: Vdev, vdev_class: VdevClass) -> Vdev:
    children = tuple(_with_class(c, vdev_class) for c in vdev.children)
    return replace(vdev, vdev_class=vdev_class, children=children)


def _optional_int(value: Any, source: str) -> int | None:
    """A size or percentage as zpool/zfs print it: 123, "123", "1.2G", "42%", "-"."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        if not 0 <= value < 2**64:  # uint64 in the tool; also rejects inf and NaN
            raise ParseError(source, f"not a size: {value!r}")
        return int(value)
    if not isinstance(value, str):
        raise ParseError(source, f"not a number: {value!r}")
    text = value.strip().rstrip("%")
    if text in ("", "-", "none"):
        return None
    return parse_size(text, source)


def _optional_ratio(value: Any, source: str) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        # --json-int prints integers only where the literal value is all digits
        if not 0 <= value < 2**64:
            raise ParseError(source, f"not a ratio: {value!r}")
        return float(value)
    if not isinstance(value, str):
        raise ParseError(source, f"not a ratio: {value!r}")
    text = value.strip().rstrip("x")
    if text in ("", "-"):
        return None
    try:
        return float(text)
    except ValueError as exc:
        raise ParseError(source, f"not a ratio: {value!r}") from exc


def _count(value: Any, source: str) -> int:
    if value is None:
        return 0
    if isinstance(value, bool):
        raise ParseError(source, f"not a counter: {value!r}")
    if isinstance(value, int) and value >= 0:
        return value
    if isinstance(value, str) and _COUNT_RE.match(value.strip()):
        return parse_count(value.strip(), source)
    raise ParseError(source, f"not a counter: {value!r}")


# ------------------------------------------------------------------ scan (text form)

_PERCENT_RE = re.compile(r"([0-9]+(?:\.[0-9]+)?)% done")
_ETA_RE = re.compile(r"(?:^|,)\s*([^,]+?)\s+to go")


def _parse_scan_text(text: str) -> ScanStatus:
    """One "scan:" entry (continuation lines already joined with spaces)."""
    lower = text.lower()
    if "none requested" in lower:
        return ScanStatus(function="none", state="none", text=text)
    if "resilver" in lower:
        function = "resilver"
    elif "scrub" in lower:
        function = "scrub"
    else:
        function = "none"
    if "in progress" in lower or "paused" in lower:
        state = "in_progress"
    elif "cancel" in lower:
        state = "canceled"
    elif re.search(r"\b(repaired|resilvered|completed)\b", lower):
        state = "finished"
    else:
        state = "none"
    percent = None
    match = _PERCENT_RE.search(text)
    if match:
        percent = float(match.group(1))
    eta = None
    match = _ETA_RE.search(text)
    if match:
        eta = match.group(1).strip()
    return ScanStatus(function=function, state=state, text=text, percent_done=percent, eta=eta)


def _choose_scan(scans: list[ScanStatus]) -> ScanStatus | None:
    """Several "scan:" lines appear with dRAID rebuilds; the running one matters most."""
    for scan in scans:
        if scan.state == "in_progress":
            return scan
    return scans[0] if scans else None


# ------------------------------------------------------------------ status (text form)

_HEADER_KEYS = (
    "pool", "id", "state", "status", "action", "see", "scan", "scrub", "config",
    "errors", "remove", "checkpoint", "expand", "comment", "dedup", "scrub_pause",
)  # fmt: skip
_HEADER_RE = re.compile(r"^\s*(" + "|".join(_HEADER_KEYS) + r"):(?:\s+(.*))?$")
_COLUMNS_RE = re.compile(r"^\s*NAME\s+STATE(?:\s+\S+)*\s*$")


@dataclass
class _Row:
    """A vdev row while the tree is being built (mutable, then frozen into a Vdev)."""

    indent: int
    name: str
    state: str
    counters: tuple[int, int, int]
    note: str | None
    children: list[_Row] = field(default_factory=list)

    def freeze(self) -> Vdev:
        kind, parity, spec = _kind_from_name(self.name, bool(self.children))
        return Vdev(
            name=self.name,
            kind=kind,
            state=self.state,
            read_errors=self.counters[0],
            write_errors=self.counters[1],
            checksum_errors=self.counters[2],
            note=self.note,
            children=tuple(child.freeze() for child in self.children),
            parity=parity,
            draid_config=spec,
        )


def _parse_row(line: str, extra_numeric: int) -> _Row:
    """``\\t  mirror-0  ONLINE  0 0 0  (note)`` -> a row; spares print no counters."""
    tokens = list(re.finditer(r"\S+", line))
    if len(tokens) < 2:
        raise ParseError("zpool status", "vdev row without a state", line)
    name, state = tokens[0].group(), tokens[1].group()
    if not _STATE_RE.match(state):
        raise ParseError("zpool status", f"not a vdev state: {state!r}", line)
    counters = (0, 0, 0)
    rest = tokens[2:]
    if len(rest) >= 3 and all(_COUNT_RE.match(t.group()) for t in rest[:3]):
        counters = (
            parse_count(rest[0].group(), "zpool status"),
            parse_count(rest[1].group(), "zpool status"),
            parse_count(rest[2].group(), "zpool status"),
        )
        rest = rest[3:]
        # -s adds a SLOW column ("-" on interior vdevs): not an error counter we keep
        skip = 0
        while (
            skip < extra_numeric and rest and re.match(r"^(-|[0-9.]+[KMGTPEZ]?)$", rest[0].group())
        ):
            rest = rest[1:]
            skip += 1
    note = line[rest[0].start() :].strip() if rest else None
    indent = tokens[0].start()
    return _Row(indent=indent, name=name, state=state, counters=counters, note=note or None)


@dataclass
class _Config:
    root: _Row | None = None
    classes: dict[VdevClass, list[_Row]] = field(default_factory=dict)


def _parse_config(lines: Sequence[str]) -> _Config:
    """The rows under "config:", built into a tree by indentation."""
    config = _Config()
    extra_numeric = 0
    stack: list[_Row] = []
    section: VdevClass | None = None  # None: the data section under the root row
    for line in lines:
        if not line.strip():
            continue
        if _COLUMNS_RE.match(line):
            headers = line.split()
            extra_numeric = sum(1 for h in headers[5:] if h in ("SLOW", "POWER", "DIO"))
            continue
        stripped = line.strip()
        if stripped in _CLASS_HEADERS and config.root is not None:
            section = _CLASS_HEADERS[stripped]
            config.classes.setdefault(section, [])
            stack = []
            continue
        row = _parse_row(line, extra_numeric)
        if config.root is None:
            config.root = row
            stack = [row]
            continue
        while stack and stack[-1].indent >= row.indent:
            stack.pop()
        if stack:
            stack[-1].children.append(row)
        elif section is not None:
            # top level of a class section (also rows a paste left less indented)
            config.classes[section].append(row)
        else:
            raise ParseError("zpool status", "vdev row outside the pool's tree", line)
        stack.append(row)
    return config


def _split_pools(lines: list[str]) -> list[list[str]]:
    starts = [i for i, line in enumerate(lines) if re.match(r"^\s*pool:\s*\S", line)]
    if not starts:
        return [lines]
    return [lines[start:end] for start, end in zip(starts, [*starts[1:], len(lines)], strict=True)]


def _parse_pool_block(lines: list[str]) -> ZPool | None:
    fields: dict[str, list[str]] = {}
    scans: list[list[str]] = []
    config_lines: list[str] = []
    current: list[str] | None = None
    in_config = False
    for line in lines:
        header = _HEADER_RE.match(line)
        if header:
            key, value = header.group(1), (header.group(2) or "").strip()
            in_config = key == "config"
            if key in ("scan", "scrub"):
                current = [value]
                scans.append(current)
            elif in_config:
                current = None
                if value:
                    config_lines.append(line)
            else:
                current = [value] if value else []
                fields.setdefault(key, current)
            continue
        if in_config:
            config_lines.append(line)
        elif _COLUMNS_RE.match(line):
            # a pasted table without the "config:" line above it
            in_config = True
            config_lines.append(line)
        elif current is not None and line.strip():
            current.append(line.strip())
        elif not line.strip():
            current = None
    config = _parse_config(config_lines)
    name_lines = fields.get("pool")
    name = name_lines[0] if name_lines else (config.root.name if config.root else None)
    if not name:
        if fields or scans:
            raise ParseError("zpool status", "pool block without a pool name")
        return None

    def text(key: str) -> str | None:
        joined = " ".join(p for p in fields.get(key, []) if p)
        return joined or None

    errors = fields.get("errors")
    state = text("state") or (config.root.state if config.root else None)
    if state is None:
        raise ParseError("zpool status", f"pool {name} has no state")
    root = config.root
    vdevs = tuple(child.freeze() for child in root.children) if root else ()

    def section(vdev_class: VdevClass) -> tuple[Vdev, ...]:
        rows = config.classes.get(vdev_class, [])
        return tuple(_with_class(row.freeze(), vdev_class) for row in rows)

    return ZPool(
        name=name,
        state=state,
        vdevs=vdevs,
        logs=section(VdevClass.LOG),
        cache=section(VdevClass.CACHE),
        spares=section(VdevClass.SPARE),
        special=section(VdevClass.SPECIAL),
        dedup=section(VdevClass.DEDUP),
        read_errors=root.counters[0] if root else 0,
        write_errors=root.counters[1] if root else 0,
        checksum_errors=root.counters[2] if root else 0,
        status=text("status"),
        action=text("action"),
        scan=_choose_scan([_parse_scan_text(" ".join(p for p in s if p)) for s in scans]),
        errors=errors[0] if errors else None,
    )


def parse_zpool_status_text(text: str) -> tuple[ZPool, ...]:
    """``zpool status`` (any OpenZFS/ZoL release) -> pools with their vdev trees."""
    if not isinstance(text, str):
        raise ParseError("zpool status", "not text")
    lines = [line.expandtabs(8).rstrip() for line in text.splitlines()]
    if not any(line.strip() for line in lines):
        return ()
    if all(line.strip() in ("", "no pools available", "all pools are healthy") for line in lines):
        return ()
    blocks = _guarded("zpool status", lambda: [_parse_pool_block(b) for b in _split_pools(lines)])
    pools = [pool for pool in blocks if pool is not None]
    if not pools:
        raise ParseError("zpool status", "no pool found", lines[0])
    return tuple(pools)


# ------------------------------------------------------------------ status (JSON form)

# print_status_config() prints these words for vs_aux; JSON gives the enum name.
_AUX_NOTES = {
    "OPEN_FAILED": "cannot open",
    "BAD_GUID_SUM": "missing device",
    "NO_REPLICAS": "insufficient replicas",
    "VERSION_NEWER": "newer version",
    "UNSUP_FEAT": "unsupported feature(s)",
    "ASHIFT_TOO_BIG": "unsupported minimum blocksize",
    "SPARED": "currently in use",
    "ERR_EXCEEDED": "too many errors",
    "IO_FAILURE": "experienced I/O failures",
    "BAD_LOG": "bad intent log",
    "EXTERNAL": "external device fault",
    "SPLIT_POOL": "split into new pool",
    "ACTIVE": "currently in use",
    "CHILDREN_OFFLINE": "all children offline",
    "BAD_LABEL": "invalid label",
}
_JSON_KINDS = {
    "root": VdevKind.ROOT,
    "mirror": VdevKind.MIRROR,
    "raidz": VdevKind.RAIDZ,
    "draid": VdevKind.DRAID,
    "replacing": VdevKind.REPLACING,
    "spare": VdevKind.SPARE,
    "disk": VdevKind.DISK,
    "file": VdevKind.FILE,
    "dspare": VdevKind.DISK,
    "missing": VdevKind.MISSING,
    "indirect": VdevKind.INDIRECT,
}
_JSON_CLASS_KEYS = (
    ("logs", VdevClass.LOG),
    ("l2cache", VdevClass.CACHE),
    ("spares", VdevClass.SPARE),
    ("special", VdevClass.SPECIAL),
    ("dedup", VdevClass.DEDUP),
)


def _obj(value: Any, source: str, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ParseError(source, f"{what} is not an object")
    return value


def _str(value: Any, default: str | None = None) -> str | None:
    return value if isinstance(value, str) else default


def _json_scan(scan: Any) -> ScanStatus | None:
    if not isinstance(scan, dict):
        return None
    source = "zpool status -j"
    function = {"SCRUB": "scrub", "RESILVER": "resilver", "ERRORSCRUB": "scrub"}.get(
        str(scan.get("function", "NONE")), "none"
    )
    state = {
        "SCANNING": "in_progress",
        "FINISHED": "finished",
        "CANCELED": "canceled",
        "ERRORSCRUBBING": "in_progress",
    }.get(str(scan.get("state", "NONE")), "none")
    percent = None
    if state == "in_progress":
        issued = _optional_int(scan.get("issued"), source)
        total = _optional_int(scan.get("to_examine"), source)
        skipped = _optional_int(scan.get("skipped"), source) or 0
        if issued is not None and total and total - skipped > 0:
            percent = round(100.0 * issued / (total - skipped), 2)
    # dRAID sequential rebuilds report separately from the scrub/resilver scan
    rebuilds = scan.get("rebuild_stats")
    if isinstance(rebuilds, dict) and state != "in_progress":
        for rebuild in rebuilds.values():
            if isinstance(rebuild, dict) and rebuild.get("state") == "ACTIVE":
                function, state = "resilver", "in_progress"
                done = _optional_int(rebuild.get("scanned"), source)
                total = _optional_int(rebuild.get("to_scan"), source)
                percent = round(100.0 * done / total, 2) if done is not None and total else None
                break
    if function == "none" and state == "none":
        return ScanStatus(function="none", state="none", text="none requested")
    # JSON has numbers, not zpool's sentence: say the same thing in a few words
    words = {"in_progress": "in progress", "finished": "finished", "canceled": "canceled"}
    summary = f"{function} {words.get(state, state)}"
    if percent is not None:
        summary += f", {percent:.2f}% done"
    return ScanStatus(function=function, state=state, text=summary, percent_done=percent)


def _json_vdev(key: str, data: Any, *, spare_section: bool, scan: dict[str, Any] | None) -> Vdev:
    source = "zpool status -j"
    data = _obj(data, source, f"vdev {key!r}")
    name = _str(data.get("name"), key) or key
    raw_children = data.get("vdevs", {})
    children_obj = _obj(raw_children, source, f"children of {name!r}") if raw_children else {}
    children = tuple(
        _json_vdev(k, v, spare_section=spare_section, scan=scan) for k, v in children_obj.items()
    )
    name_kind, parity, spec = _kind_from_name(name, bool(children))
    vdev_type = _str(data.get("vdev_type"))
    # 2.3.2 omits vdev_type and state for dRAID vdevs (openzfs/zfs#18431): use the name
    kind = _JSON_KINDS.get(vdev_type, name_kind) if vdev_type else name_kind
    if "not_present" in data:
        kind = VdevKind.MISSING
    state = _str(data.get("state"), "UNKNOWN") or "UNKNOWN"
    notes = []
    if "was" in data:
        notes.append(f"was {data['was']}")
    elif isinstance(data.get("aux"), str):
        notes.append(_AUX_NOTES.get(data["aux"], "corrupted data"))
    if (
        scan is not None
        and scan.get("state") == "SCANNING"
        and not children
        and state == "ONLINE"
        and not spare_section
    ):
        if _optional_int(data.get("scan_processed"), source):
            resilver = scan.get("function") == "RESILVER"
            notes.append("(resilvering)" if resilver else "(repairing)")
        elif _optional_int(data.get("resilver_deferred"), source):
            notes.append("(awaiting resilver)")
    return Vdev(
        name=name,
        kind=kind,
        state=state,
        read_errors=_count(data.get("read_errors"), source),
        write_errors=_count(data.get("write_errors"), source),
        checksum_errors=_count(data.get("checksum_errors"), source),
        note="  ".join(notes) or None,
        children=children,
        parity=parity if kind in (VdevKind.RAIDZ, VdevKind.DRAID) else None,
        draid_config=spec if kind is VdevKind.DRAID else None,
    )


def _json_pool(key: str, data: Any) -> ZPool:
    source = "zpool status -j"
    data = _obj(data, source, f"pool {key!r}")
    name = _str(data.get("name"), key) or key
    scan_raw = data.get("scan_stats")
    scan = scan_raw if isinstance(scan_raw, dict) else None
    vdevs_obj = _obj(data.get("vdevs", {}), source, f"vdevs of pool {name!r}")
    root: Vdev | None = None
    top: list[Vdev] = []
    for vkey, vdata in vdevs_obj.items():
        vdev = _json_vdev(vkey, vdata, spare_section=False, scan=scan)
        if vdev.kind is VdevKind.ROOT or (root is None and vdev.name == name):
            root = vdev
            top.extend(vdev.children)
        else:
            top.append(vdev)  # --json-flat-vdevs style: no root wrapper
    sections: dict[VdevClass, tuple[Vdev, ...]] = {}
    for json_key, vdev_class in _JSON_CLASS_KEYS:
        raw = data.get(json_key)
        if raw is None:
            continue
        members = _obj(raw, source, f"{json_key} of pool {name!r}")
        sections[vdev_class] = tuple(
            _with_class(
                _json_vdev(k, v, spare_section=vdev_class is VdevClass.SPARE, scan=scan),
                vdev_class,
            )
            for k, v in members.items()
        )
    error_count = data.get("error_count")
    errors = None
    if error_count is not None:
        nerr = _count(error_count, source)
        # the words zpool status prints for the same count
        errors = "No known data errors" if nerr == 0 else f"{nerr} data errors"
    state = _str(data.get("state")) or (root.state if root else None)
    if state is None:
        raise ParseError(source, f"pool {name} has no state")

    def paragraph(key: str) -> str | None:
        joined = " ".join((_str(data.get(key)) or "").split())
        return joined or None

    return ZPool(
        name=name,
        state=state,
        vdevs=tuple(top),
        logs=sections.get(VdevClass.LOG, ()),
        cache=sections.get(VdevClass.CACHE, ()),
        spares=sections.get(VdevClass.SPARE, ()),
        special=sections.get(VdevClass.SPECIAL, ()),
        dedup=sections.get(VdevClass.DEDUP, ()),
        read_errors=root.read_errors if root else 0,
        write_errors=root.write_errors if root else 0,
        checksum_errors=root.checksum_errors if root else 0,
        status=paragraph("status"),
        action=paragraph("action"),
        scan=_json_scan(scan),
        errors=errors,
    )


def _load_json(text: str, source: str, top_key: str) -> dict[str, Any]:
    if not isinstance(text, str):
        raise ParseError(source, "not text")
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ParseError(source, f"not JSON: {exc}") from exc
    document = _obj(document, source, "the document")
    items = document.get(top_key, {})
    return _obj(items, source, f'"{top_key}"')


def parse_zpool_status_json(text: str) -> tuple[ZPool, ...]:
    """``zpool status -j [--json-int]`` (OpenZFS >= 2.3) -> pools with their vdev trees."""
    source = "zpool status -j"
    pools = _load_json(text, source, "pools")
    return _guarded(source, lambda: tuple(_json_pool(k, v) for k, v in pools.items()))


# ------------------------------------------------------------------ zpool list

_LIST_COLUMNS = 8  # name,size,alloc,free,frag,cap,dedup,health (ZPOOL_LIST_TEXT_ARGV)


def _split_columns(line: str, count: int, source: str) -> list[str]:
    # -H separates with one tab; pasted copies often turned tabs into spaces
    parts = line.split("\t") if "\t" in line else line.split(None, count - 1)
    if len(parts) != count:
        raise ParseError(source, f"expected {count} columns, got {len(parts)}", line)
    return parts


def parse_zpool_list_text(text: str) -> dict[str, PoolCapacity]:
    """``zpool list -H -p -o name,size,alloc,free,frag,cap,dedup,health`` -> by pool name."""
    source = "zpool list"
    if not isinstance(text, str):
        raise ParseError(source, "not text")
    return _guarded(source, lambda: _zpool_list_rows(text, source))


def _zpool_list_rows(text: str, source: str) -> dict[str, PoolCapacity]:
    result: dict[str, PoolCapacity] = {}
    for line in text.splitlines():
        if not line.strip() or line.strip() == "no pools available":
            continue
        name, size, alloc, free, frag, cap, dedup, health = _split_columns(
            line, _LIST_COLUMNS, source
        )
        if not name or name.strip() != name or " " in name:
            raise ParseError(source, "bad pool name", line)
        health = health.strip()
        if not _STATE_RE.match(health):
            raise ParseError(source, f"not a pool health: {health!r}", line)
        result[name] = PoolCapacity(
            name=name,
            size_bytes=_optional_int(size, source),
            alloc_bytes=_optional_int(alloc, source),
            free_bytes=_optional_int(free, source),
            fragmentation_pct=_optional_int(frag, source),
            capacity_pct=_optional_int(cap, source),
            dedup_ratio=_optional_ratio(dedup, source),
            health=health,
        )
    return result


def _prop(props: dict[str, Any], key: str) -> Any:
    entry = props.get(key)
    return entry.get("value") if isinstance(entry, dict) else None


def parse_zpool_list_json(text: str) -> dict[str, PoolCapacity]:
    """``zpool list -j [--json-int]`` (OpenZFS >= 2.3) -> by pool name."""
    source = "zpool list -j"
    pools = _load_json(text, source, "pools")

    def build() -> dict[str, PoolCapacity]:
        result = {}
        for key, raw in pools.items():
            data = _obj(raw, source, f"pool {key!r}")
            name = _str(data.get("name"), key) or key
            props = _obj(data.get("properties", {}), source, f"properties of {name!r}")
            health = _prop(props, "health")
            result[name] = PoolCapacity(
                name=name,
                size_bytes=_optional_int(_prop(props, "size"), source),
                alloc_bytes=_optional_int(_prop(props, "allocated"), source),
                free_bytes=_optional_int(_prop(props, "free"), source),
                fragmentation_pct=_optional_int(_prop(props, "fragmentation"), source),
                capacity_pct=_optional_int(_prop(props, "capacity"), source),
                dedup_ratio=_optional_ratio(_prop(props, "dedupratio"), source),
                health=_str(health) or _str(data.get("state")),
            )
        return result

    return _guarded(source, build)


# ------------------------------------------------------------------ zfs list

_DATASET_KINDS = ("filesystem", "volume", "snapshot", "bookmark")


def parse_zfs_list_text(text: str) -> tuple[ZfsDataset, ...]:
    """``zfs list -H -p -t filesystem,volume -o name,type,used,avail,refer,mountpoint``."""
    source = "zfs list"
    if not isinstance(text, str):
        raise ParseError(source, "not text")
    return _guarded(source, lambda: _zfs_list_rows(text, source))


def _zfs_list_rows(text: str, source: str) -> tuple[ZfsDataset, ...]:
    datasets = []
    for line in text.splitlines():
        if not line.strip() or line.strip() == "no datasets available":
            continue
        name, kind, used, avail, refer, mountpoint = _split_columns(line, 6, source)
        if not name or " " in name:
            raise ParseError(source, "bad dataset name", line)
        if kind not in _DATASET_KINDS:
            raise ParseError(source, f"unknown dataset type {kind!r}", line)
        datasets.append(
            ZfsDataset(
                name=name,
                kind=kind,
                used_bytes=_optional_int(used, source),
                avail_bytes=_optional_int(avail, source),
                refer_bytes=_optional_int(refer, source),
                mountpoint=None if mountpoint in ("-", "") else mountpoint,
            )
        )
    return tuple(datasets)


def parse_zfs_list_json(text: str) -> tuple[ZfsDataset, ...]:
    """``zfs list -j [--json-int]`` (OpenZFS >= 2.3)."""
    source = "zfs list -j"
    items = _load_json(text, source, "datasets")

    def build() -> tuple[ZfsDataset, ...]:
        datasets = []
        for key, raw in items.items():
            data = _obj(raw, source, f"dataset {key!r}")
            name = _str(data.get("name"), key) or key
            props = _obj(data.get("properties", {}), source, f"properties of {name!r}")
            kind = (_str(data.get("type")) or _str(_prop(props, "type")) or "").lower()
            if kind not in _DATASET_KINDS:
                raise ParseError(source, f"unknown dataset type {kind!r} for {name}")
            mountpoint = _prop(props, "mountpoint")
            datasets.append(
                ZfsDataset(
                    name=name,
                    kind=kind,
                    used_bytes=_optional_int(_prop(props, "used"), source),
                    avail_bytes=_optional_int(_prop(props, "available"), source),
                    refer_bytes=_optional_int(_prop(props, "referenced"), source),
                    mountpoint=(
                        mountpoint if isinstance(mountpoint, str) and mountpoint != "-" else None
                    ),
                )
            )
        return tuple(datasets)

    return _guarded(source, build)


# ------------------------------------------------------------------ version


def parse_zfs_version(text: str) -> str | None:
    """First line of ``zfs version`` ("zfs-2.1.4-0ubuntu0.1"), or None."""
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return None


def _read_version(host: Host) -> str | None:
    try:
        result = host.run(ZFS_VERSION_ARGV)
        if result.ok:
            version = parse_zfs_version(result.stdout)
            if version:
                return version
    except TierdeckError:
        pass  # old releases lack "zfs version"; the module's sysfs file still knows
    try:
        text = host.read_text(SYSFS_VERSION).strip()
    except (OSError, TierdeckError):
        return None
    return f"zfs-kmod-{text}" if text else None


# ------------------------------------------------------------------ read_zfs


def _rejects_json(result: CommandResult) -> bool:
    """Releases before 2.3 print "invalid option 'j'" and their usage, and exit 2."""
    if result.ok:
        return False
    err = result.stderr
    return "invalid option 'j'" in err or ("unrecognized option" in err and "json" in err)


def _one_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


@dataclass
class _Reader:
    host: Host
    json_ok: bool | None = None  # None: not tried yet
    notes: list[str] = field(default_factory=list)

    seen: set[str] = field(default_factory=set)

    def note(self, text: str, key: str | None = None) -> None:
        """Keep one line per distinct trouble: a missing kernel module fails every
        command with the same words, and saying it once is enough."""
        key = key or text
        if key not in self.seen:
            self.seen.add(key)
            self.notes.append(text)

    def failed(self, exc: HostError) -> None:
        if isinstance(exc, ToolFailed):
            self.note(_one_line(exc), key=exc.stderr.strip() or None)
        else:
            self.note(_one_line(exc))

    def run(
        self,
        json_argv: list[str],
        text_argv: list[str],
        json_parser: Callable[[str], _T],
        text_parser: Callable[[str], _T],
    ) -> _T | None:
        """Run the JSON form unless JSON was rejected, else the text form; parse it.

        Raises ToolMissing (the caller decides what a missing tool means)."""
        if self.json_ok is not False:
            result = self.host.run(json_argv)
            if _rejects_json(result):
                self.json_ok = False
            else:
                try:
                    result.check()
                except HostError as exc:
                    self.failed(exc)
                    return None
                self.json_ok = True
                return self._parse(json_parser, result.stdout)
        result = self.host.run(text_argv)
        try:
            result.check()
        except HostError as exc:
            self.failed(exc)
            return None
        return self._parse(text_parser, result.stdout)

    def _parse(self, parser: Callable[[str], _T], text: str) -> _T | None:
        try:
            return parser(text)
        except ParseError as exc:
            self.note(_one_line(exc))
            return None


def _merge(pools: tuple[ZPool, ...], capacity: dict[str, PoolCapacity]) -> tuple[ZPool, ...]:
    merged = []
    seen = set()
    for pool in pools:
        cap = capacity.get(pool.name)
        seen.add(pool.name)
        if cap is None:
            merged.append(pool)
            continue
        merged.append(
            replace(
                pool,
                size_bytes=cap.size_bytes,
                alloc_bytes=cap.alloc_bytes,
                free_bytes=cap.free_bytes,
                fragmentation_pct=cap.fragmentation_pct,
                capacity_pct=cap.capacity_pct,
                dedup_ratio=cap.dedup_ratio,
                health=cap.health,
            )
        )
    # a pool zpool list knows but status did not describe (status failed or was cut)
    for name, cap in capacity.items():
        if name not in seen:
            merged.append(
                ZPool(
                    name=name,
                    state=cap.health or "UNKNOWN",
                    vdevs=(),
                    size_bytes=cap.size_bytes,
                    alloc_bytes=cap.alloc_bytes,
                    free_bytes=cap.free_bytes,
                    fragmentation_pct=cap.fragmentation_pct,
                    capacity_pct=cap.capacity_pct,
                    dedup_ratio=cap.dedup_ratio,
                    health=cap.health,
                )
            )
    return tuple(merged)


def read_zfs(host: Host) -> ZfsInfo:
    """Pools (status + capacity), datasets and version; never raises for host trouble."""
    reader = _Reader(host)
    try:
        pools = reader.run(
            ZPOOL_STATUS_JSON_ARGV,
            ZPOOL_STATUS_TEXT_ARGV,
            parse_zpool_status_json,
            parse_zpool_status_text,
        )
    except ToolMissing:
        return ZfsInfo(available=False, message=NOT_INSTALLED)
    except HostError as exc:  # timeout, permission, exec failure
        reader.note(_one_line(exc))
        pools = None
    version = _read_version(host)
    capacity: dict[str, PoolCapacity] | None = None
    try:
        capacity = reader.run(
            ZPOOL_LIST_JSON_ARGV,
            ZPOOL_LIST_TEXT_ARGV,
            parse_zpool_list_json,
            parse_zpool_list_text,
        )
    except HostError as exc:
        reader.note(_one_line(exc))
    datasets: tuple[ZfsDataset, ...] | None = None
    try:
        datasets = reader.run(
            ZFS_LIST_JSON_ARGV, ZFS_LIST_TEXT_ARGV, parse_zfs_list_json, parse_zfs_list_text
        )
    except HostError as exc:
        reader.note(_one_line(exc))
    return ZfsInfo(
        available=True,
        version=version,
        json_output=reader.json_ok is True,
        pools=_merge(pools or (), capacity or {}),
        datasets=datasets or (),
        message="; ".join(reader.notes) or None,
    )
