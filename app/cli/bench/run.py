"""``tierdeck bench run``: a benchmark for scripts.

The engine (preflight, runner) and the store do the work; this module only turns
options into a request, events into a progress bar (reporting.py), and results into a
table (app/history/run_text.py draws it, as ``history show`` does) or the
``tierdeck.run/1`` JSON object (docs/bench-json.md).

Exit status of ``bench run``: 0 ok, 1 the run failed (fio's message on stderr), 2
refused before starting (every BenchRefused, wherever it is raised) or bad options, 130
cancelled with Ctrl-C (143 with SIGTERM), 141 stdout closed early (the root group of
app/cli/root.py). Tables are plain aligned text (stable in pipes and greppable);
rich draws only the live progress bar, on stderr. Heavy imports (rich, the engine)
happen inside the command so that the TUI starts fast.
"""

from __future__ import annotations

import asyncio
import json
import os
import posixpath
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

from ....core.bench_models import BenchRefused, RefusalKind, RunRequest, RunResult, RunStatus
from ....core.errors import TierdeckError
from ....core.jobspec import JobSpecError
from ...history.run_json import result_to_json
from ...history.run_text import result_lines
from ...history.store import HistoryError, HistoryStore
from ..common import (
    EXIT_FAILED,
    EXIT_REFUSED,
    EXIT_SIGINT,
    cancel_exit_code,
    command_host,
    fail,
    host_option,
    once,
    requested_host,
    until_cancelled,
)
from .jobs import RunAsk, load_jobs
from .reporting import RunReporter, stderr_is_terminal

if TYPE_CHECKING:
    from ....core.models import Inventory
    from ...bench.service import BenchService

_BUFFERED_ADVICE = (
    "To run anyway, re-run with --direct 0 (buffered I/O). The page cache (or the ZFS "
    "ARC) then serves reads and absorbs writes, so the figures can be far above what "
    "the disks underneath can do; compare them only with other --direct 0 runs."
)


def _stdin_is_terminal() -> bool:
    return sys.stdin.isatty()


async def _drive(
    service: BenchService, inv: Inventory, request: RunRequest, reporter: RunReporter
) -> tuple[RunResult, int]:
    """Run and store, cancelling cleanly (fio stopped, test files removed) on
    SIGINT/SIGTERM."""
    return await until_cancelled(
        lambda cancel: service.run(inv, request, reporter, cancel),
        reporter.say,
        "cancelling: stopping fio and removing its test files ...",
    )


def _refused(exc: BenchRefused, *, direct: str | None, raw: bool) -> NoReturn:
    message = f"refused: {exc.reason}"
    if exc.kind is RefusalKind.DIRECT_UNSUPPORTED and direct != "0":
        message += "\n" + _BUFFERED_ADVICE
    if exc.kind is RefusalKind.RAW_CONFIRMATION and not raw:
        message += (
            "\nTo run on the device itself, add --raw: tierdeck then asks for the device "
            "name on a terminal (scripts add --confirm-device NAME)."
        )
    fail(message, EXIT_REFUSED)


def _device_line(inv: Inventory, node: str) -> str:
    """``/dev/loop7 (loop7, 64M, Loopback device)`` for the confirmation prompt."""
    from ....core.units import format_bytes

    for disk in inv.disks:
        for name, path, size, model in [
            (disk.name, disk.path, disk.size_bytes, disk.model),
            *((p.name, p.path, p.size_bytes, None) for p in disk.partitions),
        ]:
            if node in (path, f"/dev/{name}"):
                facts = [name, format_bytes(size), *([model] if model else [])]
                return f"{node} ({', '.join(facts)})"
    return node


def _ask_device_name(inv: Inventory, node: str) -> str:
    click.echo(
        f"raw mode: fio will read and write {_device_line(inv, node)} itself. "
        "Everything on it is destroyed.",
        err=True,
    )
    try:
        typed: str = click.prompt("Type the device name to confirm", err=True)
    except click.Abort:
        fail("raw mode not confirmed: nothing was run", EXIT_REFUSED)
    return typed


def _targets(values: tuple[str, ...]) -> tuple[str, ...]:
    """``--target`` is given once, or with --clients once per host (HOST:PATH): the
    count is checked once --clients is known (run_cmd)."""
    if any(not v.strip() for v in values):
        raise click.BadParameter("an empty path", param_hint="--target")
    return values


