"""Why selected files fit on no slow branch, said once for the run rather than as an
errno per file: the forecast, the run's message, the history and the mover view use it.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...core.layout.destination import Destination
from ...core.layout.model import CreatePolicy
from ...core.mergerfs_policy import CreateErrno
from ...core.mover import SlowSpace, Unplaced
from ...core.units import format_bytes


def unplaced_reason(
    unplaced: Sequence[Unplaced], dest: Destination, space: Sequence[SlowSpace]
) -> str:
    """One line naming each cause the placement gave (its errno, not its text): a
    read-only slow branch, no room above minfreespace, or a create policy that finds
    no branch. Empty when every selected file was placed."""
    if not unplaced:
        return ""
    errors = {u.error for u in unplaced}
    parts: list[str] = []
    readonly = [s.path for s in space if s.readonly_fs]
    full = CreateErrno.ENOSPC in errors or None in errors
    if CreateErrno.EROFS in errors:
        parts += [f"slow branch {p} is mounted read-only" for p in readonly] or [
            f"the slow pool's create policy is {dest.policy}"
        ]
    elif full:
        # mergerfs skips a read-only branch and says ENOSPC for the rest: the admin
        # still wants to know that branch took nothing.
        parts += [f"slow branch {p} is mounted read-only" for p in readonly]
    writable = [s for s in space if not s.readonly_fs]
    # mergerfs reports EROFS over ENOSPC: with a read-only branch, the writable ones
    # may still have been too full.
    if full or (CreateErrno.EROFS in errors and writable and dest.policy is not CreatePolicy.EROFS):
        free = ", ".join(f"{s.path} {format_bytes(s.avail_bytes)}" for s in writable)
        largest = max(u.file.size for u in unplaced)
        parts.append(
            f"no slow branch has room above minfreespace {format_bytes(dest.minfreespace_bytes)}"
            f" (free: {free or 'none writable'}; largest file {format_bytes(largest)})"
        )
    if CreateErrno.ENOENT in errors:
        parts.append(f"the slow pool's create policy {dest.policy} finds no branch for them")
    return "; ".join(parts)
