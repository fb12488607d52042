"""What the ladder runs, picked before it starts: a small menu (``screens/modals/choice``)
that comes back after each change until "Run it" or escape.

- the job: the default (sequential 1 MiB writes for some seconds per rung, O_DIRECT,
  or buffered on every rung, and why, when the pool refuses O_DIRECT: the menu is
  opened with the pool's answer, ``LadderChoice.default_job``) or a preset;
- the branch rungs: the branch the pool's create policy picks (and, on a tiered pool,
  the slow branch new files go to once it is full), or every RW branch
  (``--all-branches``);
- how long each rung runs (``--runtime``: the default job's 10 s, or a preset's own);
- the mergerfs option sweep (``--option NAME=V1,V2``): an option from those
  ``core.ladder_options.SWEEPABLE`` names, then its values typed on one line and
  checked by ``parse_option_sweep`` before the menu takes them;
- the network rung (``--client HOST --client-path PATH``): a client and where it
  mounts the pool's share, typed as ``HOST:/PATH``; the client is connected and checked
  (its fio's version, its mount) when the view plans the ladder, a refusal shown there.

Keyboard only: up/down and enter in each list, escape leaves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ...app.clients.plan import ClientSpot
from ...app.ladder import plan as ladder_plan
from ...app.ladder.plan import default_job_text, is_tiered
from ...core.errors import one_line
from ...core.ladder.options import SWEEPABLE, OptionSweep, OptionSweepError, parse_option_sweep
from ...core.models import MergerfsPool
from ...core.presets import PRESETS, find_preset

NO_OPTION = "-"  # the option list's "no option sweep"
RUNTIMES = (5, 10, 30, 60, 120)  # seconds per rung offered (--runtime takes any)


@dataclass(frozen=True)
class LadderChoice:
    preset: str | None = None  # None: the default job
    all_branches: bool = False
    option: OptionSweep | None = None
    runtime: int | None = None  # seconds per rung; None: the default job's, a preset's own
    direct_refused: str | None = None  # the pool's answer to O_DIRECT, when it refused
    drop_caches: bool = False  # buffered, as root: caches dropped before each rung
    client: ClientSpot | None = None  # the network rung's client and its mount of the pool

    @property
    def default_job(self) -> str:
        """The default job as it will run (O_DIRECT or buffered, the runtime)."""
        return default_job_text(self.direct_refused, self.drop_caches, self.runtime)


def menu_note(pool: MergerfsPool, choice: LadderChoice) -> str:
    """What the ladder will do with ``choice``: what it writes and mounts."""
    job = choice.default_job if choice.preset is None else f"the preset {choice.preset}"
    if choice.preset is not None and choice.direct_refused is not None:
        job += f"; the pool refuses O_DIRECT ({choice.direct_refused})"
    if choice.option is not None:
        values = ", ".join(choice.option.values)
        return (
            f"The same job ({job}) runs on {pool.mountpoint} as mounted, then on a "
            f"throwaway mergerfs pool of the same branches once per value of "
            f"{choice.option.name} ({values}), mounted under a tierdeck folder and "
            "unmounted at the end. Test files are written on the branches, then removed."
        )
    if choice.all_branches:
        where = "every RW branch (" + ", ".join(b.path for b in pool.branches) + ")"
    elif is_tiered(pool):
        where = (
            "the branch the pool writes new files to, the slow branch they go to once it is full"
        )
    else:
        where = "the branch the pool would pick"
    network = ""
    if choice.client is not None:
        network = (
            f" Last, from {choice.client.name} over its mount {choice.client.path}: a fio "
            "server started there over SSH (on its loopback), its test files written in "
            "that folder, then removed."
        )
    return (
        f"The same job ({job}) runs on {where}, on the pool, then on two throwaway "
        "mergerfs pools with its options (over a tmpfs, and with nullrw) mounted under a "
        "tierdeck folder and unmounted at the end. Test files are written on the branch "
        f"and the pool, then removed.{network} Every rung is kept in the history."
    )


def menu_choices(choice: LadderChoice, pool: MergerfsPool) -> list[tuple[str, str]]:
    job = "default" if choice.preset is None else choice.preset
    branches = "every RW branch" if choice.all_branches else "the one the pool picks"
    if not choice.all_branches and is_tiered(pool):
        branches += ", and a slow one"
    if choice.option is None:
        option = "none (branch, pool, tmpfs, nullrw)"
    else:
        option = f"{choice.option.name}={','.join(choice.option.values)}"
    rows = [("run", "▶ Run it"), ("job", f"Job: {job}")]
    if choice.option is None:  # an option sweep has no branch rungs
        rows.append(("branches", f"Branch rungs: {branches}"))
    rows.append(("option", f"Option sweep: {option}"))
    if choice.runtime is not None:
        runtime = f"{choice.runtime} s"
    else:
        runtime = (
            f"{ladder_plan.DEFAULT_RUNTIME} s" if choice.preset is None else "the preset's own"
        )
    if choice.option is None:  # the network rung follows the layer rungs
        client = choice.client
        rows.append(
            (
                "network",
                "Network rung: " + ("none" if client is None else f"{client.name}:{client.path}"),
            )
        )
    rows.append(("runtime", f"Each rung runs: {runtime}"))
    return rows


def ask_ladder_choice(
    screen: Any,
    pool: MergerfsPool,
    start: Callable[[LadderChoice], None],
    choice: LadderChoice | None = None,
    highlight: str | None = None,
) -> None:
    """The menu; ``start`` gets the choice when the user picks "Run it"."""
    from ..modals.choice import ChoiceScreen

    current = choice or LadderChoice()

    def again(changed: LadderChoice, key: str) -> None:
        ask_ladder_choice(screen, pool, start, changed, key)

    def picked(key: str | None) -> None:
        if key == "run":
            start(current)
        elif key == "job":
            _ask_job(screen, current, lambda c: again(c, "job"))
        elif key == "branches":
            again(replace(current, all_branches=not current.all_branches), "branches")
        elif key == "option":
            _ask_option(screen, current, lambda c: again(c, "option"))
        elif key == "runtime":
            _ask_runtime(screen, current, lambda c: again(c, "runtime"))
        elif key == "network":
            _ask_client(screen, current, lambda c: again(c, "network"))

    screen.app.push_screen(
        ChoiceScreen(
            f"Layer-penalty ladder · {pool.mountpoint}",
            menu_choices(current, pool),
            note=menu_note(pool, current),
            highlight=highlight,
        ),
        picked,
    )


def _ask_job(screen: Any, current: LadderChoice, then: Callable[[LadderChoice], None]) -> None:
    from ..modals.choice import ChoiceScreen

    rows = [("", f"default: {current.default_job}")]
    rows += [(p.name, f"{p.name}: {p.title}") for p in PRESETS]

    def picked(key: str | None) -> None:
        if key is None:
            then(current)  # escape: the menu as it was
        else:
            then(replace(current, preset=key if find_preset(key) is not None else None))

    screen.app.push_screen(
        ChoiceScreen("The ladder's job", rows, highlight=current.preset or ""), picked
    )


def _ask_runtime(screen: Any, current: LadderChoice, then: Callable[[LadderChoice], None]) -> None:
    from ..modals.choice import ChoiceScreen

    default = f"{ladder_plan.DEFAULT_RUNTIME} s" if current.preset is None else "the preset's own"
    rows = [("", f"default: {default}")] + [(str(s), f"{s} s") for s in RUNTIMES]

    def picked(key: str | None) -> None:
        if key is None:
            then(current)
        else:
            then(replace(current, runtime=int(key) if key else None))

    shown = "" if current.runtime is None else str(current.runtime)
    screen.app.push_screen(ChoiceScreen("How long each rung runs", rows, highlight=shown), picked)


def _ask_option(screen: Any, current: LadderChoice, then: Callable[[LadderChoice], None]) -> None:
    from ..modals.choice import ChoiceScreen

    rows = [(NO_OPTION, "none: the layers (branch, pool, tmpfs, nullrw)")]
    rows += [(name, name) for name in SWEEPABLE]
    shown = current.option.name if current.option is not None else NO_OPTION

    def picked(name: str | None) -> None:
        if name is None:
            then(current)
        elif name == NO_OPTION:
            then(replace(current, option=None))
        else:
            _ask_values(screen, current, name, then)

    screen.app.push_screen(
        ChoiceScreen("Sweep which mergerfs option?", rows, highlight=shown), picked
    )


def check_values(name: str, text: str) -> OptionSweep | str:
    """The option sweep, or why not (one line, for the prompt's error)."""
    try:
        return parse_option_sweep(f"{name}={text}")
    except OptionSweepError as exc:
        return one_line(exc)


def _ask_values(
    screen: Any, current: LadderChoice, name: str, then: Callable[[LadderChoice], None]
) -> None:
    from ..modals.confirm import PromptScreen

    allowed = SWEEPABLE[name]
    if allowed is None:
        hint = "sizes, as 0,4G"
    elif len(allowed) <= 8:
        hint = ",".join(allowed)
    else:
        hint = f"{allowed[0]}..{allowed[-1]}"
    given = current.option
    value = ",".join(given.values) if given is not None and given.name == name else ""

    def check(text: str) -> str | None:
        found = check_values(name, text)
        return found if isinstance(found, str) else None

    def answered(text: str | None) -> None:
        found = check_values(name, text) if text is not None else None
        if isinstance(found, OptionSweep):
            then(replace(current, option=found))
        else:
            then(current)

    screen.app.push_screen(
        PromptScreen(
            f"The values of {name} to try, comma-separated (each one a throwaway pool).",
            title=f"Sweep {name}",
            value=value,
            placeholder=hint,
            validate=check,
        ),
        answered,
    )


def parse_client(text: str) -> ClientSpot | None | str:
    """``HOST:/PATH`` typed for the network rung: the client, None (empty: no network
    rung), or why not (one line, for the prompt's error)."""
    typed = text.strip()
    if not typed:
        return None
    name, sep, path = typed.rpartition(":")
    if not sep or not name or not path.startswith("/"):
        return "give the client and where it mounts the pool, as HOST:/PATH"
    return ClientSpot(name, path)


def _ask_client(screen: Any, current: LadderChoice, then: Callable[[LadderChoice], None]) -> None:
    from ..modals.confirm import PromptScreen

    client = current.client

    def check(text: str) -> str | None:
        found = parse_client(text)
        return found if isinstance(found, str) else None

    def answered(text: str | None) -> None:
        found = parse_client(text) if text is not None else current.client
        then(current if isinstance(found, str) else replace(current, client=found))

    screen.app.push_screen(
        PromptScreen(
            "The client that mounts this pool's share (an ssh alias, user@host[:port] or a "
            "fleet name) and the folder it mounts it on, as HOST:/PATH. Empty: no network "
            "rung.",
            title="Network rung",
            value="" if client is None else f"{client.name}:{client.path}",
            placeholder="laptop:/mnt/nas",
            validate=check,
        ),
        answered,
    )