RUN_HELP = """Run a benchmark on TARGET: a progress bar and a table of results on a
terminal, or with --json exactly one JSON object (docs/bench-json.md). Ctrl-C cancels
cleanly: fio is stopped and its test files removed.

Test files: the target is fio's directory=, and fio names the files itself, one per
job clone (numjobs) and per nrfiles file, as plain fio would lay them out, behind
tierdeck's prefix:

\b
  TARGET/.tierdeck-bench.JOBNAME.CLONE.FILE

They are removed after the run, also when it fails or is cancelled. A job file's own
filename= is kept when it lies inside the target; one outside is refused.

--runtime SEC: every job runs that long (time_based: fio loops over its files until
the time is up). Without it each job behaves as its preset or job file says (often:
it stops once its size is done).

Results: one row per job and direction, bandwidth in MiB/s (1 MiB/s = 1,048,576
bytes per second, as in fio's own report), read before write. An "all jobs" row only
when the jobs do the same kind of I/O (same rw and bs). --json keeps bytes.

Several hosts at once (--clients A,B): the job runs from every host at the same
moment on fio's client/server mode, each fio server on its host's loopback reached
through SSH; --target is the folder on every host, or HOST:PATH once per host. One row
per host and "all clients"; a host lost mid-run fails alone (exit 1, "partial"), the
others' results kept. --json prints one tierdeck.clients/1 object.

Several machines of the fleet, to compare them (--hosts all, or --hosts A,B): the
same job on each host of hosts.toml (or each named: fleet names, ssh aliases), one
after the other, or all at once with --parallel (each then loads the others' network
and disks: the figures are what they get together). Each run happens on that machine
as with tierdeck --host NAME bench run and is stored here with it as its host; a host
that cannot be reached, refuses the run or drops mid-run is reported and the others go
on (exit 1, "partial"). --target is the folder on every host, or HOST:PATH once per
host. The runs are then compared (the table of tierdeck compare); --json prints one
tierdeck.run/1 object per host and line instead, with "fleet_host", the name given.

Raw mode (--raw): TARGET is an unused block device (no filesystem, no partition in
use, no holder or pool). fio reads and writes the device itself: its contents are
destroyed. On a terminal tierdeck asks for the device name, typed to confirm; scripts
pass it with --confirm-device NAME.

\b
Exit status:
  0    the run finished ok
  1    the run failed (fio's message on stderr), or tierdeck could not work;
       with --clients or --hosts: a host failed, was lost or (--hosts) could
       not be reached ("partial": the others' results are shown and stored)
  2    refused before starting (no space, O_DIRECT unsupported, raw device,
       target busy, a file outside the target ...: the reason on stderr),
       or bad options
  130  cancelled with Ctrl-C (143 with SIGTERM): fio stopped, files removed
  141  stdout closed early (the run is saved and its files removed first)
"""


@click.command("run", help=RUN_HELP)
@host_option
@once("--preset", "preset_name", metavar="NAME", help="A preset (tierdeck bench presets).")
@once(
    "--job",
    "job_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A fio job file ([global] and several jobs allowed).",
)
@click.option(
    "--target",
    "targets",
    multiple=True,
    required=True,
    metavar="PATH",
    callback=lambda ctx, param, values: _targets(values),
    help="Directory to benchmark in (a block device with --raw). With --clients or "
    "--hosts: the folder on every host, or HOST:PATH once per host.",
)
@once(
    "--hosts",
    metavar="all|HOST[,HOST...]",
    help="Run on every fleet host (all) or these, one at a time, and compare them.",
)
@click.option("--parallel", is_flag=True, help="With --hosts: run on every host at once.")
@once(
    "--clients",
    metavar="HOST[,HOST...]",
    help="Run the job from these hosts at once (fio's client/server over SSH).",
)
@once(
    "--size",
    metavar="S",
    help="fio's size= for every job: bytes each job clone does I/O on, fio syntax (512M, 4G).",
)
@once(
    "--runtime",
    type=click.IntRange(min=1),
    metavar="SEC",
    help="Every job runs this long (time_based), looping over its files.",
)
@once("--direct", type=click.Choice(["0", "1"]), help="O_DIRECT off (0) or on (1).")
@click.option("--drop-caches", is_flag=True, help="Drop the page cache before measuring (root).")
@click.option(
    "--raw", is_flag=True, help="TARGET is a block device to benchmark itself (destroys its data)."
)
@once(
    "--confirm-device",
    metavar="NAME",
    help="With --raw: the device's name (loop7, sdc), confirming without a prompt.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one tierdeck.run/1 JSON object.")
