"""One remote execution that gathers what an inventory reads.

Read call by call over SSH, an inventory of a 12-disk NAS is ~400 requests (a file of
/sys each), each a network round trip. Instead one POSIX ``sh`` script, sent on the
connection's stdin, walks what the inventory's sources read (``/sys/block`` and each
disk's attributes, its partitions and holders, ``/proc`` mounts and md, udev's
database, btrfs in ``/sys/fs``, the capacity of every mount, the settings of every
mergerfs pool) with shell builtins (no process per file) and answers with one document.
The host answers from it what it holds, and knows from its folder listings what does not
exist; anything else is still asked of the host (``Gathered.lookup`` says which).

The document is records ``KIND<TAB>LENGTH<TAB>PATH<LF>`` followed by LENGTH bytes and a
LF: kinds ``F`` a file's text, ``D`` a folder's entries (one per line), ``R`` a realpath,
``S`` statvfs (``frsize blocks bfree bavail``), ``A`` a ``getfattr -d -e hex`` dump
of the mergerfs pools' control files,
``X`` a file looked for and not there, ``V`` a fact (``udevd``: 1 while it runs), and
last ``G``: the rest of the document is ``grep -Z -H ''`` over the files to read
(``path NUL line`` for each of their lines).
The script runs under LC_ALL=C, where the shell's ``${#v}`` counts bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..seam import FsUsage

# Attribute files of a disk, of its device, and of a partition that the inventory's
# sources read (backends/disks.py, stacking.py, md.py). A name missing here still works:
# it is read from the host on demand.
DISK_FILES = "dev size removable ro serial wwid partition uevent ext_range capability"
DEVICE_FILES = "model vendor rev firmware_rev serial wwid state"
QUEUE_FILES = "rotational logical_block_size physical_block_size"
MD_FILES = (
    "level raid_disks array_state sync_action sync_completed degraded chunk_size metadata_version"
)

SCRIPT = r"""
export LC_ALL=C
emit() { printf '%s\t%s\t%s\n%s\n' "$1" "${#3}" "$2" "$3"; }
# Files are queued and read at the end by one grep: the shell's read builtin takes a
# system call per byte, and a 100-disk machine has thousands of small files to read.
_q=
readf() {
  [ -f "$1" ] && [ -r "$1" ] || { [ -e "$1" ] || emit X "$1" ""; return 1; }
  _q="$_q$1
"
}
readnow() {
  _c=
  { while IFS= read -r _l || [ -n "$_l" ]; do _c="$_c$_l
"; done < "$1"; } 2>/dev/null || return 1
  emit F "$1" "$_c"
}
lsd() {
  [ -d "$1" ] || { [ -e "$1" ] || emit X "$1" ""; return 1; }
  _c=
  for _e in "$1"/* "$1"/.[!.]* "$1"/..?*; do
    case $_e in  # a pattern that matched nothing stays as it is: only then look
      "$1/*"|"$1/.[!.]*"|"$1/..?*") [ -e "$_e" ] || [ -L "$_e" ] || continue;;
    esac
    _c="$_c${_e##*/}
"
  done
  emit D "$1" "$_c"
}
# cd -P in this shell, not in a $(...) subshell: a fork per disk was most of the time
real() { cd -P -- "$1" 2>/dev/null && emit R "$1" "$PWD"; cd /; }
# /dev/NAME of a disk or partition: the node itself, unless a link (then asked on demand)
node() { _n=/dev/${1##*/}; [ -e "$_n" ] && ! [ -L "$_n" ] && emit R "$_n" "$_n"; }
# each name read, or said absent (the folder itself is not listed: sysfs folders are big)
files() { _d=$1; shift; for _n in "$@"; do readf "$_d/$_n"; done; }
udev() {
  _dev=
  IFS= read -r _dev < "$1/dev" 2>/dev/null || return 0
  readf "/run/udev/data/b$_dev"
}
lsd /sys/block
for d in /sys/block/*; do
  [ -e "$d" ] || continue
  real "$d"; node "$d"; lsd "$d"; lsd "$d/holders"; lsd "$d/slaves"
  files "$d" __DISK_FILES__
  [ -d "$d/device" ] && files "$d/device" __DEVICE_FILES__
  [ -d "$d/queue" ] && files "$d/queue" __QUEUE_FILES__
  [ -d "$d/loop" ] && files "$d/loop" backing_file offset sizelimit autoclear
  [ -d "$d/md" ] && files "$d/md" __MD_FILES__
  udev "$d"
  for p in "$d"/*; do
    [ -f "$p/partition" ] || continue
    node "$p"; lsd "$p"; lsd "$p/holders"; files "$p" __DISK_FILES__; udev "$p"
  done
done
lsd /sys/fs
if lsd /sys/fs/btrfs; then
  for b in /sys/fs/btrfs/*-*; do
    [ -d "$b" ] || continue
    lsd "$b"; lsd "$b/devices"; files "$b" label metadata_uuid
    lsd "$b/devinfo" && for i in "$b"/devinfo/*; do lsd "$i"; files "$i" missing; done
    lsd "$b/allocation" && for k in data metadata system; do
      lsd "$b/allocation/$k" || continue
      for r in "$b/allocation/$k"/*; do
        [ -d "$r" ] && lsd "$r" && files "$r" total_bytes used_bytes
      done
    done
  done
fi
lsd /dev/disk && for k in /dev/disk/*; do lsd "$k"; done
readf /proc/self/mountinfo; readf /proc/mdstat; readf /proc/diskstats
readf /etc/machine-id
lsd /run/udev
# udev's database describes the disks only while udevd runs (it outlives udevd)
_udevd=0
[ -S /run/udev/control ] && for _c in /proc/[0-9]*/comm; do
  IFS= read -r _n < "$_c" 2>/dev/null || continue
  case $_n in systemd-udevd|udevd) _udevd=1; break;; esac
done
emit V udevd "$_udevd"
# mountpoints (field 5), "M path" or "G path" for a mergerfs pool (the type after
# " - "), by one awk; mountinfo's octal escapes (\040 a space) decoded by printf, a
# builtin, in this shell (a pipeline's loop would be a process of its own)
set -f  # a mountpoint may hold * or [ ]: never a pattern
_ifs=$IFS; IFS='
'
_mounts=$(awk '{k = "M"; for (i = 7; i < NF; i++) if ($i == "-") { if ($(i+1) == "fuse.mergerfs") k = "G"; break }; print k " " $5}' /proc/self/mountinfo)
set --
_pools=
for _m in $_mounts; do
  _p=$(printf '%b' "${_m#? }")
  set -- "$@" "$_p"
  [ "${_m%% *}" = G ] && _pools="$_pools$_p/.mergerfs
"
done
# one stat for every mount; a hung network mount costs 10 s, never the whole gathering
_st=$(timeout 10 stat -f -c '%n	%S %b %f %a' -- "$@" 2>/dev/null)
for _l in $_st; do emit S "${_l%%	*}" "${_l#*	}"; done
# one getfattr for every mergerfs pool's settings (its "# file:" lines part them)
if [ -n "$_pools" ] && command -v getfattr >/dev/null 2>&1; then
  set -- $_pools
  _a=$(timeout 5 getfattr -d -m - -e hex --absolute-names -- "$@" 2>/dev/null)
  emit A - "$_a"
fi
IFS=$_ifs
set +f
# the queued files: "path NUL line" for every line, the rest of the document
set -f; IFS='
'; set -- $_q; IFS=$_ifs; set +f
grep -a -Z -H -s '' /dev/null
if [ $? -lt 2 ]; then  # 1: no line matched, so grep takes these options
  printf 'G\t0\t-\n\n'
  [ $# -gt 0 ] && grep -a -Z -H -s '' -- "$@"
else
  for _f; do readnow "$_f"; done  # a grep without -Z (busybox): the slow way
fi
"""


def script() -> str:
    return (
        SCRIPT.replace("__DISK_FILES__", DISK_FILES)
        .replace("__DEVICE_FILES__", DEVICE_FILES)
        .replace("__QUEUE_FILES__", QUEUE_FILES)
        .replace("__MD_FILES__", MD_FILES)
    )


class _Miss:
    """Not in the gathering: ask the host."""


MISS = _Miss()


@dataclass
class Gathered:
    files: dict[str, str] = field(default_factory=dict)
    folders: dict[str, list[str]] = field(default_factory=dict)
    realpaths: dict[str, str] = field(default_factory=dict)
    usage: dict[str, FsUsage] = field(default_factory=dict)
    xattrs: dict[str, dict[str, str]] = field(default_factory=dict)
    absent: set[str] = field(default_factory=set)
    facts: dict[str, str] = field(default_factory=dict)
    _aliases: dict[str, str] | None = None

    def known_absent(self, path: str) -> bool:
        """``path`` was looked for and not found, or a folder on its way was listed
        without the next part of it."""
        path = self.canonical(path)
        if path in self.absent:
            return True
        parts = path.rstrip("/").split("/")
        for depth in range(len(parts) - 1, 0, -1):
            if "/".join(parts[:depth]) in self.absent:
                return True
            entries = self.folders.get("/".join(parts[:depth]) or "/")
            if entries is not None:
                return parts[depth] not in entries
        return False

    def canonical(self, path: str) -> str:
        """/sys/class/block/NAME/... as the gathering holds it (/sys/block/DISK[/PART]/...)."""
        if not path.startswith("/sys/class/block/"):
            return path
        name, _, rest = path.removeprefix("/sys/class/block/").partition("/")
        if self._aliases is None:
            self._aliases = {}
            for disk in self.folders.get("/sys/block", []):
                self._aliases[disk] = f"/sys/block/{disk}"
                for entry in self.folders.get(f"/sys/block/{disk}", []):
                    if "partition" in self.folders.get(f"/sys/block/{disk}/{entry}", []):
                        self._aliases[entry] = f"/sys/block/{disk}/{entry}"
        base = self._aliases.get(name)
        if base is None:
            return path
        return f"{base}/{rest}" if rest else base

    def read_text(self, path: str) -> str | _Miss:
        path = self.canonical(path)
        if path in self.files:
            return self.files[path]
        if self.known_absent(path):
            raise FileNotFoundError(2, "No such file or directory", path)
        return MISS


def parse(document: bytes) -> Gathered:
    """The gathering's records; a damaged record ends the reading (what is before it
    is kept; anything missing is asked of the host)."""
    gathered = Gathered()
    pos, end = 0, len(document)
    while pos < end:
        newline = document.find(b"\n", pos)
        if newline < 0:
            break
        try:
            kind, length, path_bytes = document[pos:newline].split(b"\t", 2)
            size = int(length)
        except ValueError:
            break
        body = document[newline + 1 : newline + 1 + size]
        if len(body) != size:
            break
        pos = newline + 1 + size + 1
        path = path_bytes.decode("utf-8", errors="surrogateescape")
        text = body.decode("utf-8", errors="replace")
        if kind == b"G":
            _grepped(gathered, document[pos:])
            break
        _record(gathered, kind, path, text)
    return gathered


def _grepped(gathered: Gathered, stream: bytes) -> None:
    """``grep -Z -H ''``'s lines into whole files (a file always ends with a newline:
    grep adds one where the last line had none, as sysfs and procfs never do)."""
    contents: dict[str, list[bytes]] = {}
    for line in stream.split(b"\n"):
        name, nul, text = line.partition(b"\0")
        if not nul:
            continue  # the stream's last empty piece, or a damaged line
        contents.setdefault(name.decode("utf-8", errors="surrogateescape"), []).append(text)
    for path, lines in contents.items():
        gathered.files[path] = b"".join(t + b"\n" for t in lines).decode("utf-8", errors="replace")


def _record(gathered: Gathered, kind: bytes, path: str, text: str) -> None:
    if kind == b"F":
        gathered.files[path] = text
    elif kind == b"D":
        gathered.folders[path] = sorted(line for line in text.split("\n") if line)
    elif kind == b"R":
        gathered.realpaths[path] = text
    elif kind == b"S":
        usage = parse_statfs(text)
        if usage is not None:
            gathered.usage[path] = usage
    elif kind == b"A":
        gathered.xattrs.update(parse_getfattr_files(text))
    elif kind == b"V":
        gathered.facts[path] = text
    elif kind == b"X":
        gathered.absent.add(path)


def parse_statfs(text: str) -> FsUsage | None:
    """``stat -f -c '%S %b %f %a'``'s line as FsUsage (None if it is not one)."""
    try:
        frsize, blocks, bfree, bavail = (int(v) for v in text.split())
    except ValueError:
        return None
    return FsUsage(
        size_bytes=blocks * frsize,
        free_bytes=bfree * frsize,
        avail_bytes=bavail * frsize,
        block_size=frsize,
    )


def parse_getfattr_files(text: str) -> dict[str, dict[str, str]]:
    """``getfattr -d -e hex`` of several files: each ``# file: PATH`` starts one."""
    found: dict[str, dict[str, str]] = {}
    path: str | None = None
    lines: list[str] = []
    for line in [*text.splitlines(), "# file: "]:
        if line.startswith("# file: "):
            if path is not None:
                found[path] = parse_getfattr_hex("\n".join(lines))
            path, lines = line.removeprefix("# file: "), []
        else:
            lines.append(line)
    return found


def parse_getfattr_hex(text: str) -> dict[str, str]:
    """``getfattr -d -m - -e hex``: ``name=0x...`` lines (an empty value is ``name``)."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        name, eq, value = line.partition("=")
        if not eq:
            values[name] = ""
            continue
        if value.startswith("0x"):
            try:
                values[name] = bytes.fromhex(value[2:]).decode("utf-8", errors="replace")
            except ValueError:
                continue
        elif value.startswith('"') and value.endswith('"'):
            values[name] = value[1:-1]
    return values
