"""``tierdeck layout``: plan a cache/slow tier layout, check a saved one, simulate where
new files land. Branch facts (mounted? which filesystem? how much free?) come from the
inventory of the host (this machine, --demo or --recorded DIR)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import NoReturn

import click

from ...backends.host import Host, LiveHost
from ...backends.locks import LockHeld
from ...core.errors import ParseError, TierdeckError
from ...core.layout.apply_plan import ActionKind, ApplyAction, ApplyRefused, plan_apply
from ...core.layout.model import Layout, LayoutError
from ...core.layout.outputs import DEFAULT_LAYOUT_PATH, OutputError, layout_outputs
from ...core.layout.rules import RuleResult, RuleSeverity, check_layout, has_errors
from ...core.mergerfs_policy import simulate_all
from ...core.models import Inventory
from ...core.units import format_bytes
from ..layout.apply import (
    ApplyFailed,
    MountBusy,
    current_state,
    earlier_applies,
    execute,
    stamp_now,
)
from ..layout.facts import branch_facts
from ..layout.files import save_layout
from ..layout.plan import (
    PlanRequest,
    build_layout,
    parse_file_size,
    plan_to_dict,
    simulation_branches,
)
from ..layout.self_command import tierdeck_command
from ..layout.state import Record, describe
from ..layout.undo import plan_undo, undo
from ..machine.inventory import collect_inventory
from .common import (
    EXIT_FAILED,
    EXIT_REFUSED,
    fail,
    host_option,
    host_options,
    load_layout_or_exit,
    make_host,
    once,
)
from .remote import run_on_host_itself

_MARK = {RuleSeverity.ERROR: "ERROR", RuleSeverity.WARNING: "warn", RuleSeverity.OK: "ok"}


@click.group()
@host_option
@click.pass_context
def layout(ctx: click.Context) -> None:
    """Compose a cache/slow tier layout of mergerfs pools.

    The layout is mergerfs's tiered-cache recipe: a tiered pool (cache branches first,
    then the slow ones) that programs use, a slow-only pool, and a mover that empties
    the cache branches into the slow pool on a timer. Every command exits 2 on a rule
    error or bad input.
    """
    if ctx.invoked_subcommand in ("apply", "undo"):
        run_on_host_itself()  # with --host: on the machine itself, its files and units


def _inventory(demo: bool, recorded: Path | None) -> tuple[Inventory, Host]:
    host = make_host(demo, recorded)
    try:
        return collect_inventory(host), host
    except TierdeckError as exc:
        fail(str(exc), EXIT_FAILED)


def _results(lay: Layout, demo: bool, recorded: Path | None) -> tuple[RuleResult, ...]:
    inv, host = _inventory(demo, recorded)
    paths = [*lay.cache, *(b.path for b in lay.slow)]
    return check_layout(lay, branch_facts(inv, host, paths))


def _echo_rules(results: tuple[RuleResult, ...]) -> None:
    for r in results:
        click.echo(f"  {_MARK[r.severity]:5} {r.rule}: {r.message}")
        if r.severity is not RuleSeverity.OK:
            click.echo(f"        why: {r.reason}")


def _refuse(exc: Exception) -> NoReturn:
    fail(str(exc), EXIT_REFUSED)


@click.command("plan")
@click.option(
    "--cache", multiple=True, metavar="DIR", help="A cache branch (repeatable; in order)."
)
@click.option(
    "--slow",
    multiple=True,
    metavar="DIR[=MODE]",
    help="A slow branch, mode RW (default), RO or NC in the tiered pool (repeatable).",
)
@once("--pool", metavar="MOUNTPOINT", help="The tiered pool's mountpoint (what programs use).")
@once(
    "--slow-pool",
    metavar="MOUNTPOINT",
    help="The slow-only pool the mover writes to (needed with several slow branches).",
)
@once("--create", metavar="POLICY", help="The tiered pool's create policy (default ff).")
@once("--minfreespace", metavar="SIZE", help="The tiered pool's minfreespace, e.g. 50G.")
@once(
    "--slow-minfreespace",
    metavar="SIZE",
    help="The slow pool's minfreespace (default mergerfs's 4G): a slow branch with less "
    "free space takes no file, not even from the mover.",
)
@click.option(
    "--option",
    "options",
    multiple=True,
    metavar="K=V",
    help="Any further mergerfs option of the tiered pool (repeatable).",
)
@once(
    "--from-pool",
    metavar="MOUNTPOINT",
    help="Start from a mounted mergerfs pool: its options (read from its xattrs), its "
    "branches other than --cache as the slow tier, its mountpoint as --pool.",
)
@once(
    "--save",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE.toml",
    help="Write the layout (tierdeck.layout/1) there, atomically.",
)
@click.option(
    "--health-timer",
    is_flag=True,
    help="Add the health check's service and timer: `tierdeck check` hourly, keeping the "
    "readings and writing node_exporter's textfile (the [health] table of the file sets "
    "the schedule and the path).",
)
@click.option("--json", "as_json", is_flag=True, help="Print docs/layout-json.md's object.")
@host_options
def plan_cmd(cache: tuple[str, ...], slow: tuple[str, ...], pool: str | None,
             slow_pool: str | None, create: str | None, minfreespace: str | None,
             options: tuple[str, ...], from_pool: str | None, save: Path | None,
             health_timer: bool, as_json: bool, demo: bool, recorded: Path | None,
             slow_minfreespace: str | None) -> None:  # fmt: skip
    """Build a layout from branches and options; print its rule results, fstab lines,
    systemd mount units, the mover's service and timer (and the health check's, with
    --health-timer).

    Exits 2 after printing the plan when a rule says error (nothing is saved then)."""
    request = PlanRequest(cache, slow, pool, slow_pool, create, minfreespace, options, from_pool,
                          slow_minfreespace, health_timer)  # fmt: skip
    inv, host = _inventory(demo, recorded)
    try:
        lay = build_layout(request, inv)
        outputs = layout_outputs(lay, command=tierdeck_command(),
                                 layout_path=str(save.resolve()) if save else DEFAULT_LAYOUT_PATH)  # fmt: skip
    except (LayoutError, OutputError, ParseError) as exc:
        _refuse(exc)
    paths = [*lay.cache, *(b.path for b in lay.slow)]
    results = check_layout(lay, branch_facts(inv, host, paths))
    if as_json:
        json.dump(plan_to_dict(lay, results, outputs), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        click.echo("rules:")
        _echo_rules(results)
        click.echo("\nfstab:")
        for line in outputs.fstab:
            click.echo(line)
        for name, text in outputs.units.items():
            click.echo(f"\n--- {name}\n{text}", nl=False)
    if has_errors(results):
        fail("the layout breaks a rule (see ERROR above); not saved", EXIT_REFUSED)
    if save is not None:
        try:
            save_layout(save, lay)
        except OSError as exc:
            fail(f"cannot write {save}: {exc.strerror}", EXIT_FAILED)
        click.echo(f"saved {save}", err=True)


_load = load_layout_or_exit


@click.command("check")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE.toml")
@host_options
def check_cmd(file: Path, demo: bool, recorded: Path | None) -> None:
    """Check a saved layout against every rule, with this host's branch facts.

    Prints each rule's result and why it matters; exits 2 on any error."""
    results = _results(_load(file), demo, recorded)
    _echo_rules(results)
    if has_errors(results):
        fail(f"{file}: the layout breaks a rule", EXIT_REFUSED)


