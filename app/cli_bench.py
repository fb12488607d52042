"""``tierdeck bench ...`` and ``tierdeck history ...``: benchmarks for scripts.

The engine (preflight, runner) and the store do the work; this module only turns
options into a request, events into a progress bar, and results into a table or the
``tierdeck.run/1`` JSON object (docs/bench-json.md).

Exit status of ``bench run``: 0 ok, 1 the run failed (fio's message on stderr), 2
refused before starting or bad options, 130 cancelled with Ctrl-C (143 with SIGTERM).
Tables are plain aligned text (stable in pipes and greppable); rich draws only the live
progress bar, on stderr. Heavy imports (rich, the engine) happen inside the commands so ``tierdeck --help`` and
the TUI start fast.
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import signal
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click
from tierdeck.app.history import (
    HistoryError,
    HistoryStore,
    device_totals,
    job_results,
    result_to_json,
)
from tierdeck.core.bench_models import BenchRefused, RunRequest, RunResult, RunStatus
from tierdeck.core.errors import ParseError, TierdeckError
from tierdeck.core.jobspec import PRESETS, JobSpec, JobSpecError, Preset

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from rich.progress import Progress, TaskID
    from tierdeck.backends.host import Host

EXIT_FAILED = 1
EXIT_REFUSED = 2
EXIT_SIGINT = 130
EXIT_SIGTERM = 143
PRESETS_SCHEMA = "tierdeck.presets/1"

_BUFFERED_ADVICE = (
    "To run anyway, re-run with --direct 0 (buffered I/O). The page cache (or the ZFS "
    "ARC) then serves reads and absorbs writes, so the figures can be far above what "
    "the disks underneath can do; compare them only with other --direct 0 runs."
)


def _fail(message: str, code: int) -> NoReturn:
    click.echo(f"tierdeck: {message}", err=True)
    sys.exit(code)


def _stdin_is_terminal() -> bool:
    return sys.stdin.isatty()


def _stderr_is_terminal() -> bool:
    return sys.stderr.isatty()


# --------------------------------------------------------------------------- formatting


def _mbps(bytes_per_s: float | None) -> str:
    return "-" if bytes_per_s is None else f"{bytes_per_s / 1e6:,.1f}"


def _iops(iops: float | None) -> str:
    return "-" if iops is None else f"{iops:,.0f}"


def _latency(ns: float | None) -> str:
    if ns is None:
        return "-"
    if ns < 1_000:
        return f"{ns:.0f} ns"
    if ns < 1_000_000:
        return f"{ns / 1_000:.1f} µs"
    if ns < 1_000_000_000:
        return f"{ns / 1_000_000:.2f} ms"
    return f"{ns / 1e9:.2f} s"


def _clock(seconds: float | None) -> str:
    if seconds is None:
        return "--:--"
    whole = max(int(seconds + 0.5), 0)
    return f"{whole // 60}:{whole % 60:02d}"


def _when(epoch: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(epoch))


def _table(
    header: list[str], rows: list[list[str]], *, left: int = 1, last_left: bool = False
) -> list[str]:
    """Plain aligned columns: the first ``left`` ones (and the last with ``last_left``)
    left-aligned, numbers right. Greppable, never wrapped or truncated, the same on a
    terminal and in a pipe."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.ljust(w) if i < left or (last_left and i == len(widths) - 1) else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return [line(header), *(line(r) for r in rows)]


def _summary_lines(result: RunResult) -> list[str]:
    header = ["job", "dir", "MB/s", "IOPS", "mean lat", "p99 lat"]
    rows: list[list[str]] = []
    jobs = job_results(result)
    if jobs:
        for job in jobs:
            for direction in ("read", "write", "trim"):
                d = job[direction]
                if d is not None:
                    rows.append([job["name"], direction, _mbps(d["bw_bytes"]), _iops(d["iops"]),
                                 _latency(d["lat_mean_ns"]), _latency(d["lat_p99_ns"])])  # fmt: skip
    else:
        for direction, d in result.summary.items():
            rows.append(["all jobs", direction, _mbps(d.bw_bytes), _iops(d.iops),
                         _latency(d.lat_mean_ns), _latency(d.lat_p99_ns)])  # fmt: skip
    return _table(header, rows, left=2) if rows else []


