"""Which network interface carries a share's traffic, and what it moved.

A folder on a FUSE or SMB share (sshfs, CIFS, ...) has no disk on the client and no
per-mount counters: the closest live figure is the interface its server is reached
through. The server comes from the mount (``user@host:path`` for sshfs,
``//server/share`` or the ``addr=`` option for CIFS, ``host:/path`` ...), a name is
resolved on that host (``getent ahosts``), the interface is the one its kernel routes
to (``ip -o route get ADDR``: ``... dev IF ...``), and its counters are
``/sys/class/net/IF/statistics/{rx,tx}_bytes``. They count everything on the
interface, the share's traffic included: a line for the share, not for it alone.
Every read goes through the host seam.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

from ..core.errors import TierdeckError
from .host import Host

STATISTICS = "/sys/class/net/{}/statistics/{}"
_NAME_RE = re.compile(r"^[A-Za-z0-9._:@-]{1,64}$")  # what an interface may be named
_HOST_RE = re.compile(r"^[A-Za-z0-9._-]{1,253}$")


@dataclass(frozen=True)
class NetCounters:
    rx_bytes: int
    tx_bytes: int


def is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def server_of(source: str, super_options: tuple[str, ...] = ()) -> str | None:
    """The server of a share's mount source (an address or a name), or None."""
    for option in super_options:
        key, _, value = option.partition("=")
        if key in ("addr", "ip") and is_address(value):
            return value
    text = source.strip()
    if "://" in text:  # davfs, rclone remotes given as URLs
        text = text.split("://", 1)[1].split("/", 1)[0]
    elif text.startswith("//"):  # CIFS: //server/share
        text = text[2:].split("/", 1)[0]
    elif ":" in text and not text.startswith("["):
        text = text.rsplit(":", 1)[0]  # host:/path, user@host:path
    elif text.startswith("[") and "]" in text:  # [v6]:/path
        text = text[1 : text.index("]")]
    text = text.rsplit("@", 1)[-1].strip("[]")
    if is_address(text) or _HOST_RE.match(text):
        return text
    return None


def parse_route_get(text: str) -> str | None:
    """``ip -o route get``'s interface (``dev IF``), or None."""
    fields = text.split()
    for index, field in enumerate(fields[:-1]):
        if field == "dev" and _NAME_RE.match(fields[index + 1]):
            return fields[index + 1]
    return None


def parse_getent(text: str) -> str | None:
    """The first address ``getent ahosts NAME`` printed, or None."""
    for line in text.splitlines():
        fields = line.split()
        if fields and is_address(fields[0]):
            return fields[0]
    return None


def route_interface(host: Host, server: str) -> str | None:
    """The interface ``host`` reaches ``server`` through, or None when it cannot say
    (no ``ip``, a name that does not resolve)."""
    try:
        address: str | None = server
        if not is_address(server):
            if not host.has_tool("getent"):
                return None
            found = host.run(["getent", "ahosts", server], timeout=10)
            address = parse_getent(found.stdout) if found.ok else None
        if address is None:
            return None
        if not host.has_tool("ip"):
            return None
        route = host.run(["ip", "-o", "route", "get", address], timeout=10)
    except (TierdeckError, OSError):
        return None
    return parse_route_get(route.stdout) if route.ok else None


def parse_counter(text: str) -> int | None:
    value = text.strip()
    return int(value) if value.isascii() and value.isdigit() else None


def read_interface(host: Host, interface: str) -> NetCounters | None:
    """The interface's byte counters now, or None when they cannot be read."""
    try:
        rx = parse_counter(host.read_text(STATISTICS.format(interface, "rx_bytes")))
        tx = parse_counter(host.read_text(STATISTICS.format(interface, "tx_bytes")))
    except (TierdeckError, OSError):
        return None
    return None if rx is None or tx is None else NetCounters(rx, tx)
