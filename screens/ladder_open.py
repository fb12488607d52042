"""The way into the ladder view: ``p`` on a mergerfs pool of the dashboard asks first
(the ladder writes test files on the pool's branches and mounts throwaway pools), then
plans it through ``app.ladder_run.plan_ladder`` (a refusal shows as a notification)
and opens the view running ``run_ladder`` with the app's service, the default job.
"""

from __future__ import annotations

from typing import Any

from ..app.context import context
from ..app.sequence_messages import EventSink
from ..core.errors import TierdeckError, one_line
from ..core.ladder import LadderResult
from ..core.models import MergerfsPool


def ask_ladder(screen: Any, pool: MergerfsPool) -> None:
    from .confirm import ConfirmScreen

    if not context(screen).host.capabilities.run_benchmarks:
        screen.notify(
            "The ladder runs benchmarks: on this machine only, not on a recording (--demo "
            "or --recorded).",
            severity="warning",
        )
        return
    branches = ", ".join(b.path for b in pool.branches)
    question = (
        f"Run the layer-penalty ladder on {pool.mountpoint}?\n\n"
        "The same fio job (sequential 1 MiB writes, sized to the free space) runs on the "
        f"branch the pool would pick ({branches}), on the pool, then on two throwaway "
        "mergerfs pools with its options (over a tmpfs, and with nullrw) mounted under a "
        "tierdeck folder and unmounted at the end. Test files are written on the branch "
        "and the pool, then removed. Every rung is kept in the history."
    )

    def answered(yes: bool | None) -> None:
        if yes:
            start_ladder(screen, pool.mountpoint)

    screen.app.push_screen(
        ConfirmScreen(question, title="Layer-penalty ladder", yes="Run it", no="Not now"),
        answered,
    )


def start_ladder(screen: Any, mountpoint: str) -> None:
    from ..app.ladder_run import plan_ladder, run_ladder
    from ..app.run_sets import RunSetStore
    from .ladder import LadderScreen

    ctx = context(screen)
    inventory = ctx.inventory
    if inventory is None:
        screen.notify("The inventory is still loading: try again in a moment.")
        return
    try:
        plan = plan_ladder(ctx.host, inventory, mountpoint, None, store=RunSetStore())
    except TierdeckError as exc:
        screen.notify(f"The ladder cannot run: {one_line(exc)}", severity="error", timeout=10)
        return

    async def run(on_event: EventSink, cancel: Any) -> LadderResult:
        return await run_ladder(ctx.bench, inventory, plan, on_event, cancel)

    screen.app.push_screen(LadderScreen(mountpoint, run))