@click.command("simulate")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE.toml")
@once("--size", metavar="SIZE", required=True, help="The new file's size, e.g. 10G.")
@host_options
def simulate_cmd(file: Path, size: str, demo: bool, recorded: Path | None) -> None:
    """Where the next file of SIZE lands in the tiered pool, under each create policy
    (* marks the layout's), for a file at the pool's root.

    Uses the branches' current free space from the inventory and the pool's
    minfreespace and branch modes, as mergerfs 2.33 decides (it never looks at the
    size: "too small" marks a branch the write would fill up)."""
    lay = _load(file)
    try:
        size_bytes = parse_file_size(size)
    except ParseError as exc:
        _refuse(exc)
    inv, host = _inventory(demo, recorded)
    paths = [b.path for b in lay.tiered_branches()]
    facts = branch_facts(inv, host, paths)
    free = {p: (f.size_bytes, f.free_bytes) if f.size_bytes is not None and
            f.free_bytes is not None else None for p, f in facts.items()}  # fmt: skip
    branches, unknown = simulation_branches(lay, free)
    if unknown:
        fail(f"free space unknown for {', '.join(unknown)} (not on a mounted filesystem "
             "this host shows)", EXIT_REFUSED)  # fmt: skip
    minfree = lay.tiered_pool.options.minfreespace_bytes
    click.echo(f"tiered pool {lay.tiered_pool.mountpoint}, minfreespace "
               f"{format_bytes(minfree)}, a new file of {format_bytes(size_bytes)}:")  # fmt: skip
    for b in branches:
        click.echo(f"  {b.path} ({b.mode}): {format_bytes(b.avail_bytes)} free")
    for policy, placement in simulate_all(branches, size_bytes, minfree).items():
        mark = "*" if policy == lay.tiered_pool.options.create else " "
        if placement.error is not None:
            where = f"fails: {placement.error}"
        elif placement.random:
            shares = ", ".join(f"{p} {s:.0%}" for p, s in zip(placement.branches,
                                                              placement.shares, strict=True))  # fmt: skip
            where = f"one of {shares}"
        else:
            where = str(placement.lands_on)
        if placement.too_small:
            where += f" (too small: {', '.join(placement.too_small)})"
        click.echo(f"{mark} {policy:8} {where}")


