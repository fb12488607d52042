"""The way into the sweep view with a sweep file to run (``w`` on the dashboard), and
what ``R`` runs on a stored one (``screens/history/sets`` opens those).

Running goes through ``app.sweep_run``: the view opens at once and checks the plan in
a thread (``plan_sweep`` refuses before anything runs; the refusal stays on the view),
which creates the sweep in the history; then the view runs ``run_sweep`` with the app's
service. On a live machine ``R`` resumes a stored sweep (``plan_sweep(...,
resume=ID)``, as ``--resume ID``), checked the same way.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...app.tui.context import context
from ...app.tui.sequence_messages import EventSink, SweepPlanner, SweepRun, SweepStart
from ...backends.localfiles import read_user_file
from ...core.errors import TierdeckError, one_line
from ...core.sweep.model import TARGETS_AXIS, SweepResult, SweepSpec, parse_sweep

if TYPE_CHECKING:
    from ...app.history.run_sets import RunSetStore
    from ...app.sweep.store import SweepSettings

READ_LIMIT = 1 << 20  # a sweep file is a few lines of TOML


def read_sweep_file(text: str) -> SweepSpec | str:
    """The file's spec, or why not (one line, for the prompt's error)."""
    try:
        return parse_sweep(read_user_file(Path(text).expanduser(), READ_LIMIT).decode())
    except (OSError, UnicodeDecodeError, TierdeckError) as exc:
        return one_line(exc)


def ask_sweep(screen: Any, target: str | None) -> None:
    """A prompt for a sweep file; a sweep without a target of its own runs on
    ``target`` (the dashboard's selection), asked for too."""
    from ..modals.confirm import PromptScreen

    def check(text: str) -> str | None:
        found = read_sweep_file(text)
        return found if isinstance(found, str) else None

    def ask_target(spec: SweepSpec) -> None:
        def answered(path: str | None) -> None:
            if path:
                start_sweep(screen, spec, target=path)

        screen.app.push_screen(
            PromptScreen("Run the sweep on which directory?", title="Sweep", value=target or ""),
            answered,
        )

    def file_given(text: str | None) -> None:
        spec = read_sweep_file(text) if text else None
        if not isinstance(spec, SweepSpec):
            return
        has_target = spec.target or any(a.name == TARGETS_AXIS for a in spec.axes)
        if has_target:
            start_sweep(screen, spec, target=None)
        else:
            ask_target(spec)

    screen.app.push_screen(
        PromptScreen(
            "Which sweep file (tierdeck.sweep/1 TOML)?",
            title="Sweep",
            placeholder="~/sweeps/compress.toml",
            validate=check,
        ),
        file_given,
    )


def _runner(screen: Any, plan: Any) -> SweepRun:
    from ...app.sweep.run import run_sweep

    ctx = context(screen)
    inventory = ctx.inventory

    async def run(on_event: EventSink, cancel: Any) -> SweepResult:
        assert inventory is not None
        return await run_sweep(ctx.bench, inventory, plan, on_event, cancel)

    return run


def resumer(screen: Any, set_id: int) -> SweepPlanner | None:
    """What R checks then runs: the missing cells, planned again when pressed (the
    machine may have changed since the sweep stopped). None where benchmarks cannot
    run."""
    ctx = context(screen)
    if not ctx.host.capabilities.run_benchmarks:
        return None

    def plan() -> SweepStart:
        from ...app.history.run_sets import RunSetStore
        from ...app.sweep.store import spec_of, sweep_set

        store = RunSetStore()
        spec, settings = spec_of(sweep_set(store, set_id).definition)
        return _plan(screen, spec, settings, store, resume=set_id)

    return plan


def _plan(
    screen: Any,
    spec: SweepSpec,
    settings: SweepSettings,
    store: RunSetStore,
    *,
    resume: int | None = None,
) -> SweepStart:
    """plan_sweep (in the view's thread worker): the sweep created or resumed, as
    stored, and the run of its missing cells."""
    from ...app.sweep.run import plan_sweep
    from ...app.sweep.store import load_result

    inventory = context(screen).inventory
    assert inventory is not None
    plan = plan_sweep(
        context(screen).host,
        inventory,
        spec,
        target=settings.target,
        runtime=settings.runtime,
        size=settings.size,
        resume=resume,
        store=store,
    )
    assert plan.set_id is not None
    return SweepStart(
        load_result(store, plan.set_id), _runner(screen, plan), resumer(screen, plan.set_id)
    )


def start_sweep(screen: Any, spec: SweepSpec, *, target: str | None) -> None:
    """Open the sweep's view at once; it checks the plan in a thread (a refusal stays
    on the view), then runs it."""
    from ...app.history.run_sets import RunSetStore
    from ...app.sweep.store import SweepSettings
    from ...core.sweep.model import CellResult

    if context(screen).inventory is None:
        screen.notify("The inventory is still loading: try again in a moment.")
        return

    def plan() -> SweepStart:
        return _plan(screen, spec, SweepSettings(target=target), RunSetStore())

    # Drawn while checking: the sweep's shape, every cell still to run (id 0: not
    # created yet).
    waiting = SweepResult(0, spec, tuple(CellResult(cell) for cell in spec.cells()))
    context(screen).open_sweep(waiting, planner=plan)
