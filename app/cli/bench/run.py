"""``tierdeck bench ...``: benchmarks for scripts.

The engine (preflight, runner) and the store do the work; this module only turns
options into a request, events into a progress bar, and results into a table
(app/cli/history/runs.py draws it, as ``history show`` does) or the ``tierdeck.run/1`` JSON
object (docs/bench-json.md).

Exit status of ``bench run``: 0 ok, 1 the run failed (fio's message on stderr), 2
refused before starting (every BenchRefused, wherever it is raised) or bad options, 130
cancelled with Ctrl-C (143 with SIGTERM), 141 stdout closed early (app/cli/__init__.py).
Tables are plain aligned text (stable in pipes and greppable); rich draws only the live
progress bar, on stderr. Heavy imports (rich, the engine) happen inside the commands so
``tierdeck --help`` and the TUI start fast.
"""

from __future__ import annotations

import asyncio
import errno
import json
import os
import shlex
import signal
import sys
import textwrap
from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from ....core.bench_models import (
    BenchRefused,
    RefusalKind,
    RunRequest,
    RunResult,
    RunStatus,
    RunWarning,
)
from ....core.errors import ParseError, TierdeckError
from ....core.jobspec import JobSpec, JobSpecError
from ....core.presets import PRESETS, Preset, find_preset
from ....core.units import fmt_clock, fmt_mib
from ...history.store import HistoryError, HistoryStore, result_to_json
from .. import EXIT_FAILED, EXIT_REFUSED, EXIT_SIGINT, EXIT_SIGTERM, LazyGroup, fail, once
from ..history.runs import output_width, result_lines
from .sweep import SWEEP_COMMANDS

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from rich.progress import Progress, TaskID

    from ....core.models import Inventory
    from ...bench.service import BenchService

PRESETS_SCHEMA = "tierdeck.presets/1"
T = TypeVar("T")

_BUFFERED_ADVICE = (
    "To run anyway, re-run with --direct 0 (buffered I/O). The page cache (or the ZFS "
    "ARC) then serves reads and absorbs writes, so the figures can be far above what "
    "the disks underneath can do; compare them only with other --direct 0 runs."
)


def _stdin_is_terminal() -> bool:
    return sys.stdin.isatty()


def _stderr_is_terminal() -> bool:
    return sys.stderr.isatty()


# --------------------------------------------------------------------------- presets


def _preset_json(p: Preset) -> dict[str, Any]:
    from ...history.store import _spec_to_dict

    return {
        "name": p.name,
        "aliases": list(p.aliases),
        "title": p.title,
        "source": p.source,
        "description": p.description,
        "lay_out_first": p.lay_out_first,
        "drop_caches": p.drop_caches,
        "jobs": [_spec_to_dict(job) for job in p.jobs],
        "jobfile": p.to_jobfile(),
    }


def _find_preset(name: str) -> Preset:
    found = find_preset(name)
    if found is None:
        names = ", ".join(p.name for p in PRESETS)
        raise click.BadParameter(f"no preset {name!r}; presets: {names}", param_hint="preset")
    return found


def preset_file_text(p: Preset) -> str:
    """A preset as a .fio file that fio and ``bench run --job`` both accept."""
    from .... import __version__

    notes = [
        f"; tierdeck {__version__} preset {p.name}",
        "; run with tierdeck: tierdeck bench run --job THIS.fio --target DIR",
        "; run bare: fio --directory=DIR THIS.fio (no live graph, no cleanup)",
    ]
    if p.lay_out_first:
        notes.append("; tierdeck lays the test files out before measuring; bare fio does not")
    if p.drop_caches:
        notes.append("; tierdeck drops the page cache before measuring (root); bare fio does not")
    return "\n".join(notes) + "\n" + p.to_jobfile()


class BenchGroup(LazyGroup):
    """``bench``'s commands that live in modules of their own, imported when run."""

    LAZY = {"ladder": "tierdeck.app.cli.bench.ladder:ladder_cmd"}


@click.group(cls=BenchGroup)
def bench() -> None:
    """Run fio benchmarks from presets or job files, with a saved history."""


for _command in SWEEP_COMMANDS:  # bench sweep, sweeps, sweep-export (app/cli/bench/sweep.py)
    bench.add_command(_command)


