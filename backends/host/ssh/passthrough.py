"""A command on a remote host with this terminal attached: its output streamed here
as it comes, what is typed here sent to it (a confirmation), a terminal of its own on
the host when this one is a terminal (it then stops with the session, by SIGHUP)."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ....core.errors import HostUnreachable
from . import remote_sh

if TYPE_CHECKING:
    from .host import SshHost


def run_streamed(host: SshHost, argv: Sequence[str]) -> int:
    """Run argv on the host to its end; its exit status (255: the link was lost)."""
    link = host.link
    tty = sys.stdin.isatty() and sys.stdout.isatty()

    async def run() -> int:
        conn = await link.connection()
        link.round_trips += 1
        options: dict[str, Any] = {}
        if tty:
            size = shutil.get_terminal_size()
            options["term_type"] = os.environ.get("TERM", "xterm")
            options["term_size"] = (size.columns, size.lines)
        completed = await conn.run(
            remote_sh.command_line(argv), stdin=sys.stdin.buffer, stdout=sys.stdout.buffer,
            stderr=sys.stderr.buffer, check=False, encoding=None, **options,
        )  # fmt: skip
        if completed.exit_status is None or completed.exit_status < 0:
            return 255
        return int(completed.exit_status)

    try:
        return link.call(run())
    except HostUnreachable as exc:
        print(f"tierdeck: {exc}", file=sys.stderr)
        return 255
