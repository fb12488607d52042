"""The way into the ladder view: ``p`` on a mergerfs pool of the dashboard shows what
the ladder will do (it writes test files on the pool's branches and mounts throwaway
pools; whether the default job runs O_DIRECT, from a probe write made first in a thread)
in a small menu (``screens/sequence/ladder_setup``: the job, all branches, an option
sweep), then opens the view, which checks the plan through
``app.ladder_run.plan_ladder`` in a thread (a refusal stays on the view) and runs
``run_ladder`` with the app's service.
"""

from __future__ import annotations

from typing import Any

from ...app.tui.context import context
from ...app.tui.sequence_messages import EventSink, LadderRun
from ...core.ladder.model import LadderResult
from ...core.models import MergerfsPool
from .ladder_setup import LadderChoice, ask_ladder_choice


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
        )

        async def run(on_event: EventSink, cancel: Any) -> LadderResult:
            return await run_ladder(ctx.bench, inventory, planned, on_event, cancel)

        return run

    ctx.open_ladder(mountpoint, planner=plan)
