"""The ways into the sweep view: a sweep file to run (``w`` on the dashboard) and a
stored sweep (``w`` on a history run tagged sweep:N).

Running goes through ``app.sweep_run``: ``plan_sweep`` refuses before anything runs
(the refusal shows as a notification), creates the sweep in the history, and the view
runs ``run_sweep`` with the app's service. A stored sweep opens as it is; on a live
machine ``R`` resumes it (``plan_sweep(..., resume=ID)``, as ``--resume ID``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..app.context import context
from ..app.sequence_messages import EventSink, SweepRun
from ..backends.localfiles import read_user_file
from ..core.errors import TierdeckError, one_line
from ..core.sweep import TARGETS_AXIS, SweepResult, SweepSpec, parse_sweep

SWEEP_TAG = re.compile(r"^sweep:(\d+)$")
READ_LIMIT = 1 << 20  # a sweep file is a few lines of TOML


def sweep_id_of(tags: tuple[str, ...]) -> int | None:
    """The sweep a run belongs to, from its ``sweep:N`` tag."""
    for tag in tags:
        found = SWEEP_TAG.match(tag)
        if found:
            return int(found.group(1))
    return None


def read_sweep_file(text: str) -> SweepSpec | str:
    """The file's spec, or why not (one line, for the prompt's error)."""
    try:
        return parse_sweep(read_user_file(Path(text).expanduser(), READ_LIMIT).decode())
    except (OSError, UnicodeDecodeError, TierdeckError) as exc:
        return one_line(exc)


def ask_sweep(screen: Any, target: str | None) -> None:
    """A prompt for a sweep file; a sweep without a target of its own runs on
    ``target`` (the dashboard's selection), asked for too."""
    from .confirm import PromptScreen

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
    from ..app.sweep_run import run_sweep

    ctx = context(screen)
    inventory = ctx.inventory

    async def run(on_event: EventSink, cancel: Any) -> SweepResult:
        assert inventory is not None
        return await run_sweep(ctx.bench, inventory, plan, on_event, cancel)

    return run


def _resumer(screen: Any, set_id: int) -> SweepRun | None:
    """What R runs: the missing cells, planned again when pressed (the machine may have
    changed since the sweep stopped). None where benchmarks cannot run."""
    ctx = context(screen)
    if not ctx.host.capabilities.run_benchmarks:
        return None

    async def resume(on_event: EventSink, cancel: Any) -> SweepResult:
        from ..app.run_sets import RunSetStore
        from ..app.sweep_run import plan_sweep
        from ..app.sweep_store import spec_of, sweep_set

        inventory = ctx.inventory
        assert inventory is not None
        store = RunSetStore()
        spec, settings = spec_of(sweep_set(store, set_id).definition)
        plan = plan_sweep(
            ctx.host,
            inventory,
            spec,
            target=settings.target,
            runtime=settings.runtime,
            size=settings.size,
            resume=set_id,
            store=store,
        )
        return await _runner(screen, plan)(on_event, cancel)

    return resume


def start_sweep(screen: Any, spec: SweepSpec, *, target: str | None) -> None:
    """Plan the sweep (refusals notified), then open its view running it."""
    from ..app.run_sets import RunSetStore
    from ..app.sweep_run import plan_sweep
    from ..app.sweep_store import load_result
    from .sweep import SweepScreen

    ctx = context(screen)
    if ctx.inventory is None:
        screen.notify("The inventory is still loading: try again in a moment.")
        return
    store = RunSetStore()
    try:
        plan = plan_sweep(ctx.host, ctx.inventory, spec, target=target, store=store)
        assert plan.set_id is not None
        initial = load_result(store, plan.set_id)
    except TierdeckError as exc:
        screen.notify(f"The sweep cannot run: {one_line(exc)}", severity="error", timeout=10)
        return
    resume = _resumer(screen, plan.set_id)
    screen.app.push_screen(SweepScreen(initial, _runner(screen, plan), resume=resume))


def open_stored_sweep(screen: Any, set_id: int) -> None:
    from ..app.run_sets import RunSetStore
    from ..app.sweep_store import load_result
    from .sweep import SweepScreen

    try:
        result = load_result(RunSetStore(), set_id)
    except TierdeckError as exc:
        screen.notify(one_line(exc), severity="error")
        return
    screen.app.push_screen(SweepScreen(result, resume=_resumer(screen, set_id)))
