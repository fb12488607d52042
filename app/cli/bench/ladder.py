"""``tierdeck bench ladder``: the layer-penalty ladder of a mergerfs pool, and its
option sweep. The engine is app/ladder/run.py; this module turns options into a plan,
events into progress on stderr (rung k of n above the run's own bar, reporting.py's
RunReporter) and the result into a table or the ``tierdeck.ladder/1`` JSON object
(docs/ladder-json.md)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ....core.errors import TierdeckError
from ....core.jobspec import JobSpecError
from ..common import (
    EXIT_FAILED,
    EXIT_REFUSED,
    cancel_exit_code,
    command_host,
    fail,
    host_option,
    once,
    open_remote_host,
    until_cancelled,
)
from .jobs import load_jobs
from .reporting import RunReporter, stderr_is_terminal

if TYPE_CHECKING:
    from ....core.ladder.model import LadderResult
    from ....core.models import Inventory
    from ...bench.service import BenchService
    from ...ladder.network import NetworkClient
    from ...ladder.run import LadderPlan

LADDER_HELP = """Run the same job on each layer of the mergerfs pool TARGET and show what
each layer costs (a home NAS's "raw pool 1240 vs mergerfs 374", the mergerfs
benchmarking guide's layer by layer test):

\b
  branch  the branch the pool's create policy gives a new file (every RW branch
          with --all-branches), directly
  slow    on a tiered pool (ff or epff over several branches): the slow branch
          new files go to once the cache is full, directly
  pool    the pool itself
  tmpfs   a throwaway mergerfs with the pool's options over a tmpfs sized to the job
  nullrw  the same with nullrw=true: FUSE alone, no data written
  network with --client HOST --client-path PATH: the same job from that machine
          over its mount of the pool (NFS, SMB, sshfs), measured against the pool