def _disk_lines(result: RunResult) -> list[str]:
    from tierdeck.core.units import format_bytes

    rows: list[list[str]] = []
    for disk in device_totals(result):
        series = disk["series"]
        seconds = series[-1]["t"] if series else 0.0
        util = sum(s["util_pct"] for s in series) / len(series) if series else None
        rows.append(
            [
                disk["device"],
                _mbps(disk["read_bytes"] / seconds if seconds else None),
                _mbps(disk["write_bytes"] / seconds if seconds else None),
                "-" if util is None else f"{util:.0f}",
                format_bytes(disk["read_bytes"]),
                format_bytes(disk["write_bytes"]),
            ]
        )
    if not rows:
        return []
    label = result.target.label or result.target.path
    header = ["disk", "read MB/s", "write MB/s", "util %", "read", "written"]
    return [f"disks under {label} (from /proc/diskstats):", *_table(header, rows)]


def result_lines(result: RunResult) -> list[str]:
    """The human summary: per-job figures, the disks underneath, warnings."""
    head = f"#{result.id} " if result.id is not None else ""
    lines = [f"{head}{result.name}: {RunStatus(result.status).value}"]
    if result.error:
        lines.append(f"error: {result.error}")
    for block in (_summary_lines(result), _disk_lines(result)):
        if block:
            lines += ["", *block]
    if result.warnings:
        lines.append("")
    lines += [f"warning: {w}" for w in result.warnings]
    return lines


# --------------------------------------------------------------------------- presets


def _preset_json(p: Preset) -> dict[str, Any]:
    from tierdeck.app.history import _spec_to_dict

    return {
        "name": p.name,
        "title": p.title,
        "source": p.source,
        "description": p.description,
        "lay_out_first": p.lay_out_first,
        "drop_caches": p.drop_caches,
        "jobs": [_spec_to_dict(job) for job in p.jobs],
        "jobfile": p.to_jobfile(),
    }


def _find_preset(name: str) -> Preset:
    for p in PRESETS:
        if p.name == name:
            return p
    names = ", ".join(p.name for p in PRESETS)
    raise click.BadParameter(f"no preset {name!r}; presets: {names}", param_hint="preset")


def preset_file_text(p: Preset) -> str:
    """A preset as a .fio file that fio and ``bench run --job`` both accept."""
    from tierdeck import __version__

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


@click.group()
def bench() -> None:
    """Run fio benchmarks from presets or job files, with a saved history."""


@bench.command("presets")
@click.option("--json", "as_json", is_flag=True, help="Print the presets as JSON.")
@click.option(
    "--save",
    nargs=2,
    type=(str, click.Path(dir_okay=False, path_type=Path)),
    default=None,
    metavar="NAME FILE.fio",
    help="Write preset NAME as a fio job file.",
)
@click.option("--force", is_flag=True, help="With --save: overwrite an existing file.")
def presets_cmd(as_json: bool, save: tuple[str, Path] | None, force: bool) -> None:
    """List the presets, where each comes from, and their exact fio parameters."""
    if save is not None:
        name, path = save
        preset = _find_preset(name)
        try:
            with open(path, "w" if force else "x", encoding="utf-8") as handle:
                handle.write(preset_file_text(preset))
        except FileExistsError:
            _fail(f"{path} exists; add --force to overwrite it", EXIT_FAILED)
        except OSError as exc:
            _fail(f"cannot write {path}: {exc.strerror}", EXIT_FAILED)
        click.echo(f"wrote preset {preset.name} to {path}", err=True)
        return
    if as_json:
        doc = {"schema": PRESETS_SCHEMA, "presets": [_preset_json(p) for p in PRESETS]}
        click.echo(json.dumps(doc, indent=2))
        return
    for i, p in enumerate(PRESETS):
        if i:
            click.echo()
        click.echo(f"{p.name}: {p.title}")
        click.echo(f"  source: {p.source}")
        click.echo(click.wrap_text(p.description, width=96, initial_indent="  ",
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
    """A bar with phase, ETA and live MB/s; ``below()`` adds a line under it (disks)."""
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


class RunReporter:
    """Turns runner events into what the user sees. ``live``: a rich progress bar on
    stderr; otherwise notices as plain stderr lines (nothing at all goes to stdout,
    which belongs to --json)."""

    def __init__(self, *, live: bool) -> None:
        self.live = live
        from rich.console import Console

        self.console = Console(stderr=True, highlight=False)
        self.progress: Progress | None = None
        self._task: TaskID | None = None
        self._rate = ""
        self._disks: RenderableType | None = None

    def __enter__(self) -> RunReporter:
        if self.live:
            self.progress = _live_progress(self.console, lambda: self._disks)
            self._task = self.progress.add_task("starting", total=1.0, eta="--:--", rate="")
            self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.stop()

    def say(self, text: str) -> None:
        if self.progress is not None:
            self.progress.console.print(text, markup=False, highlight=False)
        else:
            click.echo(f"tierdeck: {text}", err=True)

    def __call__(self, event: Any) -> None:
        from tierdeck.app import bench_events as ev

        if isinstance(event, ev.Notice):
            self.say(event.text)
        elif isinstance(event, ev.RunStarted):
            if self.live:
                self.say(f"running: {shlex.join(event.command)}")
        elif self.progress is None or self._task is None:
            return
        elif isinstance(event, ev.Progress):
            self.progress.update(
                self._task,
                completed=min(max(event.fraction, 0.0), 1.0),
                description=event.phase,
                eta=_clock(event.eta_s),
                rate=self._rate,
            )
        elif isinstance(event, ev.SampleReady):
            s = event.sample
            self._rate = f"read {_mbps(s.read.bw_bytes_per_s)} MB/s  write {_mbps(s.write.bw_bytes_per_s)} MB/s"
            self.progress.update(self._task, rate=self._rate)
        elif isinstance(event, ev.DevicesReady):
            from rich.text import Text

            parts = [
                f"{d.device} {_mbps(d.read_bytes_per_s + d.write_bytes_per_s)} MB/s "
                f"{d.util_pct:.0f}%"
                for d in event.samples
            ]
            self._disks = Text("disks: " + "   ".join(parts), style="dim")


async def _drive(host: Host, request: RunRequest, reporter: RunReporter) -> tuple[RunResult, int]:
    """Run, cancelling cleanly (fio stopped, test files removed) on SIGINT/SIGTERM."""
    from tierdeck.app.bench_runner import run_benchmark

    cancel = asyncio.Event()
    loop = asyncio.get_running_loop()
    received: list[int] = []

    def on_signal(signum: int) -> None:
        if not received:
            reporter.say("cancelling: stopping fio and removing its test files ...")
        received.append(signum)
        cancel.set()

    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, on_signal, signum)
    try:
        result = await run_benchmark(host, request, reporter, cancel)
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)
    return result, received[0] if received else 0


