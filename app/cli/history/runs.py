"""``tierdeck history list``, ``show``, ``rename``, ``tag`` and ``delete``: the stored
runs. A run's results are drawn by app/history/run_text.py, as ``bench run`` draws them."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from ....core.bench_models import RunResult, RunStatus, host_names
from ....core.errors import TierdeckError
from ...history.run_json import result_to_json
from ...history.run_lines import json_array
from ..common import EXIT_FAILED, fail, once, open_store, output_width, stored_run

if TYPE_CHECKING:
    from ...history.text_table import FitStep

# The text tables' modules (run_text, text_table, units) are imported by the functions
# that draw them: `history list --json` answers before they would have loaded.

OLD_LAYOUT_MARK = "*"
OLD_LAYOUT_LEGEND = (
    f"{OLD_LAYOUT_MARK} stored before 0.2: clones shared one test file, figures too low"
)
IMPORTED_MARK = "i"
IMPORTED_LEGEND = (
    f"{IMPORTED_MARK} imported from a file (history import): no series, no environment"
)


def _stdin_is_terminal() -> bool:
    return sys.stdin.isatty()


def when(epoch: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(epoch))


def when_short(epoch: float, now: float | None = None) -> str:
    """As ls does: month, day and time this year, the date alone before."""
    stamp = time.localtime(epoch)
    this_year = time.localtime(time.time() if now is None else now).tm_year
    return time.strftime("%m-%d %H:%M" if stamp.tm_year == this_year else "%Y-%m-%d", stamp)


def _bandwidth_cell(result: RunResult, direction: str) -> str:
    from ....core.units import fmt_mib
    from ...history.run_text import jobs_differ

    if jobs_differ(result):
        # No average of sequential and random I/O: say how many jobs to look at instead.
        count = sum(direction in j.directions for j in result.job_summaries)
        return f"{count} job{'s' if count != 1 else ''}" if count else "-"
    d = result.summary.get(direction)
    return fmt_mib(d.bw_bytes) if d is not None else "-"


# What gives way first when the list is wider than the terminal: the start of the
# target path (its end names the disk or branch, and a default run name already holds
# the target's label), then the tags (shown by history show), then the name's end.
LIST_FIT: tuple[FitStep, ...] = (
    ("target", 16),
    ("tags", None),
    ("host", 8),
    ("target", 12),
    ("name", 16),
    ("target", 10),
    ("name", 10),
)


def list_lines(runs: Sequence[RunResult], *, with_status: bool, limit: int | None) -> list[str]:
    """The history list as a table within ``limit`` columns (LIST_FIT says what is cut
    first); ``history show ID`` and ``--json`` keep the full text."""
    from ...history.text_table import Column, render

    columns = [Column("id", [str(r.id) for r in runs])]
    if any(r.clones_shared_file or r.imported for r in runs):
        marks = [
            (OLD_LAYOUT_MARK if r.clones_shared_file else "")
            + (IMPORTED_MARK if r.imported else "")
            for r in runs
        ]
        columns.append(Column("", marks))
    columns.append(Column("started", [when_short(r.started_at) for r in runs]))
    if with_status:
        columns.append(Column("status", [RunStatus(r.status).value for r in runs]))
    if len(host_names(r.host for r in runs)) > 1:
        columns.append(Column("host", [r.host.name or "-" for r in runs], cut="end"))
    columns += [
        Column("name", [r.name for r in runs], cut="end"),
        Column("target", [r.target.path for r in runs], cut="start"),
        Column("read MiB/s", [_bandwidth_cell(r, "read") for r in runs], right=True),
        Column("write MiB/s", [_bandwidth_cell(r, "write") for r in runs], right=True),
    ]
    if any(r.tags for r in runs):
        columns.append(Column("tags", [" ".join(r.tags) for r in runs], cut="end"))
    return render(columns, limit, LIST_FIT)


@click.command("list")
@click.option("--target", metavar="PATH", help="Only runs on this target path.")
@click.option("--preset", metavar="NAME", help="Only runs of this preset.")
@click.option("--tag", metavar="TAG", help="Only runs with this tag.")
@once(
    "--host",
    metavar="NAME",
    help="Only runs made on this host: its name (uname -n) or its id. A filter: the "
    "history itself is always this machine's.",
)
@click.option(
    "--status",
    type=click.Choice(["ok", "failed", "cancelled", "all"]),
    default="ok",
    show_default=True,
    help="Which outcomes to list.",
)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array of tierdeck.run/1.")
def list_cmd(
    target: str | None,
    preset: str | None,
    tag: str | None,
    host: str | None,
    status: str,
    as_json: bool,
) -> None:
    """List stored runs, newest first.

    Bandwidth is in MiB/s (as fio reports it), read before write. A run whose jobs
    differ in rw or bs shows "N jobs" instead of a figure: adding sequential and random
    I/O together means nothing; `history show ID` has each job's result.

    A run marked "*" was stored before tierdeck 0.2, when a job's numjobs clones
    shared one test file: its figures are lower than plain fio's (a legend on stderr
    says so). A run marked "i" was imported from a file (`history import`).

    When the listed runs come from more than one host (benchmarks run over SSH), a
    host column says where each ran; --host NAME keeps one host's runs (its name as
    `uname -n` says, or its id as --json's "host" says).

    On a terminal the table fits its width: long names are cut at the end and targets
    at the start with "…", tags left out when nothing else helps. In a pipe nothing is
    cut; `history show ID` and --json always have the full text.
    """
    store = open_store()
    statuses = tuple(RunStatus) if status == "all" else RunStatus(status)
    path = os.path.realpath(target) if target else None
    try:
        if as_json:
            text = json_array(
                store.list_json(target=path, preset=preset, status=statuses, tag=tag, host=host)
            )
        else:  # the table needs the summaries only; no one needs fio's document
            runs = store.list(
                target=path, preset=preset, status=statuses, tag=tag, host=host, series=False
            )
    except TierdeckError as exc:
        fail(str(exc), EXIT_FAILED)
    if as_json:
        click.echo(text)
        return
    if not runs:
        click.echo(f"no {'' if status == 'all' else status + ' '}runs stored", err=True)
        return
    click.echo("\n".join(list_lines(runs, with_status=status == "all", limit=output_width())))
    legends = [OLD_LAYOUT_LEGEND] if any(r.clones_shared_file for r in runs) else []
    legends += [IMPORTED_LEGEND] if any(r.imported for r in runs) else []
    if legends:
        sys.stdout.flush()  # the legend belongs under the table on a terminal
        click.echo("\n".join(legends), err=True)


@click.command("show")
@click.argument("run_id", type=int, metavar="ID")
@click.option("--json", "as_json", is_flag=True, help="Print the tierdeck.run/1 object.")
@click.option("--fio", "with_fio", is_flag=True, help="With --json: add fio's full JSON.")
@click.option("--series", is_flag=True, help="Also print the per-second series.")
def show_cmd(run_id: int, as_json: bool, with_fio: bool, series: bool) -> None:
    """Show one run: target, environment, each job's results, disks and warnings.

    Bandwidth is in MiB/s (as fio reports it), read before write. A run stored before
    tierdeck 0.2 whose numjobs clones shared one test file says so: its figures are
    lower than plain fio's.
    """
    from ....core.units import fmt_mib
    from ...history.run_text import iops, latency, result_lines
    from ...history.text_table import table

    result = stored_run(open_store(), run_id)
    if as_json:
        click.echo(json.dumps(result_to_json(result, include_fio=with_fio), indent=2))
        return
    t = result.target
    lines = [
        f"target:   {t.label} ({t.kind}) {t.path}",
        f"disks:    {' '.join(t.disks) or '-'}",
        f"preset:   {result.preset or '-'}",
        f"started:  {when(result.started_at)}"
        + (f", {result.finished_at - result.started_at:.0f} s" if result.finished_at else ""),
    ]
    if result.tags:
        lines.append(f"tags:     {' '.join(result.tags)}")
    if result.host.known:
        lines.append(f"host:     {result.host.label}")
    if result.imported is not None:
        lines.append(f"imported: {result.imported.file_name} ({result.imported.format})")
    env = result.env
    mounted = f" ({','.join(env.mount_options)})" if env.mount_options else ""
    env_bits = [
        f"kernel {env.kernel}" if env.kernel else "",
        env.fio_version or "",
        f"{env.fs_type}{mounted}" if env.fs_type else "",
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
        header = ["t", "read MiB/s", "write MiB/s", "read IOPS", "write IOPS", "read p99",
                  "write p99"]  # fmt: skip
        rows = [
            [
                f"{s.t:.1f}",
                fmt_mib(s.read.bw_bytes_per_s),
                fmt_mib(s.write.bw_bytes_per_s),
                iops(s.read.iops),
                iops(s.write.iops),
                latency(s.read.lat_p99_ns),
                latency(s.write.lat_p99_ns),
            ]  # fmt: skip
            for s in result.series
        ]
        lines += ["", "per second (fio, all jobs):", *table(header, rows, left=0)]
    click.echo("\n".join(lines))


@click.command("rename")
@click.argument("run_id", type=int, metavar="ID")
@click.argument("name")
def rename_cmd(run_id: int, name: str) -> None:
    """Give a run a new name."""
    try:
        open_store().rename(run_id, name)
    except TierdeckError as exc:
        fail(str(exc), EXIT_FAILED)


@click.command("tag")
@click.argument("run_id", type=int, metavar="ID")
@click.argument("tags", nargs=-1, metavar="TAG...")
@click.option("--remove", is_flag=True, help="Remove these tags instead of adding them.")
@click.option("--clear", is_flag=True, help="Remove every tag first.")
def tag_cmd(run_id: int, tags: Sequence[str], remove: bool, clear: bool) -> None:
    """Add tags to a run (or --remove them); prints the run's tags afterwards."""
    store = open_store()
    current = [] if clear else list(stored_run(store, run_id).tags)
    if remove:
        new = [t for t in current if t not in tags]
    else:
        new = current + [t for t in tags if t not in current]
    try:
        store.set_tags(run_id, new)
    except TierdeckError as exc:
        fail(str(exc), EXIT_FAILED)
    click.echo(" ".join(stored_run(store, run_id).tags))


@click.command("delete")
@click.argument("run_id", type=int, metavar="ID")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
def delete_cmd(run_id: int, yes: bool) -> None:
    """Delete a run and its series (asks first on a terminal)."""
    store = open_store()
    result = stored_run(store, run_id)
    if not yes and _stdin_is_terminal():
        click.confirm(
            f"Delete run #{run_id} ({result.name}, {when(result.started_at)})?", abort=True
        )
    try:
        store.delete(run_id)
    except TierdeckError as exc:
        fail(str(exc), EXIT_FAILED)
    click.echo(f"deleted run #{run_id}", err=True)
