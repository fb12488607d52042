"""A machine-wide lock on a remote host: the same flock file a tierdeck running on
that host takes (``backends/locks.py``), held by a shell on a channel of the
connection. Closing the channel, or losing the connection, ends that shell and the
host's kernel releases the lock: a dropped link never leaves it held."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ....core.errors import HostUnreachable
from ...locks import LockHeld, lock_file_name
from . import remote_sh

if TYPE_CHECKING:
    from .host import SshHost

LOCK_HELD_STATUS = 75


@contextlib.contextmanager
def remote_lock(host: SshHost, key: str) -> Iterator[None]:
    host.facts  # noqa: B018 - connected, leftovers cleaned
    link = host.link
    command = "exec sh -c " + remote_sh.q(remote_sh.lock_line(lock_file_name(key)))

    async def take() -> object:
        conn = await link.connection()
        link.round_trips += 1
        process = await conn.create_process(command, encoding=None)
        first = await process.stdout.readline()
        if first.strip() != b"held":
            completed = await process.wait(check=False)
            return completed.exit_status
        return process

    try:
        held = link.call(take(), timeout=30)
    except (OSError, TimeoutError) as exc:
        raise HostUnreachable(str(host.target), f"cannot take the lock: {exc}") from exc
    if not hasattr(held, "stdin"):
        if held == LOCK_HELD_STATUS:
            raise LockHeld(f"{host.target}:{key}")
        raise HostUnreachable(str(host.target), f"flock exited {held} (is util-linux installed?)")
    try:
        yield
    finally:

        async def release() -> None:
            held.stdin.write_eof()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(held.wait(check=False), 10)  # type: ignore[attr-defined]

        with contextlib.suppress(Exception):
            link.call(release(), timeout=15)