def _load_jobs(
    preset_name: str | None, job_file: Path | None
) -> tuple[tuple[JobSpec, ...], Preset | None]:
    if (preset_name is None) == (job_file is None):
        raise click.UsageError("give exactly one of --preset NAME or --job FILE.fio")
    if preset_name is not None:
        preset = _find_preset(preset_name)
        return preset.jobs, preset
    assert job_file is not None
    from tierdeck.backends.fio_jobfile import parse_jobfile

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


@bench.command("run")
@click.option("--preset", "preset_name", metavar="NAME", help="A preset (tierdeck bench presets).")
@click.option(
    "--job",
    "job_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A fio job file ([global] and several jobs allowed).",
)
@click.option("--target", required=True, metavar="PATH", help="Directory to benchmark in.")
@click.option("--size", metavar="S", help="File size per job, fio syntax: 512M, 4G.")
@click.option("--runtime", type=click.IntRange(min=1), metavar="SEC", help="Seconds per job.")
@click.option("--direct", type=click.Choice(["0", "1"]), help="O_DIRECT off (0) or on (1).")
@click.option("--drop-caches", is_flag=True, help="Drop the page cache before measuring (root).")
@click.option("--json", "as_json", is_flag=True, help="Print one tierdeck.run/1 JSON object.")
@click.option("--no-save", is_flag=True, help="Do not store the run in the history.")
@click.option("--name", metavar="TEXT", help="Name shown in the history.")
def run_cmd(
    preset_name: str | None,
    job_file: Path | None,
    target: str,
    size: str | None,
    runtime: int | None,
    direct: str | None,
    drop_caches: bool,
    as_json: bool,
    no_save: bool,
    name: str | None,
) -> None:
    """Run a benchmark on TARGET: a progress bar and a summary table on a terminal,
    or with --json exactly one JSON object (docs/bench-json.md). Ctrl-C cancels
    cleanly: fio is stopped and its test files removed."""
    jobs, preset = _load_jobs(preset_name, job_file)
    target = os.path.abspath(target)
    # Open the store first: finding out after a 10-minute run that it cannot be saved
    # would waste the run.
    store = None
    if not no_save:
        try:
            store = HistoryStore()
        except HistoryError as exc:
            _fail(f"{exc} (or add --no-save)", EXIT_FAILED)

    from tierdeck.app.bench_preflight import plan_run
    from tierdeck.app.inventory import collect_inventory
    from tierdeck.backends.host import LiveHost

    host = LiveHost()
    reporter = RunReporter(live=_stderr_is_terminal() and not as_json)
    try:
        inv = collect_inventory(host)
        request = plan_run(
            host,
            inv,
            target,
            jobs,
            preset=preset.name if preset else None,
            size=size,
            runtime=runtime,
            direct=None if direct is None else direct == "1",
            # a preset's own lay-out and drop-caches flags are applied by plan_run
            drop_caches=drop_caches,
            name=name,
        )
    except BenchRefused as exc:
        message = f"refused: {exc.reason}"
        if exc.offer_buffered and direct != "0":
            message += "\n" + _BUFFERED_ADVICE
        _fail(message, EXIT_REFUSED)
    except JobSpecError as exc:
        _fail(str(exc), EXIT_REFUSED)
    except TierdeckError as exc:
        _fail(str(exc), EXIT_FAILED)
    except KeyboardInterrupt:
        _fail("interrupted before the run started", EXIT_SIGINT)
    # request.warnings reach the user as the runner's Notice events, and end up in
    # result.warnings for the summary: not printed here a third time.

    try:
        with reporter:
            result, signum = asyncio.run(_drive(host, request, reporter))
    except TierdeckError as exc:  # fio missing, cannot start ...
        _fail(str(exc), EXIT_FAILED)

    if store is not None:
        try:
            result = replace(result, id=store.save(result))
        except TierdeckError as exc:
            reporter.say(f"the run could not be saved: {exc}")
    _report(result, as_json=as_json)

    status = RunStatus(result.status)
    if status is RunStatus.CANCELLED:
        sys.exit(EXIT_SIGTERM if signum == signal.SIGTERM else EXIT_SIGINT)
    if status is RunStatus.FAILED:
        _fail(f"the run failed: {result.error or 'no message from fio'}", EXIT_FAILED)