The table gives MiB/s, IOPS and latency per rung and its penalty against the rung
below it (the pool against the branch its create policy writes to, tmpfs against
nullrw), then a one-line diagnosis naming that branch (a difference inside the
rungs' own second-by-second spread reads as noise). --option NAME=V1,V2 sweeps one mergerfs option instead: the pool as mounted,
then a throwaway pool of the same branches once per value (cache.files=off,partial,
auto-full; direct_io=true,false; async_read=true,false ...).

Without --preset or --job the job is sequential 1 MiB writes with O_DIRECT and one
fsync at the end, for 10 s per rung (--runtime) over a file of an eighth of the
smallest free space (8 MiB to 1 GiB). When the pool refuses O_DIRECT every rung runs it
buffered, like for like: an fdatasync every 16 MiB and, as root, caches dropped before
each rung; the ladder says so before the first rung and in its result. A rung that cannot run (O_DIRECT
refused through FUSE or tmpfs, no room in RAM or on a branch) is shown as skipped with
the reason; the others still run. Every rung is stored as a run tagged ladder:ID.

--client HOST (an ssh alias, user@host[:port] or a fleet name from hosts.toml) and
--client-path PATH (where that machine mounts the pool's share) add the network rung
last. It runs on fio's client/server mode, as bench run --clients does: a fio server
on the client started over SSH, listening on the client's loopback and reached through
a forward of the SSH connection (no fio port is opened on the network), stopped and its
files removed when the rung ends. Before the first rung the client is checked: the
same fio version as this machine's, PATH a folder on a mount of its own there (a folder
of the client's root filesystem is refused), free space; a mount that is no network
filesystem, or does not show a file made at the top of the pool, is said before the
first rung. The diagnosis ends with what the network costs against the pool on the
NAS. When the client's mount refuses O_DIRECT the default job runs buffered on every
rung.

Throwaway mounts live under /run/tierdeck/throwaway and are unmounted when the ladder
ends, also on Ctrl-C; those of a tierdeck that was killed are cleaned up at the next
start (fio processes still using them are stopped first).

\b
Exit status:
  0    every rung ran or was skipped with a reason
  1    tierdeck could not work (fio missing, the history cannot be written, the
       client unreachable ...)
  2    refused before starting (not a mergerfs pool, bad --option, bad job, the
       client's path not a mount or its fio another version) or bad options
  130  cancelled with Ctrl-C (143 with SIGTERM): fio stopped, mounts gone
"""


class LadderReporter(RunReporter):
    """RunReporter, plus a line per rung ("rung 2 of 4: pool /mnt/pool")."""

    throwaway_rung = False

    def __call__(self, event: Any) -> None:
        from ....core.bench_models import WarningKind
        from ....core.ladder.model import RungKind
        from ...bench.events import Notice
        from ...ladder.events import RungDone, RungStarted

        if isinstance(event, RungStarted):
            self.throwaway_rung = event.kind in (RungKind.TMPFS, RungKind.NULLRW)
            self.say(f"rung {event.index + 1} of {event.total}: {event.label} {event.path}")
        elif isinstance(event, RungDone):
            if event.rung.skipped is not None:
                self.say(f"{event.rung.label}: skipped: {event.rung.skipped}")
        elif (
            isinstance(event, Notice) and event.kind is WarningKind.NO_DISKS and self.throwaway_rung
        ):
            return  # a tmpfs has no disk by design: nothing to warn about
        else:
            super().__call__(event)


async def _drive(
    service: BenchService, inv: Inventory, plan: LadderPlan, reporter: LadderReporter
) -> tuple[LadderResult, int]:
    from ...ladder.run import run_ladder

    return await until_cancelled(
        lambda cancel: run_ladder(service, inv, plan, reporter, cancel),
        reporter.say,
        "cancelling: stopping fio and unmounting the throwaway pools ...",
    )


@click.command("ladder", help=LADDER_HELP)
@host_option
@once("--target", required=True, metavar="MERGERFS_POOL", help="The pool's mountpoint.")
@once("--preset", "preset_name", metavar="NAME", help="A preset (tierdeck bench presets).")
@once(
    "--job",
    "job_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A fio job file.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one tierdeck.ladder/1 JSON object.")
@click.option("--all-branches", is_flag=True, help="A branch rung for every RW branch.")
@once("--option", "option_text", metavar="NAME=V1,V2", help="Sweep one mergerfs option.")
@once(
    "--runtime",
    type=click.IntRange(min=1),
    metavar="SEC",
    help="Every rung runs this long (the default job: 10 s).",
)
@once("--size", metavar="S", help="fio's size= for every job (512M, 4G).")
@click.option("--no-save", is_flag=True, help="Do not store the rungs in the history.")
@once(
    "--client",
    "client_name",
    metavar="HOST",
    help="Add the network rung, run from this client (ssh alias or fleet name).",
)
@once(
    "--client-path",
    metavar="PATH",
    help="Where --client mounts the pool's share (NFS, SMB, sshfs).",
)
def ladder_cmd(
    target: str,
    preset_name: str | None,
    job_file: Path | None,
    as_json: bool,
    all_branches: bool,
    option_text: str | None,
    runtime: int | None,
    size: str | None,
    no_save: bool,
    client_name: str | None,
    client_path: str | None,
) -> None:
    from ....core.ladder.options import OptionSweepError, parse_option_sweep
    from ...bench.service import BenchService
    from ...history.run_sets import RunSetStore
    from ...history.store import HistoryError, HistoryStore
    from ...ladder.run import LadderRefused, plan_ladder
    from ...ladder.throwaway_mounts import clean_stale
    from ...machine.inventory import collect_inventory

    if (client_name is None) != (client_path is None):
        raise click.UsageError("--client and --client-path go together")
    if client_path is not None and not client_path.startswith("/"):
        raise click.UsageError(f"--client-path {client_path!r}: a full path on the client")
    if client_name is not None and option_text is not None:
        raise click.UsageError("--client adds a rung to the layer ladder: leave out --option")
    jobs, preset = (None, None)
    if preset_name is not None or job_file is not None:
        jobs, preset = load_jobs(preset_name, job_file)
    try:
        option = None if option_text is None else parse_option_sweep(option_text)
    except OptionSweepError as exc:
        fail(str(exc), EXIT_REFUSED)
    host = command_host()
    reporter = LadderReporter(live=stderr_is_terminal() and not as_json)
    for stale in clean_stale(host):
        reporter.say(f"removed throwaway mounts left by a dead tierdeck: {stale.path}")
        for problem in stale.problems:
            reporter.say(f"  could not: {problem}")
    service = BenchService(host, store=None if no_save else HistoryStore)
    try:
        store = None if no_save else RunSetStore()
        service.open_store()
    except HistoryError as exc:
        fail(f"{exc} (or add --no-save)", EXIT_FAILED)
    client = None if client_name is None else _open_client(client_name, client_path or "")
    try:
        inv = collect_inventory(host)
        plan = plan_ladder(
            host,
            inv,
            target,
            jobs,
            preset=preset.name if preset else None,
            all_branches=all_branches,
            option=option,
            runtime=runtime,
            size=size,
            store=store,
            client=client,
        )
        with reporter:
            result, signum = asyncio.run(_drive(service, inv, plan, reporter))
    except LadderRefused as exc:
        fail(f"refused: {exc.reason}", EXIT_REFUSED)
    except JobSpecError as exc:
        fail(str(exc), EXIT_REFUSED)
    except TierdeckError as exc:
        fail(str(exc), EXIT_FAILED)
    finally:
        if client is not None:
            client.host.close()
    _report(result, as_json=as_json)
    if signum:
        sys.exit(cancel_exit_code(signum))


def _open_client(name: str, path: str) -> NetworkClient:
    """The network rung's client, connected (a fleet name as hosts.toml says)."""
    from ....backends.host import LiveHost
    from ...clients.plan import ssh_target
    from ...fleet.config import FleetConfigError, load_fleet
    from ...ladder.network import NetworkClient

    try:
        fleet = load_fleet()
    except FleetConfigError as exc:
        fail(f"{exc} (hosts.toml names the fleet's hosts)", EXIT_FAILED)
    return NetworkClient(name, path, open_remote_host(ssh_target(name, fleet)), LiveHost())


def _report(result: LadderResult, *, as_json: bool) -> None:
    from ...ladder.render import ladder_lines, ladder_to_json

    if as_json:
        click.echo(json.dumps(ladder_to_json(result), separators=(",", ":")))
        return
    click.echo("\n".join(ladder_lines(result)))
    if result.id is not None:
        click.echo(f"saved as ladder #{result.id} (its runs are tagged ladder:{result.id})")