@bench.command("presets")
@click.option("--json", "as_json", is_flag=True, help="Print the presets as JSON.")
@once(
    "--save",
    nargs=2,
    type=(str, click.Path(dir_okay=False, path_type=Path)),
    metavar="NAME FILE.fio",
    help="Write preset NAME as a fio job file.",
)
@click.option("--force", is_flag=True, help="With --save: overwrite an existing file.")
def presets_cmd(as_json: bool, save: tuple[str, Path] | None, force: bool) -> None:
    """List the presets, where each comes from, and their exact fio parameters.

    A preset's former names (its "formerly" line) are still accepted wherever a preset
    is named: --preset, --save, sweep files, history list --preset."""
    if save is not None:
        name, path = save
        preset = _find_preset(name)
        try:
            with open(path, "w" if force else "x", encoding="utf-8") as handle:
                handle.write(preset_file_text(preset))
        except FileExistsError:
            fail(f"{path} exists; add --force to overwrite it", EXIT_FAILED)
        except OSError as exc:
            fail(f"cannot write {path}: {exc.strerror}", EXIT_FAILED)
        click.echo(f"wrote preset {preset.name} to {path}", err=True)
        return
    if as_json:
        doc = {"schema": PRESETS_SCHEMA, "presets": [_preset_json(p) for p in PRESETS]}
        click.echo(json.dumps(doc, indent=2))
        return
    # 96 reads well in a pager; a terminal narrower than that would break every line
    terminal = output_width()
    width = min(96, terminal or 96)
    for i, p in enumerate(PRESETS):
        if i:
            click.echo()
        click.echo(f"{p.name}: {p.title}")
        if p.aliases:
            click.echo(f"  formerly: {', '.join(p.aliases)} (still accepted)")
        source = f"  source: {p.source}"
        if terminal is not None:  # in a pipe one line each, to grep; URLs never split
            source = "\n".join(textwrap.wrap(source, width, subsequent_indent="    ",
                                              break_long_words=False, break_on_hyphens=False))  # fmt: skip
        click.echo(source)
        click.echo(click.wrap_text(p.description, width=width, initial_indent="  ",
                                   subsequent_indent="  "))  # fmt: skip
        extras = [t for f, t in ((p.lay_out_first, "lays files out first"),
                                 (p.drop_caches, "drops caches (root)")) if f]  # fmt: skip
        if extras:
            click.echo(f"  tierdeck also: {', '.join(extras)}")
        for line in p.to_jobfile().splitlines():
            if line and not line.startswith(";"):
                click.echo(f"    {line}")


# --------------------------------------------------------------------------- bench run


def _live_progress(console: Console, below: Callable[[], RenderableType | None]) -> Progress:
    """A bar with phase, ETA and live MiB/s; ``below()`` adds a line under it (disks)."""
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn

    class _RunProgress(Progress):
        def get_renderables(self) -> Iterator[RenderableType]:
            yield self.make_tasks_table(self.tasks)
            extra = below()
            if extra is not None:
                yield extra

    return _RunProgress(
        TextColumn("{task.description}"),
        BarColumn(),
        TaskProgressColumn(),
        TextColumn("ETA {task.fields[eta]}"),
        TextColumn("{task.fields[rate]}"),
        console=console,
        transient=True,  # the summary table replaces it
    )


def rate_text(read_bytes_per_s: float, write_bytes_per_s: float) -> str:
    return f"read {fmt_mib(read_bytes_per_s)} MiB/s  write {fmt_mib(write_bytes_per_s)} MiB/s"


class RunReporter:
    """Turns runner events into what the user sees. ``live``: a rich progress bar on
    stderr; otherwise notices as plain stderr lines (nothing at all goes to stdout,
    which belongs to --json)."""

    def __init__(self, *, live: bool) -> None:
        self.live = live
        self.progress: Progress | None = None
        self._task: TaskID | None = None
        self._rate = ""
        self._disks: RenderableType | None = None
        self._said: set[str] = set()
        self.stderr_gone = False

    def __enter__(self) -> RunReporter:
        if self.live:
            # rich only for the live bar: off a terminal (--json, the journal) its ~0.1 s
            # of imports would be paid for nothing
            from rich.console import Console

            console = Console(stderr=True, highlight=False)
            self.progress = _live_progress(console, lambda: self._disks)
            self._task = self.progress.add_task("starting", total=1.0, eta="--:--", rate="")
            self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.stop()

    def say(self, text: str) -> None:
        if self.stderr_gone:
            return
        try:
            if self.progress is not None:
                self.progress.console.print(text, markup=False, highlight=False)
            else:
                click.echo(f"tierdeck: {text}", err=True)
        except OSError as exc:
            # `2>&1 | head`: the reader left, but the run must still finish, clean up
            # and be saved; a notice nobody reads is no reason to abandon it.
            if exc.errno != errno.EPIPE:
                raise
            self.stderr_gone = True

    def say_before_start(self, warnings: Sequence[RunWarning]) -> None:
        """The request's warnings, before anything runs; the runner repeats them as
        notices once it starts, which would say them twice."""
        for warning in warnings:
            self.say(warning.text)
        self._said.update(w.text for w in warnings)

    def __call__(self, event: Any) -> None:
        from ...bench import events as ev

        if isinstance(event, ev.Notice):
            if event.text in self._said:
                self._said.discard(event.text)
            else:
                self.say(event.text)
        elif isinstance(event, ev.RunStarted):
            if self.live:
                self.say(f"running: {shlex.join(event.command)}")
        elif isinstance(event, ev.StoreFailed):
            self.say(f"the run could not be saved: {event.error}")
        elif self.progress is None or self._task is None:
            return
        elif isinstance(event, ev.Progress):
            self.progress.update(
                self._task,
                completed=min(max(event.fraction, 0.0), 1.0),
                description=event.phase,
                eta=fmt_clock(event.eta_s),
                rate=self._rate,
            )
        elif isinstance(event, ev.SampleReady):
            s = event.sample
            self._rate = rate_text(s.read.bw_bytes_per_s, s.write.bw_bytes_per_s)
            self.progress.update(self._task, rate=self._rate)
        elif isinstance(event, ev.DevicesReady):
            from rich.text import Text

            parts = [
                f"{d.device} {fmt_mib(d.read_bytes_per_s)}/{fmt_mib(d.write_bytes_per_s)} "
                f"{d.util_pct:.0f}%"
                for d in event.samples
            ]
            self._disks = Text("disks (read/write MiB/s, busy): " + "   ".join(parts), style="dim")