def _report(result: RunResult, *, as_json: bool) -> None:
    if as_json:
        # one object on one line per run: JSON Lines, so several runs concatenate
        click.echo(json.dumps(result_to_json(result), separators=(",", ":")))
        return
    click.echo("\n".join(result_lines(result)))
    if result.id is not None:
        click.echo(f"saved as run #{result.id} (tierdeck history show {result.id})")


# --------------------------------------------------------------------------- history


def _store() -> HistoryStore:
    try:
        return HistoryStore()
    except HistoryError as exc:
        _fail(str(exc), EXIT_FAILED)


def _get(store: HistoryStore, run_id: int) -> RunResult:
    try:
        result = store.get(run_id)
    except TierdeckError as exc:
        _fail(str(exc), EXIT_FAILED)
    if result is None:
        _fail(f"no run #{run_id} in the history ({store.path})", EXIT_FAILED)
    return result


@click.group()
def history() -> None:
    """Stored benchmark runs. `list` shows only successful runs unless --status says
    otherwise: failed and cancelled runs are kept, never mixed with good ones."""


@history.command("list")
@click.option("--target", metavar="PATH", help="Only runs on this target path.")
@click.option("--preset", metavar="NAME", help="Only runs of this preset.")
@click.option("--tag", metavar="TAG", help="Only runs with this tag.")
@click.option(
    "--status",
    type=click.Choice(["ok", "failed", "cancelled", "all"]),
    default="ok",
    show_default=True,
    help="Which outcomes to list.",
)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array of tierdeck.run/1.")
def list_cmd(
    target: str | None, preset: str | None, tag: str | None, status: str, as_json: bool
) -> None:
    """List stored runs, newest first."""
    store = _store()
    statuses = tuple(RunStatus) if status == "all" else RunStatus(status)
    try:
        runs = store.list(
            target=os.path.realpath(target) if target else None,
            preset=preset,
            status=statuses,
            tag=tag,
            full=as_json,
        )
    except TierdeckError as exc:
        _fail(str(exc), EXIT_FAILED)
    if as_json:
        click.echo(json.dumps([result_to_json(r) for r in runs], indent=2))
        return
    if not runs:
        click.echo(f"no {'' if status == 'all' else status + ' '}runs stored", err=True)
        return
    rows = [
        [
            str(r.id),
            _when(r.started_at),
            RunStatus(r.status).value,
            r.name,
            r.preset or "-",
            r.target.path,
            _mbps(r.summary["write"].bw_bytes) if "write" in r.summary else "-",
            _mbps(r.summary["read"].bw_bytes) if "read" in r.summary else "-",
            " ".join(r.tags),
        ]
        for r in runs
    ]
    header = ["id", "started", "status", "name", "preset", "target", "write MB/s", "read MB/s",
              "tags"]  # fmt: skip
    click.echo("\n".join(_table(header, rows, left=6, last_left=True)))


