"""``tierdeck bench run --hosts all|A,B``: one preset on several machines of the fleet
(app/fleet/bench.py), one after the other or all at once (``--parallel``), then their
comparison (app/compare/), or with ``--json`` the runs.

Exit status: 0 every host ran ok; 1 a host could not be reached, refused the run or
failed (the others' runs are kept, shown and compared: "partial"), or tierdeck could
not work; 2 bad options (a host named twice, a --target missing for one); 130 cancelled
with Ctrl-C (143 with SIGTERM): every run in progress stopped, its files removed.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import click

from ....core.bench_models import BenchTarget, RunResult, RunStatus, TargetKind
from ....core.compare.comparison import MAX_RUNS, CompareRefused, compare_runs
from ...history.run_json import result_to_json
from ..common import (
    EXIT_FAILED,
    cancel_exit_code,
    fail,
    print_renderable,
    requested_host,
    terminal_prompt,
    until_cancelled,
)
from .reporting import RunReporter, stderr_is_terminal

if TYPE_CHECKING:
    from ....backends.host.seam import Host
    from ...clients.plan import ClientSpot
    from ...fleet.bench import HostBench
    from ...fleet.config import FleetHost
    from .jobs import RunAsk

ALL = "all"


def host_names(hosts: str, fleet: Sequence[FleetHost]) -> list[str]:
    """``all``: every host of hosts.toml, in its order; else the names given (fleet
    names, or ssh aliases and user@host[:port] as ``--clients`` takes them)."""
    if hosts.strip() == ALL:
        if not fleet:
            raise ValueError(
                "--hosts all: hosts.toml names no host (add them with tierdeck fleet add)"
            )
        return [h.name for h in fleet]
    return [n.strip() for n in hosts.split(",")]


def run_on_hosts(hosts: str, targets: Sequence[str], run: RunAsk, *, parallel: bool) -> None:
    from ...bench.service import BenchAsk
    from ...clients.plan import client_spots, ssh_target
    from ...fleet.bench import bench_hosts, partial
    from ...fleet.config import FleetConfigError, load_fleet
    from ...history.store import HistoryError, HistoryStore

    if requested_host() is not None:
        raise click.UsageError("--hosts names the hosts itself: leave out --host")
    try:
        fleet = load_fleet()
    except FleetConfigError as exc:
        fail(f"{exc} (hosts.toml names the fleet's hosts)", EXIT_FAILED)
    try:
        spots = client_spots(host_names(hosts, fleet), targets, option="--hosts")
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    if not run.no_save:
        try:
            HistoryStore()  # opened now: a run that cannot be kept is refused before it starts
        except HistoryError as exc:
            fail(f"{exc} (or add --no-save)", EXIT_FAILED)

    def ask(spot: ClientSpot) -> BenchAsk:
        return BenchAsk(
            target=spot.path,
            jobs=run.jobs,
            preset=run.preset_name,
            size=run.size,
            runtime=run.runtime,
            direct=None if run.direct is None else run.direct == "1",
            name=run.name or f"{run.preset_name or 'job'} on {spot.name}",
        )

    def connect(spot: ClientSpot) -> Host:
        from ....backends.host.ssh import SshHost

        host = SshHost(ssh_target(spot.name, fleet), prompt=terminal_prompt)
        try:
            host.facts  # noqa: B018 - connect now: an unreachable host fails before its run
        except BaseException:
            host.close()
            raise
        return host

    say = _Sayer(len(spots), live=stderr_is_terminal() and not run.as_json and not parallel)
    try:
        outcomes, signum = asyncio.run(
            until_cancelled(
                lambda cancel: bench_hosts(
                    spots,
                    connect,
                    ask,
                    parallel=parallel,
                    store=None if run.no_save else HistoryStore,
                    on_event=say,
                    cancel=cancel,
                ),
                lambda text: click.echo(f"tierdeck: {text}", err=True),
                "cancelling: stopping fio on every host and removing its test files ...",
            )
        )
    finally:
        say.close()
    _report(outcomes, as_json=run.as_json)
    if signum:
        sys.exit(cancel_exit_code(signum))
    if partial(outcomes):
        failed = [o.error or o.spot.name for o in outcomes if not o.ok]
        fail("partial: " + "; ".join(failed), EXIT_FAILED)


class _Sayer:
    """Each host's progress on stderr: a line as it starts, then, one host at a time on
    a terminal, its run's bar; otherwise (in parallel, in a pipe) its notices and its
    end behind its name."""

    def __init__(self, total: int, *, live: bool) -> None:
        self.total = total
        self.live = live
        self.bar: RunReporter | None = None  # the live bar of the run in progress

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None

    def __call__(self, spot: ClientSpot, event: Any) -> None:
        from ...bench.events import Notice, RunEnded, RunStarted
        from ...fleet.bench import HostDone, HostStarted

        if isinstance(event, HostDone):
            self.close()
            if event.outcome.result is None:  # no run: unreachable, refused
                click.echo(f"tierdeck: {event.outcome.error}", err=True)
        elif isinstance(event, HostStarted):
            self.close()
            where = f"{spot.name} {spot.path}"
            click.echo(f"tierdeck: host {event.index + 1} of {self.total}: {where}", err=True)
        elif self.live:
            if isinstance(event, RunStarted) and self.bar is None:
                self.bar = RunReporter(live=True).__enter__()
            if self.bar is not None:
                self.bar(event)
            if isinstance(event, RunEnded):
                self.close()
        elif isinstance(event, Notice):
            click.echo(f"tierdeck: {spot.name}: {event.text}", err=True)
        elif isinstance(event, RunEnded):
            status = RunStatus(event.result.status).value
            click.echo(f"tierdeck: {spot.name}: {status}", err=True)


def _missing_run(outcome: HostBench) -> RunResult:
    """A host without a run (unreachable, refused), as a failed run for --json."""
    return RunResult(
        id=None,
        name=outcome.spot.name,
        status=RunStatus.FAILED,
        target=BenchTarget(
            outcome.spot.path, TargetKind.PATH, f"{outcome.spot.name}:{outcome.spot.path}", ()
        ),  # fmt: skip
        jobs=(),
        started_at=outcome.started_at,
        finished_at=None,
        error=outcome.error,
    )


def _report(outcomes: Sequence[HostBench], *, as_json: bool) -> None:
    from ...fleet.bench import named

    if as_json:
        # one tierdeck.run/1 object per host and line, in the order given, as bench run
        for outcome in outcomes:
            shown = outcome.result or _missing_run(outcome)
            doc = {**result_to_json(shown), "fleet_host": outcome.spot.name}
            if outcome.error is not None:
                doc["error"] = outcome.error
            click.echo(json.dumps(doc, separators=(",", ":")))
        return
    for outcome in outcomes:
        run = outcome.result
        if outcome.ok and run is not None:
            saved = f"run #{run.id}" if run.id is not None else "not saved"
            click.echo(f"{outcome.spot.name}: ok, {saved} ({run.host.name or '?'})")
        else:
            click.echo(named(outcome.spot.name, outcome.error or "cancelled"))
    ok = [o.result for o in outcomes if o.ok and o.result is not None]
    click.echo("")
    if len(ok) < 2:
        if ok:
            from ...history.run_text import result_lines

            click.echo("\n".join(result_lines(ok[0])))
        click.echo("fewer than two hosts ran ok: nothing to compare")
        return
    if len(ok) > MAX_RUNS:
        click.echo(
            f"comparing the first {MAX_RUNS} hosts that ran ok (compare takes at most {MAX_RUNS})"
        )
        ok = ok[:MAX_RUNS]
    try:
        comparison = compare_runs(ok)
    except CompareRefused as exc:
        click.echo(f"no comparison: {exc.reason}")
        return
    from ...compare import render

    print_renderable(render.to_rich(comparison))
    ids = [str(r.id) for r in ok if r.id is not None]
    if len(ids) == len(ok):
        click.echo(f"again later: tierdeck compare {' '.join(ids)}")
