"""``tierdeck bench run --clients HOST[,HOST...]``: the same job from several machines
at once, on fio's own client/server mode (app/clients/).

Exit status: 0 every host ok; 1 a host failed or was lost (the run set is partial: the
others' results are shown and stored, the failed host's reason with them) or tierdeck
could not work; 2 refused before any server started (a host unreachable counts as 1);
130 cancelled with Ctrl-C (143 with SIGTERM): every server stopped, files removed.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import click

from ....core.bench_models import BenchRefused, RunStatus
from ....core.errors import TierdeckError
from ....core.jobspec import JobSpecError, with_overrides
from ..common import (
    EXIT_FAILED,
    EXIT_REFUSED,
    EXIT_SIGINT,
    cancel_exit_code,
    fail,
    open_remote_host,
    requested_host,
    until_cancelled,
)

PROGRESS_S = 2.0  # a progress line every so often: one a second would flood a terminal

if TYPE_CHECKING:
    from ...clients.live import Activity, LiveTick
    from ...clients.run import ClientsResult
    from ...clients.store import StoredClients
    from .jobs import RunAsk


def run_with_clients(clients: str, targets: Sequence[str], ask: RunAsk) -> None:
    from ....backends.host import LiveHost
    from ...clients.plan import THIS_MACHINE, client_spots
    from ...clients.run import run_clients
    from ...clients.session import Prepared, prepare

    if requested_host() is not None:
        raise click.UsageError("--clients names the hosts itself: leave out --host")
    try:
        spots = client_spots(clients, targets)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    try:
        direct = None if ask.direct is None else ask.direct == "1"
        jobs = with_overrides(ask.jobs, ask.size, ask.runtime, direct)
    except JobSpecError as exc:
        fail(f"refused: {exc}", EXIT_REFUSED)
    store = None
    if not ask.no_save:
        from ...history.run_sets import RunSetStore
        from ...history.store import HistoryError

        try:
            store = RunSetStore()
        except HistoryError as exc:
            fail(f"{exc} (or add --no-save)", EXIT_FAILED)

    def say(text: str) -> None:
        # on stderr, also with --json: stdout holds the one JSON object
        click.echo(text, err=True)

    from ...fleet.config import FleetConfigError, load_fleet

    try:
        fleet = load_fleet()
    except FleetConfigError as exc:
        fail(f"{exc} (hosts.toml names the fleet's hosts)", EXIT_FAILED)
    local = LiveHost()
    prepared = Prepared()
    try:
        prepare(spots, jobs, fleet, local, open_remote_host, say, prepared)
        versions, machines = prepared.versions, prepared.machines
        result, signum = asyncio.run(
            until_cancelled(
                lambda cancel: run_clients(
                    prepared.clients, local, cancel, say, _progress(say), prepared.watched()
                ),
                say,
                "cancelling: stopping every host's fio server and removing its test files ...",
            )
        )
    except BenchRefused as exc:
        fail(f"refused: {exc.reason}", EXIT_REFUSED)
    except JobSpecError as exc:
        fail(f"refused: {exc}", EXIT_REFUSED)
    except TierdeckError as exc:
        fail(str(exc), EXIT_FAILED)
    except KeyboardInterrupt:  # before the run's own signal handling is in place
        fail("interrupted before the run started", EXIT_SIGINT)
    finally:
        prepared.close()

    stored = None
    if store is not None:
        from ...clients.store import store_clients

        title = ask.name or f"{ask.preset_name or 'job'} from " + ", ".join(s.name for s in spots)
        stored = store_clients(
            store, result, jobs, preset=ask.preset_name, name=title,
            machines=machines, fio_version=versions[THIS_MACHINE],
        )  # fmt: skip
    _report(result, stored, as_json=ask.as_json)
    if result.status is RunStatus.CANCELLED:
        sys.exit(cancel_exit_code(signum))
    if result.partial:
        failed = [h for h in result.hosts if h.status is not RunStatus.OK]
        fail(
            "partial: " + "; ".join(h.error or h.name for h in failed),
            EXIT_FAILED,
        )


def _progress(say: Callable[[str], None]) -> Callable[[LiveTick], None]:
    """Each host's disks (or share), and the total, every PROGRESS_S seconds."""
    from ...clients.live import ALL_CLIENTS, DISKS, tick_line

    last = [0.0]

    def heard(tick: LiveTick) -> None:
        if tick.t - last[0] < PROGRESS_S:
            return
        last[0] = tick.t
        seen: list[tuple[str, Activity | None]] = [
            (n, a) for n, a in tick.hosts.items() if a is not None
        ]
        seen.append((ALL_CLIENTS, tick.total))
        width = max(len(n) for n, _ in seen)
        every = set(tick.kinds.values()) or {DISKS}
        kinds = {**tick.kinds, ALL_CLIENTS: DISKS if every == {DISKS} else "all"}
        for name, act in seen:
            say(f"{tick.t:5.0f} s  {tick_line(name.ljust(width), act, kinds.get(name, DISKS))}")

    return heard


def _report(result: ClientsResult, stored: StoredClients | None, *, as_json: bool) -> None:
    from ...clients.render import clients_json, clients_lines

    if as_json:
        click.echo(json.dumps(clients_json(result, stored), separators=(",", ":")))
    else:
        click.echo("\n".join(clients_lines(result, stored)))