@history.command("show")
@click.argument("run_id", type=int, metavar="ID")
@click.option("--json", "as_json", is_flag=True, help="Print the tierdeck.run/1 object.")
@click.option("--fio", "with_fio", is_flag=True, help="With --json: add fio's full JSON.")
@click.option("--series", is_flag=True, help="Also print the per-second series.")
def show_cmd(run_id: int, as_json: bool, with_fio: bool, series: bool) -> None:
    """Show one run: target, environment, results, disks and warnings."""
    result = _get(_store(), run_id)
    if as_json:
        click.echo(json.dumps(result_to_json(result, include_fio=with_fio), indent=2))
        return
    t = result.target
    lines = [
        f"target:   {t.label} ({t.kind}) {t.path}",
        f"disks:    {' '.join(t.disks) or '-'}",
        f"preset:   {result.preset or '-'}",
        f"started:  {_when(result.started_at)}"
        + (f", {result.finished_at - result.started_at:.0f} s" if result.finished_at else ""),
    ]
    if result.tags:
        lines.append(f"tags:     {' '.join(result.tags)}")
    env = result.env
    env_bits = [
        f"kernel {env.kernel}" if env.kernel else "",
        env.fio_version or "",
        f"{env.fs_type} ({','.join(env.mount_options)})" if env.fs_type else "",
        f"mergerfs {env.mergerfs_version}" if env.mergerfs_version else "",
        f"zfs {env.zfs_version}" if env.zfs_version else "",
    ]
    lines.append(f"env:      {', '.join(b for b in env_bits if b) or '-'}")
    lines += [f"          {disk}: {model}" for disk, model in env.disk_models.items()]
    if env.mergerfs_options:
        opts = " ".join(f"{k}={v}" for k, v in env.mergerfs_options.items())
        lines.append(f"mergerfs: {opts}")
    if env.zfs_properties:
        props = " ".join(f"{k}={v}" for k, v in env.zfs_properties.items())
        lines.append(f"zfs:      {props}")
    lines += ["", *result_lines(result)]
    if series and result.series:
        header = ["t", "read MB/s", "write MB/s", "read IOPS", "write IOPS", "read p99",
                  "write p99"]  # fmt: skip
        rows = [
            [
                f"{s.t:.1f}",
                _mbps(s.read.bw_bytes_per_s),
                _mbps(s.write.bw_bytes_per_s),
                _iops(s.read.iops),
                _iops(s.write.iops),
                _latency(s.read.lat_p99_ns),
                _latency(s.write.lat_p99_ns),
            ]  # fmt: skip
            for s in result.series
        ]
        lines += ["", "per second (fio):", *_table(header, rows, left=0)]
    click.echo("\n".join(lines))


@history.command("rename")
@click.argument("run_id", type=int, metavar="ID")
@click.argument("name")
def rename_cmd(run_id: int, name: str) -> None:
    """Give a run a new name."""
    try:
        _store().rename(run_id, name)
    except TierdeckError as exc:
        _fail(str(exc), EXIT_FAILED)


@history.command("tag")
@click.argument("run_id", type=int, metavar="ID")
@click.argument("tags", nargs=-1, metavar="TAG...")
@click.option("--remove", is_flag=True, help="Remove these tags instead of adding them.")
@click.option("--clear", is_flag=True, help="Remove every tag first.")
def tag_cmd(run_id: int, tags: Sequence[str], remove: bool, clear: bool) -> None:
    """Add tags to a run (or --remove them); prints the run's tags afterwards."""
    store = _store()
    current = [] if clear else list(_get(store, run_id).tags)
    if remove:
        new = [t for t in current if t not in tags]
    else:
        new = current + [t for t in tags if t not in current]
    try:
        store.set_tags(run_id, new)
    except TierdeckError as exc:
        _fail(str(exc), EXIT_FAILED)
    click.echo(" ".join(_get(store, run_id).tags))


@history.command("delete")
@click.argument("run_id", type=int, metavar="ID")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
def delete_cmd(run_id: int, yes: bool) -> None:
    """Delete a run and its series (asks first on a terminal)."""
    store = _store()
    result = _get(store, run_id)
    if not yes and _stdin_is_terminal():
        click.confirm(
            f"Delete run #{run_id} ({result.name}, {_when(result.started_at)})?", abort=True
        )
    try:
        store.delete(run_id)
    except TierdeckError as exc:
        _fail(str(exc), EXIT_FAILED)
    click.echo(f"deleted run #{run_id}", err=True)
