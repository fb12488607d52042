"""The ladder's network rung: the same job from a client machine over its mount of the
pool (NFS, SMB, sshfs ...), after the NAS's own rungs. It runs on fio's client/server
mode as ``bench run --clients`` does (app/clients/): a fio server on the client,
started over its SSH connection and bound to its loopback, reached through a forward
of that connection (never a port open on the LAN), driven by this machine's fio.

Checked before the ladder starts (``check_client``), each a LadderRefused: the
client's fio speaks this machine's fio's protocol (the same version), the path
exists on the client and is a mount of its own there (a folder of the client's root
filesystem would measure the client's disk). A network filesystem is what the rung is
for; any other mount runs, and the ladder says it measures a local path rather than the
pool's share. Whether the mount is this pool's share is asked of the machines
themselves: a file made at the top of the pool on the NAS must show on the client at
its path (or a folder above it, within the mount).

The rung's run is stored like a ``--clients`` host's (the client as its machine,
``HOST:PATH`` as its target's label) and tagged with the ladder.
"""

from __future__ import annotations

import asyncio
import contextlib
import posixpath
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ...backends.host.seam import Host
from ...backends.mounts import MOUNTINFO, NETWORK_FS_TYPES, mount_for_path, parse_mountinfo
from ...core.bench_models import BenchRefused, EnvFingerprint, RefusalKind, RunHost, RunStatus
from ...core.errors import ParseError, TierdeckError, one_line
from ...core.jobspec import BENCH_FILE_PREFIX, JobSpec
from ...core.ladder.model import Rung
from ..bench.events import Notice
from ..clients.plan import THIS_MACHINE, ClientSpot, check_spot, check_versions, fio_version
from ..clients.run import ClientHost, ClientsResult, existing_test_files, run_clients
from ..clients.store import host_run
from .events import LadderEventSink

if TYPE_CHECKING:
    from ...backends.host.ssh import SshHost
    from ..history.store import HistoryStore

# Network filesystems beyond those the inventory already treats as such (their statvfs
# may hang): FUSE clients of network storage an admin may mount a pool's share with.
_MORE_NETWORK_FS = frozenset({"fuse.rclone", "fuse.glusterfs", "fuse.s3fs", "davfs", "afs"})


@dataclass
class NetworkClient:
    """A client of ``--client`` and ``--client-path``: its kept connection and, once
    checked, what its mount is and the jobs placed in its folder."""

    name: str  # as given: an ssh alias, user@host[:port], a fleet name
    path: str  # the pool's share as the client mounts it
    host: SshHost
    local: Host  # this machine, where fio's client runs
    fio_version: str = ""
    mount_line: str = ""  # "nfs4 nas:/mnt/pool on /mnt/nas": said before the first rung
    network_fs: bool = False
    shows_pool: bool = False  # a file made in the pool showed at the client's path

    @property
    def label(self) -> str:
        return f"{self.name}:{self.path}"


# What check_spot refuses that skips the rung rather than the ladder: the client's mount
# takes no O_DIRECT (the other rungs still run, as a FUSE rung refusing it does).
SKIPPING_REFUSALS = frozenset({RefusalKind.DIRECT_UNSUPPORTED})


class ClientRefused(TierdeckError):
    """The client cannot take the network rung; the reason names it."""


def is_network_fs(fs_type: str) -> bool:
    return fs_type in NETWORK_FS_TYPES or fs_type in _MORE_NETWORK_FS