@click.option("--no-save", is_flag=True, help="Do not store the run in the history.")
@once("--name", metavar="TEXT", help="Name shown in the history.")
def run_cmd(
    preset_name: str | None,
    job_file: Path | None,
    targets: tuple[str, ...],
    hosts: str | None,
    parallel: bool,
    clients: str | None,
    size: str | None,
    runtime: int | None,
    direct: str | None,
    drop_caches: bool,
    raw: bool,
    confirm_device: str | None,
    as_json: bool,
    no_save: bool,
    name: str | None,
) -> None:
    jobs, preset = load_jobs(preset_name, job_file)

    def ask() -> RunAsk:  # the options every host's run shares (--hosts, --clients)
        return RunAsk(jobs, preset, size, runtime, direct, as_json, no_save, name)

    if parallel and hosts is None:
        raise click.UsageError("--parallel runs the hosts of --hosts at once: add --hosts")
    if hosts is not None:
        if clients is not None:
            raise click.UsageError(
                "--hosts runs on each machine, --clients from several at once: choose one"
            )
        if raw or drop_caches or confirm_device is not None:
            raise click.UsageError(
                "--hosts runs in folders: --raw and --drop-caches are not for it"
            )
        from .hosts import run_on_hosts

        run_on_hosts(hosts, targets, ask(), parallel=parallel)
        return
    if clients is not None:
        if raw or drop_caches or confirm_device is not None:
            raise click.UsageError(
                "--clients runs in folders: --raw and --drop-caches are not for it"
            )
        from .clients import run_with_clients

        run_with_clients(clients, targets, ask())
        return
    if len(targets) > 1:
        given = ", ".join(targets)
        times = "twice" if len(targets) == 2 else f"{len(targets)} times"
        raise click.UsageError(f"--target given {times} ({given}): give it once")
    target = targets[0]
    if confirm_device is not None and not raw:
        raise click.UsageError("--confirm-device confirms raw mode: add --raw")
    from ...bench.service import BenchAsk, BenchService
    from ...machine.inventory import collect_inventory

    host = command_host()
    if requested_host() is None:
        target = os.path.abspath(target)
    elif not target.startswith("/"):
        raise click.UsageError(
            f"with --host, give the target as a full path on that machine, not {target!r}"
        )
    else:
        target = posixpath.normpath(target)  # a path on that machine
    if raw and host.is_dir(target):
        raise click.UsageError(
            f"--raw is for a block device; {target} is a directory (leave out --raw: the "
            "test files go in the directory)"
        )
    service = BenchService(host, store=None if no_save else HistoryStore)
    # Open the store first: finding out after a 10-minute run that it cannot be saved
    # would waste the run.
    try:
        service.open_store()
    except HistoryError as exc:
        fail(f"{exc} (or add --no-save)", EXIT_FAILED)
    reporter = RunReporter(live=stderr_is_terminal() and not as_json)

    def plan(inv: Inventory, raw_confirm: str | None) -> RunRequest:
        # a preset's own lay-out and drop-caches flags are applied by the preflight
        ask = BenchAsk(
            target=target,
            jobs=jobs,
            preset=preset.name if preset else None,
            size=size,
            runtime=runtime,
            direct=None if direct is None else direct == "1",
            drop_caches=drop_caches,
            raw_confirm=raw_confirm,
            name=name,
        )
        return service.plan(inv, ask)

    try:
        inv = collect_inventory(host)
        try:
            request = plan(inv, confirm_device if raw else None)
        except BenchRefused as exc:
            # plan_run names a device it would run on only once its other checks pass:
            # ask then, not before.
            if not (raw and exc.kind is RefusalKind.RAW_CONFIRMATION and confirm_device is None):
                raise
            if not _stdin_is_terminal():
                raise click.UsageError(
                    f"--raw on {target}: no terminal to type the device name on; add "
                    "--confirm-device NAME"
                ) from None
            # by-id links resolve to the node, as plan_run resolves them
            request = plan(inv, _ask_device_name(inv, host.realpath(target)))
    except BenchRefused as exc:
        _refused(exc, direct=direct, raw=raw)
    except JobSpecError as exc:
        fail(str(exc), EXIT_REFUSED)
    except TierdeckError as exc:
        fail(str(exc), EXIT_FAILED)
    except KeyboardInterrupt:
        fail("interrupted before the run started", EXIT_SIGINT)
    # Said here, before anything runs ("directory= is replaced by the target", the
    # cache warning of direct=0): a notice halfway through a long run comes too late.
    reporter.say_before_start(request.warnings)

    try:
        with reporter:
            result, signum = asyncio.run(_drive(service, inv, request, reporter))
    except BenchRefused as exc:  # the target became busy between plan and run
        _refused(exc, direct=direct, raw=raw)
    except TierdeckError as exc:  # fio missing, cannot start ...
        fail(str(exc), EXIT_FAILED)

    # The service saved it before anything is printed: a reader that went away
    # (| head) ends the process at the first print, and the run is in the history.
    _report(result, as_json=as_json)

    status = RunStatus(result.status)
    if status is RunStatus.CANCELLED:
        sys.exit(cancel_exit_code(signum))
    if status is RunStatus.FAILED:
        fail(f"the run failed: {result.error or 'no message from fio'}", EXIT_FAILED)


def _report(result: RunResult, *, as_json: bool) -> None:
    if as_json:
        # one object on one line per run: JSON Lines, so several runs concatenate
        click.echo(json.dumps(result_to_json(result), separators=(",", ":")))
        return
    click.echo("\n".join(result_lines(result)))
    if result.id is not None:
        click.echo(f"saved as run #{result.id} (tierdeck history show {result.id})")
