"""The way into the ladder view: ``p`` on a mergerfs pool of the dashboard shows what
the ladder will do (it writes test files on the pool's branches and mounts throwaway
pools; whether the default job runs O_DIRECT, from a probe write made first in a thread)
in a small menu (``screens/sequence/ladder_setup``: the job, all branches, an option
sweep), then opens the view, which checks the plan through
``app.ladder_run.plan_ladder`` in a thread (a refusal stays on the view) and runs
``run_ladder`` with the app's service. With a network rung, the client is connected in
that thread (keys and agents as ssh uses them: the TUI asks no password) and closed when
the ladder ends or is refused.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ...app.tui.context import context
from ...app.tui.sequence_messages import EventSink, LadderRun
from ...core.ladder.model import LadderResult
from ...core.models import MergerfsPool
from .ladder_setup import LadderChoice, ask_ladder_choice

if TYPE_CHECKING:
    from ...app.clients.plan import ClientSpot
    from ...app.ladder.network import NetworkClient


def ask_ladder(screen: Any, pool: MergerfsPool) -> None:
    if not context(screen).host.capabilities.run_benchmarks:
        screen.notify(
            "The ladder runs benchmarks: on this machine only, not on a recording (--demo "
            "or --recorded).",
            severity="warning",
        )
        return
    host = context(screen).host

    def check() -> None:
        """The pool's answer to O_DIRECT (a probe write, so off the UI thread), then
        the menu saying what the default job will really do."""
        from ...app.ladder.plan import direct_refused
        from ...core.errors import TierdeckError

        try:
            refused = direct_refused(host, pool)
        except (OSError, TierdeckError):
            refused = None  # the plan probes again and the rung says what fio met
        drop = refused is not None and host.is_root
        choice = LadderChoice(direct_refused=refused, drop_caches=drop)
        screen.app.call_from_thread(
            ask_ladder_choice,
            screen,
            pool,
            lambda picked: start_ladder(screen, pool.mountpoint, picked),
            choice,
        )

    screen.run_worker(check, thread=True, group="ladder-check", exit_on_error=False)


def start_ladder(screen: Any, mountpoint: str, choice: LadderChoice | None = None) -> None:
    ctx = context(screen)
    inventory = ctx.inventory
    if inventory is None:
        screen.notify("The inventory is still loading: try again in a moment.")
        return
    wanted = choice or LadderChoice()

    def plan() -> LadderRun:
        from ...app.history.run_sets import RunSetStore
        from ...app.ladder.run import plan_ladder, run_ladder
        from ...core.presets import preset

        jobs = None if wanted.preset is None else preset(wanted.preset).jobs
        client = None if wanted.option is not None else open_client(wanted.client)
        try:
            planned = plan_ladder(
                ctx.host,
                inventory,
                mountpoint,
                jobs,
                preset=wanted.preset,
                all_branches=wanted.all_branches,
                option=wanted.option,
                runtime=wanted.runtime,
                store=RunSetStore(),
                client=client,
            )
        except BaseException:
            if client is not None:
                client.host.close()
            raise

        async def run(on_event: EventSink, cancel: Any) -> LadderResult:
            try:
                return await run_ladder(ctx.bench, inventory, planned, on_event, cancel)
            finally:
                if client is not None:
                    await asyncio.to_thread(client.host.close)

        return run

    ctx.open_ladder(mountpoint, planner=plan)


def open_client(spot: ClientSpot | None) -> NetworkClient | None:
    """The network rung's client, connected (a fleet name as hosts.toml says), or None;
    a LadderRefused of the client's kind saying why it cannot be reached."""
    if spot is None:
        return None
    from ...app.clients.plan import ssh_target
    from ...app.clients.session import connect
    from ...app.fleet.config import FleetConfigError, load_fleet
    from ...app.ladder.network import NetworkClient
    from ...app.ladder.plan import LadderRefusalKind, LadderRefused
    from ...backends.host import LiveHost
    from ...core.errors import TierdeckError, one_line

    try:
        host = connect(ssh_target(spot.name, load_fleet()))
    except FleetConfigError as exc:
        reason = f"{exc} (hosts.toml names the fleet's hosts)"
        raise LadderRefused(LadderRefusalKind.CLIENT, reason) from None
    except TierdeckError as exc:
        raise LadderRefused(LadderRefusalKind.CLIENT, one_line(exc)) from None
    return NetworkClient(spot.name, spot.path, host, LiveHost())
