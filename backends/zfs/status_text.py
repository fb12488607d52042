"""``zpool status`` in its text form: every OpenZFS / ZFS on Linux release prints it.

Most NAS today run OpenZFS 2.1/2.2, which have no ``-j``, so this is the parser that
usually runs. It follows ``print_status_config()`` in ``cmd/zpool/zpool_main.c``: header
paragraphs ("pool:", "state:", "scan:" ...) and then, under "config:", one vdev row per
line with nesting shown by indentation and class sections ("logs", "cache", "spares",
"special", "dedup") as bare header rows. The tree is read from relative indentation only,
because pasted outputs come with tabs, 4-space or 8-space indents; rows are built as
mutable :class:`_Row` objects first and frozen into :class:`Vdev` once the tree is known.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ...core.errors import ParseError
from ...core.models import ScanStatus, Vdev, VdevClass, ZPool
from ...core.units import parse_count
from .common import COUNT_RE, STATE_RE, guarded, kind_from_name, with_class

# ------------------------------------------------------------------ scan

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


# ------------------------------------------------------------------ pools and vdev tree

_HEADER_KEYS = (
    "pool", "id", "state", "status", "action", "see", "scan", "scrub", "config",
    "errors", "remove", "checkpoint", "expand", "comment", "dedup", "scrub_pause",
)  # fmt: skip
_HEADER_RE = re.compile(r"^\s*(" + "|".join(_HEADER_KEYS) + r"):(?:\s+(.*))?$")
_COLUMNS_RE = re.compile(r"^\s*NAME\s+STATE(?:\s+\S+)*\s*$")
# Bare rows that open a class section below the pool's data vdevs.
_CLASS_HEADERS = {
    "logs": VdevClass.LOG,
    "cache": VdevClass.CACHE,
    "spares": VdevClass.SPARE,
    "special": VdevClass.SPECIAL,
    "dedup": VdevClass.DEDUP,
}


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
        kind, parity, spec = kind_from_name(self.name, bool(self.children))
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
    if not STATE_RE.match(state):
        raise ParseError("zpool status", f"not a vdev state: {state!r}", line)
    counters = (0, 0, 0)
    rest = tokens[2:]
    if len(rest) >= 3 and all(COUNT_RE.match(t.group()) for t in rest[:3]):
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
        return tuple(with_class(row.freeze(), vdev_class) for row in rows)

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
    blocks = guarded("zpool status", lambda: [_parse_pool_block(b) for b in _split_pools(lines)])
    pools = [pool for pool in blocks if pool is not None]
    if not pools:
        raise ParseError("zpool status", "no pool found", lines[0])
    return tuple(pools)