def _echo_actions(actions: tuple[ApplyAction, ...]) -> None:
    for n, action in enumerate(actions, 1):
        command = f": {' '.join(action.argv)}" if action.argv else ""
        click.echo(f"  {n:2}. {action.description}{command}")
        if action.skipped:
            click.echo(f"      ({action.skipped})")
        if action.warning:
            click.echo(f"      WARNING: {action.warning}")


def _confirm(expected: str, what: str) -> None:
    """The bench's raw-mode style: the user types a word they must read to know."""
    try:
        typed: str = click.prompt(f"Type {expected} to {what}", err=True)
    except click.Abort:
        typed = ""
    if typed.strip() != expected:
        fail(f"not confirmed (typed {typed.strip()!r}): nothing was changed", EXIT_REFUSED)


def _step(action: ApplyAction) -> None:
    if not action.skipped:
        click.echo(f"  done: {action.description}", err=True)
    elif action.kind is ActionKind.REMOVE_DIR:  # never skipped in a plan: kept as it ran
        click.echo(f"  {action.skipped}", err=True)


_ROOT = click.option(
    "--root",
    type=click.Path(file_okay=False, path_type=Path),
    metavar="DIR",
    help="Every path under DIR (an image being built, a test); no command runs here.",
)


@click.command("apply")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE.toml")
@_ROOT
@click.option("--dry-run", is_flag=True, help="Print the plan and stop.")
@click.option(
    "--no-remount",
    is_flag=True,
    help="Never unmount a pool in use: set what mergerfs changes at runtime, leave the "
    "rest for its next mount.",
)
@click.option("--yes", is_flag=True, help="Apply without asking (scripts).")
def apply_cmd(file: Path, root: Path | None, dry_run: bool, no_remount: bool, yes: bool) -> None:
    """Apply a saved layout: print every action first (mountpoints, the fstab backup, a
    '# BEGIN tierdeck layout NAME' block added to fstab or replacing the old one, the
    units, daemon-reload, mount, the mover's timer and the health check's when the
    layout has one), then ask you to type the tiered pool's mountpoint.

    A mergerfs pool already running at a mountpoint is changed in place: the options
    mergerfs takes at runtime (create policy, minfreespace, branches ...) are set through
    its xattrs, and the fstab block carries them across a remount. A pool that needs an
    option only a mount sets (fsname), or anything else mounted there, is unmounted only
    by an action the plan shows with a warning; --no-remount leaves it running instead.
    Without systemd running (/run/systemd/system absent) the units are written but
    systemctl is skipped; pools are mounted from fstab. With --root DIR the rules run
    without this machine's branch facts (the branches belong to the image).
    `tierdeck layout undo` puts back what the newest apply changed (applies stack)."""
    lay = _load(file)
    host = LiveHost()
    top = str(root.resolve()) if root is not None else None
    try:
        outputs = layout_outputs(lay, command=tierdeck_command(),
                                 layout_path=str(file.resolve()))  # fmt: skip
        results = check_layout(lay) if top else _results(lay, False, None)
        plan = plan_apply(lay, outputs, results, current_state(host, lay, outputs, top),
                          root=top, stamp=stamp_now(), no_remount=no_remount)  # fmt: skip
        earlier = earlier_applies(host, plan.state_path)  # a broken record refuses here
    except (OutputError, ApplyRefused, ApplyFailed) as exc:
        _refuse(exc)
    click.echo(f"apply layout {plan.name} (tiered pool {lay.tiered_pool.mountpoint}):")
    _echo_actions(plan.actions)
    if earlier:
        click.echo(f"{len(earlier)} earlier apply(s) stay on record: `tierdeck layout undo` "
                   "takes this one back first, then those, newest first")  # fmt: skip
    if dry_run:
        return
    if not yes:
        _confirm(lay.tiered_pool.mountpoint, "apply")
    try:
        execute(host, plan, _step)
    except MountBusy as exc:
        fail(f"apply refused: {exc}", EXIT_REFUSED)
    except (ApplyFailed, LockHeld) as exc:
        fail(f"apply stopped: {exc} (tierdeck layout undo puts fstab back)", EXIT_FAILED)
    click.echo(f"applied; undo with: tierdeck layout undo{f' --root {root}' if root else ''}")