def check_client(client: NetworkClient, nas: Host, pool_mountpoint: str) -> str | None:
    """The refusals of the module docstring (ClientRefused); then what to tell the user
    about the mount before the first rung, or None when it is the pool's share over a
    network filesystem."""
    client.path = posixpath.normpath(client.path)
    try:
        versions = {THIS_MACHINE: fio_version(client.local), client.name: fio_version(client.host)}
        check_versions(versions)
    except BenchRefused as exc:
        raise ClientRefused(f"{client.name}: {exc.reason}") from None
    client.fio_version = versions[THIS_MACHINE]
    if not client.host.is_dir(client.path):
        raise ClientRefused(f"{client.label} is not a folder on {client.name}")
    real = client.host.realpath(client.path)
    try:
        mounts = parse_mountinfo(client.host.read_text(MOUNTINFO))
    except (OSError, ParseError) as exc:
        raise ClientRefused(f"{client.name}: its mounts could not be read ({exc})") from None
    mount = mount_for_path(mounts, real)
    if mount is None:
        raise ClientRefused(f"{client.label}: no mount holds it on {client.name}")
    client.network_fs = is_network_fs(mount.fs_type)
    client.mount_line = f"{mount.fs_type} {mount.source} on {mount.mountpoint}"
    if mount.mountpoint == "/" and not client.network_fs:
        raise ClientRefused(
            f"{client.label} is a folder of {client.name}'s root filesystem "
            f"({mount.fs_type} {mount.source}), not a mount: the network rung runs where "
            "the client mounts the pool's share (NFS, SMB, sshfs); give that folder"
        )
    client.shows_pool = _shows_pool(client, nas, pool_mountpoint, mount.mountpoint)
    if not client.network_fs:
        seen = (
            " (it shows the pool's files, without a network between)" if client.shows_pool else ""
        )
        return (
            f"{client.label} is a local path ({client.mount_line}), not a network share of "
            f"the pool{seen}: the network rung measures that path"
        )
    if not client.shows_pool:
        return (
            f"{client.label} ({client.mount_line}) did not show a file just made at the top "
            f"of {pool_mountpoint}: it may be another share than this pool's"
        )
    return None


def _shows_pool(client: NetworkClient, nas: Host, pool: str, mountpoint: str) -> bool:
    """Whether a file made at the top of the pool on the NAS shows on the client at its
    path or a folder above it within its mount (the share may be a folder of the pool)."""
    name = f"{BENCH_FILE_PREFIX}share-{secrets.token_hex(4)}"
    try:
        nas.write_text(f"{pool}/{name}", "tierdeck: is this the pool's share?\n")
    except (OSError, TierdeckError):
        return False
    try:
        folder = client.path
        while True:
            if client.host.exists(f"{folder}/{name}"):
                return True
            if folder == mountpoint or folder == "/" or not folder.startswith(mountpoint):
                return False
            folder = posixpath.dirname(folder)
    finally:
        with contextlib.suppress(OSError, TierdeckError):
            nas.remove(f"{pool}/{name}")


def client_direct_refused(client: NetworkClient) -> str | None:
    """How the client's mount answers an O_DIRECT write: None when it takes it."""
    failure = client.host.probe_write(client.path, f"{BENCH_FILE_PREFIX}probe", direct=True)
    return None if failure is None else (failure.strerror or str(failure))


def place_client_jobs(client: NetworkClient, jobs: Sequence[JobSpec]) -> tuple[JobSpec, ...]:
    """The jobs placed in the client's folder, after its free space and O_DIRECT checks
    (BenchRefused naming the client)."""
    return check_spot(client.host, ClientSpot(client.name, client.path), jobs)


async def run_network_rung(
    client: NetworkClient,
    jobs: tuple[JobSpec, ...],
    base: Rung,
    *,
    name: str,
    preset: str | None,
    tags: tuple[str, ...],
    store: HistoryStore | None,
    on_event: LadderEventSink,
    cancel: asyncio.Event,
) -> Rung:
    """The job on the client, through its mount: a Rung measured or skipped with why,
    its run stored (with ``store``) under ``tags``."""
    spot = ClientHost(ClientSpot(client.name, client.path), client.host, jobs)

    def say(text: str) -> None:
        on_event(Notice(text))

    try:
        spot.before = await asyncio.to_thread(existing_test_files, client.host, client.path)
        result = await run_clients([spot], client.local, cancel, say)
    except TierdeckError as exc:
        return replace(base, skipped=one_line(exc))
    run_id = None
    if store is not None:
        run_id = await asyncio.to_thread(_save, store, client, result, jobs, name, preset, tags)
    host = result.hosts[0]
    if result.status is RunStatus.CANCELLED or host.status is RunStatus.CANCELLED:
        return replace(base, run_id=run_id, skipped="cancelled")
    if host.status is not RunStatus.OK:
        return replace(base, run_id=run_id, skipped=host.error or "fio failed on the client")
    return replace(base, run_id=run_id, summary=dict(host.summary))


def _save(
    store: HistoryStore,
    client: NetworkClient,
    result: ClientsResult,
    jobs: tuple[JobSpec, ...],
    name: str,
    preset: str | None,
    tags: tuple[str, ...],
) -> int:
    machine = RunHost(client.host.hostname, client.host.identity)
    env = EnvFingerprint(fio_version=client.fio_version or None)
    return store.save(host_run(result.hosts[0], jobs, preset, name, machine, env, tags))
