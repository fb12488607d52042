"""Collect the whole storage inventory of a host.

Every source of the registry (``backends/sources.SOURCES``: disks, mounts, mergerfs,
btrfs, md, ZFS, the dm/md/bcache stacking) is read on its own; a source that fails
becomes a note and an empty section, so one broken tool never hides the rest. Sources
that run external commands (ZFS, lsscsi for the disks) run in threads beside the
sysfs/procfs readers; each source starts as soon as the sources it needs are read.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from ...backends.host import Host
from ...backends.sources import (
    SOURCES,
    Notes,
    Parts,
    Source,
    check_registry,
    inventory_fields,
    read_guarded,
)
from ...core.models import Inventory

Result = tuple[Any, Notes]


def _read_after(
    source: Source[Any], host: Host, needs: Sequence[tuple[str, Future[Result]]]
) -> Result:
    """Wait for what the source needs, then read it (guarded)."""
    parts = Parts({name: future.result()[0] for name, future in needs})
    return read_guarded(source, host, parts)


def collect_inventory(host: Host, sources: Sequence[Source[Any]] = SOURCES) -> Inventory:
    """Read everything tierdeck shows. Never raises for a missing tool or an
    unreadable source: those become ``Inventory.notes``."""
    check_registry(sources)
    results: dict[str, Future[Result]] = {}
    in_main: list[Future[Result]] = []  # set by this thread, in registry order
    in_threads = [s for s in sources if s.runs_commands]
    with host.gathering(), ThreadPoolExecutor(max_workers=max(1, len(in_threads))) as pool:
        # One worker per command-running source: none waits in the queue behind another,
        # and each waits only on earlier sources (the registry order), so none deadlocks.
        for source in sources:
            if source.runs_commands:
                needs = [(name, results[name]) for name in source.needs]
                results[source.name] = pool.submit(_read_after, source, host, needs)
            else:
                results[source.name] = Future()
                in_main.append(results[source.name])
        try:
            for source in sources:
                if not source.runs_commands:
                    needs = [(name, results[name]) for name in source.needs]
                    results[source.name].set_result(_read_after(source, host, needs))
        finally:
            for future in in_main:
                future.cancel()  # after a bug: no worker waits forever on a part not read
        parts = [(source, results[source.name].result()) for source in sources]

    fields: dict[str, Any] = {}
    notes: Notes = ()
    for source, (part, source_notes) in parts:
        fields.update(inventory_fields(source, part))
        notes += source_notes
    return Inventory(
        hostname=host.hostname,
        kernel=host.kernel,
        is_root=host.is_root,
        notes=notes,
        **fields,
    )