async def until_cancelled(
    work: Callable[[asyncio.Event], Awaitable[T]], say: Callable[[str], None], cancelling: str
) -> tuple[T, int]:
    """``work(cancel)`` with SIGINT/SIGTERM setting ``cancel`` (said once, as
    ``cancelling``): its result, and the first signal received (0: none). Runs, sweeps
    and ladders stop cleanly this way: fio stopped, files removed, mounts gone."""
    cancel = asyncio.Event()
    loop = asyncio.get_running_loop()
    received: list[int] = []

    def on_signal(signum: int) -> None:
        if not received:
            say(cancelling)
        received.append(signum)
        cancel.set()

    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, on_signal, signum)
    try:
        result = await work(cancel)
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)
    return result, received[0] if received else 0


def cancel_exit_code(signum: int) -> int:
    """The exit status of a run, sweep or ladder cancelled by ``signum``."""
    return EXIT_SIGTERM if signum == signal.SIGTERM else EXIT_SIGINT


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


def _load_jobs(
    preset_name: str | None, job_file: Path | None
) -> tuple[tuple[JobSpec, ...], Preset | None]:
    if (preset_name is None) == (job_file is None):
        raise click.UsageError("give exactly one of --preset NAME or --job FILE.fio")
    if preset_name is not None:
        preset = _find_preset(preset_name)
        return preset.jobs, preset
    assert job_file is not None
    from ....backends.fio.jobfile import parse_jobfile

    try:
        # values are validated by plan_run, after --size/--runtime/--direct apply
        jobs = parse_jobfile(job_file.read_text(encoding="utf-8"))
    except ParseError as exc:
        raise click.BadParameter(str(exc), param_hint="--job") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise click.BadParameter(f"cannot read {job_file}: {exc}", param_hint="--job") from exc
    if not jobs:
        raise click.BadParameter(f"{job_file} has no job section", param_hint="--job")
    return tuple(jobs), None


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

Raw mode (--raw): TARGET is an unused block device (no filesystem, no partition in
use, no holder or pool). fio reads and writes the device itself: its contents are
destroyed. On a terminal tierdeck asks for the device name, typed to confirm; scripts
pass it with --confirm-device NAME.

\b
Exit status:
  0    the run finished ok
  1    the run failed (fio's message on stderr), or tierdeck could not work
  2    refused before starting (no space, O_DIRECT unsupported, raw device,
       target busy, a file outside the target ...: the reason on stderr),
       or bad options
  130  cancelled with Ctrl-C (143 with SIGTERM): fio stopped, files removed
  141  stdout closed early (the run is saved and its files removed first)
"""


@bench.command("run", help=RUN_HELP)
@once("--preset", "preset_name", metavar="NAME", help="A preset (tierdeck bench presets).")
@once(
    "--job",
    "job_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A fio job file ([global] and several jobs allowed).",
)
@once(
    "--target",
    required=True,
    metavar="PATH",
    help="Directory to benchmark in (a block device with --raw).",
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
    target: str,
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
    jobs, preset = _load_jobs(preset_name, job_file)
    if confirm_device is not None and not raw:
        raise click.UsageError("--confirm-device confirms raw mode: add --raw")
    target = os.path.abspath(target)
    if raw and os.path.isdir(target):
        raise click.UsageError(
            f"--raw is for a block device; {target} is a directory (leave out --raw: the "
            "test files go in the directory)"
        )
    from ....backends.host import LiveHost
    from ...bench.service import BenchAsk, BenchService
    from ...machine.inventory import collect_inventory

    host = LiveHost()
    service = BenchService(host, store=None if no_save else HistoryStore)
    # Open the store first: finding out after a 10-minute run that it cannot be saved
    # would waste the run.
    try:
        service.open_store()
    except HistoryError as exc:
        fail(f"{exc} (or add --no-save)", EXIT_FAILED)
    reporter = RunReporter(live=_stderr_is_terminal() and not as_json)

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
            request = plan(inv, _ask_device_name(inv, os.path.realpath(target)))
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
