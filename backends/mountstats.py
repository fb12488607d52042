"""/proc/self/mountstats: what an NFS client moved through each of its mounts.

A folder on an NFS mount has no disk on the client: its I/O shows here, per mount
(fs/nfs/super.c ``nfs_show_stats``; lines described in proc_pid_mountstats(5) and read
by nfs-utils' mountstats and nfsiostat). A mount's block starts with ``device SOURCE
mounted on MOUNTPOINT with fstype nfs4 statvers=1.1``; of the indented lines below it
tierdeck reads two kinds:

- ``bytes:`` normal read, normal write, O_DIRECT read, O_DIRECT write, server read,
  server write, pages read, pages written: the server bytes are what went over the
  wire to the NAS (after the client's page cache), as disk sectors are on a NAS;
- the per-op lines ``READ:`` and ``WRITE:``: operations, transmissions, major timeouts,
  bytes sent, bytes received, then cumulative milliseconds queued, in round trip and
  in total ("execute", the RPC from queueing to its answer) and, since statvers 1.1 on
  newer kernels, errors.

Other filesystems' lines (``device /dev/sda1 mounted on / with fstype ext4``) carry no
statistics and are skipped, as is anything malformed: the live view must not stop on a
line it does not know. Counters are cumulative since the mount.
"""

from __future__ import annotations

from dataclasses import dataclass

from .mounts import unescape

MOUNTSTATS = "/proc/self/mountstats"

_NFS_TYPES = frozenset({"nfs", "nfs4"})
_SERVER_READ, _SERVER_WRITE = 4, 5  # in the bytes: line
_OPS, _EXECUTE_MS = 0, 7  # in a per-op line, after its name


@dataclass(frozen=True)
class NfsCounters:
    """One NFS mount's cumulative counters: bytes to and from the server, and its READ
    and WRITE RPCs with the milliseconds they took in total."""

    device: str
    server_read_bytes: int
    server_write_bytes: int
    reads: int = 0
    writes: int = 0
    read_ms: int = 0
    write_ms: int = 0


def _numbers(fields: list[str]) -> list[int] | None:
    if not all(f.isascii() and f.isdigit() for f in fields):
        return None
    return [int(f) for f in fields]


def _header(line: str) -> tuple[str, str, str] | None:
    """``device SRC mounted on MNT with fstype T ...``: (source, mountpoint, type)."""
    fields = line.split()
    if len(fields) < 8 or fields[0] != "device" or fields[2:4] != ["mounted", "on"]:
        return None
    if fields[5:7] != ["with", "fstype"]:
        return None
    return unescape(fields[1]), unescape(fields[4]), fields[7]


def parse_mountstats(text: str) -> dict[str, NfsCounters]:
    """Every NFS mount with a ``bytes:`` line, by its mountpoint. Never raises on
    content: lines that do not read as the format are skipped."""
    found: dict[str, NfsCounters] = {}
    current: tuple[str, str] | None = None  # (device, mountpoint) of an NFS block
    counts: dict[str, int] = {}
    for line in text.splitlines():
        header = _header(line) if line.startswith("device ") else None
        if header is not None or line.startswith("device "):
            current = None
            if header is not None and header[2] in _NFS_TYPES:
                current, counts = (header[0], header[1]), {}
            continue
        if current is None:
            continue
        name, sep, rest = line.strip().partition(":")
        values = _numbers(rest.split()) if sep else None
        if values is None:
            continue
        if name == "bytes" and len(values) > _SERVER_WRITE:
            counts["read_bytes"], counts["write_bytes"] = (
                values[_SERVER_READ],
                values[_SERVER_WRITE],
            )
        elif name in ("READ", "WRITE") and len(values) > _EXECUTE_MS:
            counts[f"{name.lower()}s"] = values[_OPS]
            counts[f"{name.lower()}_ms"] = values[_EXECUTE_MS]
        else:
            continue
        if "read_bytes" in counts:
            found[current[1]] = NfsCounters(
                current[0],
                counts["read_bytes"],
                counts["write_bytes"],
                counts.get("reads", 0),
                counts.get("writes", 0),
                counts.get("read_ms", 0),
                counts.get("write_ms", 0),
            )
    return found
