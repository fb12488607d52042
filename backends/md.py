"""Linux software RAID (md) arrays, from ``/proc/mdstat`` and ``/sys/block/mdX/md/``.

/proc/mdstat, as drivers/md/md.c prints it::

    Personalities : [raid1] [raid6] [raid5] [raid4]
    md0 : active raid1 sda3[2] sdb3[1] sdc1[3](S) sdd1[4](W)(F)
          479008632 blocks super 1.2 [2/1] [_U]
          [=>.....]  recovery =  7.8% (37384832/479008632) finish=61.8min speed=119022K/sec
          bitmap: 1/3 pages [4KB], 65536KB chunk

    unused devices: <none>

* The number in ``sda3[2]`` is the kernel's descriptor number, *not* the slot
  (RaidDevice): a rebuilt disk is often ``[2]`` in slot 0. Slots come only from sysfs.
* Flags after a member: (F) faulty, (S) spare (no slot), (W) write-mostly, (R)
  replacement, (J) journal.
* "blocks" is the array size in KiB for active arrays; for inactive ones it is the sum
  of the members, so we do not report it as a size.
* No "super" word means 0.90 metadata (md.c prints it only for other versions).
* A sync line is ``<action> = P% (done/total) finish=T speed=S``, or ``resync=DELAYED``
  / ``resync=PENDING`` when the kernel defers it. We keep the kernel's own words in
  ``sync_eta`` ("finish=61.8min", "resync=DELAYED") and ``sync_speed``.

sysfs (Documentation/admin-guide/md.rst) then refines what mdstat cannot say: level,
array_state, sync_action, sync_completed ("done / total" sectors, or "none"),
metadata_version, bitmap/location ("none", "file", or "+N" sectors from the superblock =
an internal bitmap), and per member ``dev-<name>/state`` and ``dev-<name>/slot``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from ..core.errors import HostError, ParseError
from ..core.models import MdArray, MdMember, SourceNote
from .host import Host

MDSTAT = "/proc/mdstat"

_HEADER_RE = re.compile(r"^(md[^\s:]*)\s*:\s*(.*)$")
# Numbers are capped at 30 digits: int() refuses strings of thousands of digits.
_MEMBER_RE = re.compile(r"^([^\s\[\]()]+)\[([0-9]{1,30})\]((?:\([A-Z]\))*)$")
_BLOCKS_RE = re.compile(r"^([0-9]{1,30}) blocks\b(.*)$")
_COUNTS_RE = re.compile(r"\[([0-9]{1,30})/([0-9]{1,30})\]")
_SUPER_RE = re.compile(r"\bsuper (\S+)")
_SYNC_RE = re.compile(
    r"\b(resync|recovery|check|reshape|repair)\s*=\s*([0-9]{1,3}(?:\.[0-9]{1,3})?)%"
)
_DEFERRED_RE = re.compile(r"\bresync=(DELAYED|PENDING|REMOTE)\b")
_FINISH_RE = re.compile(r"\bfinish=\S+")
_SPEED_RE = re.compile(r"\bspeed=\S+")
_BITMAP_RE = re.compile(r"^bitmap:.*?chunk(?:, file: (.+))?$")
# mdstat's words for the running action -> sysfs sync_action words (md.rst).
_ACTIONS = {
    "resync": "resync",
    "recovery": "recover",
    "check": "check",
    "reshape": "reshape",
    "repair": "repair",
}
_FLAG_WORDS = {"F": "faulty", "S": "spare", "W": "write_mostly", "R": "replacement", "J": "journal"}


@dataclass
class _Draft:
    """An array while its lines are being read."""

    name: str
    state: str
    level: str
    members: list[tuple[str, str]]  # (device, flag letters)
    active: bool
    lines: list[str] = field(default_factory=list)


def _header(name: str, rest: str, line: str) -> _Draft:
    words = rest.split()
    if not words or words[0] not in ("active", "inactive"):
        raise ParseError("mdstat", "array is neither active nor inactive", line)
    state = words[0]
    words = words[1:]
    while words and words[0] in ("(read-only)", "(auto-read-only)"):
        state += " " + words[0]
        words = words[1:]
    level = ""
    if words and "[" not in words[0]:
        level, words = words[0], words[1:]
    members: list[tuple[str, str]] = []
    for word in words:
        match = _MEMBER_RE.match(word)
        if match is None:
            raise ParseError("mdstat", f"bad member {word[:40]!r}", line)
        members.append((match.group(1), match.group(3).replace("(", "").replace(")", "")))
    return _Draft(name, state, level, members, active=state.startswith("active"))


def _member_state(flags: str, all_in_sync: bool) -> str:
    words = [_FLAG_WORDS[f] for f in "FS" if f in flags]
    if not words:
        # Without (F)/(S) the member has a slot. It is in sync unless a recovery is
        # rebuilding it, which mdstat does not say member by member.
        words = ["in_sync" if all_in_sync else "active"]
    words += [_FLAG_WORDS[f] for f in "WRJ" if f in flags]
    return ",".join(words)


def _finish(draft: _Draft) -> MdArray:
    raid_disks = active_disks = size = None
    metadata: str | None = None
    action = progress = eta = speed = bitmap = None
    for line in draft.lines:
        blocks = _BLOCKS_RE.match(line)
        if blocks:
            if draft.active:
                size = int(blocks.group(1)) * 1024
            counts = _COUNTS_RE.search(line)
            if counts:
                raid_disks, active_disks = int(counts.group(1)), int(counts.group(2))
            sup = _SUPER_RE.search(line)
            # md.c prints "super" for every version but 0.90. Inactive arrays may not
            # know their version yet, so only an active one without it is 0.90.
            metadata = sup.group(1) if sup else ("0.90" if draft.active else None)
            continue
        sync = _SYNC_RE.search(line)
        if sync:
            action = _ACTIONS[sync.group(1)]
            progress = float(sync.group(2)) if float(sync.group(2)) <= 100 else None
            finish, rate = _FINISH_RE.search(line), _SPEED_RE.search(line)
            eta = finish.group(0) if finish else None
            speed = rate.group(0) if rate else None
            continue
        deferred = _DEFERRED_RE.search(line)
        if deferred:
            action, eta = "resync", deferred.group(0)
            continue
        bm = _BITMAP_RE.match(line)
        if bm:
            bitmap = bm.group(1).strip() if bm.group(1) else "internal"
    slotted = [f for _, f in draft.members if "F" not in f and "S" not in f]
    # An inactive array is not running, and a recovery is rebuilding one of the slotted
    # members: in both cases mdstat cannot say which member is in sync.
    all_in_sync = draft.active and action != "recover"
    all_in_sync = all_in_sync and (active_disks is None or len(slotted) <= active_disks)
    members = tuple(
        MdMember(name=dev, slot=None, state=_member_state(flags, all_in_sync))
        for dev, flags in draft.members
    )
    return MdArray(
        name=draft.name,
        level=draft.level,
        state=draft.state,
        members=members,
        raid_disks=raid_disks,
        active_disks=active_disks,
        size_bytes=size,
        sync_action=action,
        sync_progress=progress,
        sync_eta=eta,
        sync_speed=speed,
        bitmap=bitmap,
        metadata_version=metadata,
    )


def parse_mdstat(text: str) -> tuple[MdArray, ...]:
    """Every array in /proc/mdstat text, active or not. Raises ParseError on garbage."""
    arrays: list[MdArray] = []
    draft: _Draft | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("Personalities") or line.startswith("read_ahead"):
            continue
        if line.startswith("unused devices"):
            if draft is not None:
                arrays.append(_finish(draft))
            draft = None
            continue
        header = _HEADER_RE.match(line)
        if header:
            if draft is not None:
                arrays.append(_finish(draft))
            draft = _header(header.group(1), header.group(2), line)
            continue
        if draft is None:
            raise ParseError("mdstat", "text outside any array", line)
        # Unknown continuation lines (a new kernel's extra detail) are skipped.
        draft.lines.append(line)
    if draft is not None:
        arrays.append(_finish(draft))
    return tuple(arrays)


def _sysfs(host: Host, path: str) -> str | None:
    try:
        return host.read_text(path).strip()
    except (OSError, HostError):
        return None


def _number(text: str | None) -> int | None:
    if text is None or not (text.isascii() and text.isdigit()) or len(text) > 30:
        return None
    return int(text)


def _progress(completed: str | None) -> float | None:
    """md.rst sync_completed: "done / total" in sectors, or "none" when idle."""
    if completed is None or "/" not in completed:
        return None
    done_text, _, total_text = completed.partition("/")
    done, total = _number(done_text.strip()), _number(total_text.strip())
    if done is None or not total:
        return None
    # Truncate to tenths like md.c's per-mille figure, so sysfs and mdstat agree.
    return done * 1000 // total / 10


def _bitmap(location: str | None, current: str | None) -> str | None:
    if location is None:
        return current
    if location == "none":
        return "none"
    if location.startswith("file"):
        return current if current not in (None, "internal") else "file"
    return "internal"  # "+8": that many sectors from the superblock


def _members_from_sysfs(
    host: Host, base: str, members: tuple[MdMember, ...]
) -> tuple[MdMember, ...]:
    try:
        entries = [e for e in host.listdir(base) if e.startswith("dev-")]
    except (OSError, HostError):
        return members
    by_name = {m.name: m for m in members}
    order = [m.name for m in members] + [e[4:] for e in entries if e[4:] not in by_name]
    for entry in entries:
        name = entry[4:]
        member = by_name.get(name, MdMember(name=name, slot=None, state="unknown"))
        state = _sysfs(host, f"{base}/{entry}/state")
        slot_text = _sysfs(host, f"{base}/{entry}/slot")
        # md.rst: "none" for a spare or failed device, else the slot number.
        slot = member.slot if slot_text is None else _number(slot_text)
        by_name[name] = replace(member, state=state or member.state, slot=slot)
    return tuple(by_name[n] for n in order)


def _enrich(host: Host, array: MdArray) -> MdArray:
    base = f"/sys/block/{array.name}/md"
    if not host.is_dir(base):
        return array
    level = _sysfs(host, f"{base}/level")
    state = _sysfs(host, f"{base}/array_state")
    action = _sysfs(host, f"{base}/sync_action")
    metadata = _sysfs(host, f"{base}/metadata_version")
    raid_disks = array.raid_disks
    if raid_disks is None:
        raid_disks = _number(_sysfs(host, f"{base}/raid_disks"))
    progress, eta, speed = array.sync_progress, array.sync_eta, array.sync_speed
    if action == "idle":
        progress = eta = speed = None
    elif action is not None:
        completed = _progress(_sysfs(host, f"{base}/sync_completed"))
        progress = completed if completed is not None else progress
    return replace(
        array,
        level=level or array.level,
        state=state or array.state,
        raid_disks=raid_disks,
        members=_members_from_sysfs(host, base, array.members),
        sync_action=action or array.sync_action,
        sync_progress=progress,
        sync_eta=eta,
        sync_speed=speed,
        bitmap=_bitmap(_sysfs(host, f"{base}/bitmap/location"), array.bitmap),
        metadata_version=metadata or array.metadata_version,
    )


def read_md(host: Host) -> tuple[tuple[MdArray, ...], tuple[SourceNote, ...]]:
    """md arrays from /proc/mdstat, refined from sysfs. No md driver: no arrays, no note."""
    try:
        text = host.read_text(MDSTAT)
    except FileNotFoundError:
        return (), ()
    except (OSError, HostError) as exc:
        return (), (SourceNote("md", f"cannot read {MDSTAT}: {exc}"),)
    try:
        arrays = parse_mdstat(text)
    except ParseError as exc:
        return (), (SourceNote("md", str(exc)),)
    return tuple(_enrich(host, a) for a in arrays), ()