@click.command("undo")
@_ROOT
@click.option(
    "--dry-run", is_flag=True, help="Print what the next undo does and every apply on record."
)
@click.option("--yes", is_flag=True, help="Undo without asking (scripts).")
def undo_cmd(root: Path | None, dry_run: bool, yes: bool) -> None:
    """Undo the newest `layout apply` still on record: the options it set on a running
    pool set back, the pools it mounted unmounted (no other: a pool it remounted
    stays), fstab back from its backup, the timers it added stopped and disabled, the
    unit files it wrote removed (or put back as they were), the mountpoints it created removed when empty. Applies stack: after
    apply v1 and apply v2, undo returns to v1 and a second undo to the machine before
    v1. Refused, changing nothing, when fstab is no longer what the apply wrote (a
    line added by hand since would be lost). Shows what it will do and the applies
    still on record first, then asks you to type yes."""
    host = LiveHost()
    try:
        plan = plan_undo(host, str(root.resolve()) if root is not None else None)
    except ApplyFailed as exc:
        _refuse(exc)
    if plan is None:
        fail("nothing to undo: no record of an apply beside fstab", EXIT_REFUSED)
    click.echo(f"undo the newest layout apply, the {describe(plan.record)}:")
    _echo_actions(plan.actions)
    _echo_remaining(plan.remaining)
    if dry_run:
        return
    if not yes:
        _confirm("yes", "undo")
    try:
        undo(host, plan, _step)
    except MountBusy as exc:
        fail(f"undo refused: {exc}", EXIT_REFUSED)
    except (ApplyFailed, LockHeld) as exc:
        fail(f"undo stopped: {exc}", EXIT_FAILED)
    click.echo("undone" if not plan.remaining else
               f"undone; the next undo takes back the {describe(plan.remaining[-1])}")  # fmt: skip


def _echo_remaining(remaining: tuple[Record, ...]) -> None:
    if not remaining:
        click.echo("after it, no earlier apply is on record: the machine is as before the first")
        return
    click.echo(f"after it, {len(remaining)} earlier apply(s) on record, undone newest first:")
    for number, record in enumerate(reversed(remaining), start=2):
        click.echo(f"  undo {number}: the {describe(record)}")


for _command in (plan_cmd, check_cmd, simulate_cmd, apply_cmd, undo_cmd):
    layout.add_command(_command)
