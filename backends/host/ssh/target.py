"""Where a remote host is: an ssh config alias or ``user@host[:port]``, as ``ssh`` takes it."""

from __future__ import annotations

import re
from dataclasses import dataclass

# user@host:port, host, [v6]:port, user@[v6]
_TARGET = re.compile(
    r"^(?:(?P<user>[^@\s:/]+)@)?(?:\[(?P<v6>[0-9A-Fa-f:.%]+)\]|(?P<host>[^@\s:/\[\]]+))"
    r"(?::(?P<port>\d{1,5}))?$"
)


class BadTarget(ValueError):
    """Not something ssh could connect to."""


@dataclass(frozen=True)
class SshTarget:
    """``host`` may be an alias of ~/.ssh/config: ssh's config (HostName, User, Port,
    IdentityFile, ProxyJump) applies to it, and what is given here wins over it."""

    host: str
    user: str | None = None
    port: int | None = None

    @classmethod
    def parse(cls, text: str) -> SshTarget:
        match = _TARGET.match(text.strip())
        if match is None or text.strip().startswith("-"):
            raise BadTarget(
                f"{text!r} is not an ssh target: give an ssh config alias or user@host[:port]"
            )
        port = int(match["port"]) if match["port"] else None
        if port is not None and not 0 < port < 65536:
            raise BadTarget(f"{text!r}: port {port} is out of range")
        return cls(host=match["v6"] or match["host"], user=match["user"], port=port)

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        user = f"{self.user}@" if self.user else ""
        port = f":{self.port}" if self.port else ""
        return f"{user}{host}{port}"

    def ssh_command(self) -> str:
        """The ``ssh`` command line that reaches the same machine (for messages)."""
        parts = ["ssh"]
        if self.port:
            parts += ["-p", str(self.port)]
        parts.append(f"{self.user}@{self.host}" if self.user else self.host)
        return " ".join(parts)
