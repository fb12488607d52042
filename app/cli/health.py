"""``tierdeck health`` (every disk's SMART health and every pool's) and ``tierdeck
check`` (one verdict with the monitoring-plugins exit status, and a Prometheus file)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .common import (
    EXIT_FAILED,
    EXIT_REFUSED,
    fail,
    host_options,
    load_layout_or_exit,
    make_host,
    once,
    requested_host,
)

if TYPE_CHECKING:
    from ...backends.host import Host
    from ...core.cache_wear import CacheWear, HealthReading
    from ...core.disk_health import HealthReport
    from ...core.health_rules import Thresholds
    from ...core.models import Inventory

_THRESHOLDS = once(
    "--thresholds",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Read the thresholds from this TOML file instead of the config folder's health.toml.",
)
CHECK_UNKNOWN = 3  # monitoring plugins: the check itself could not run


def _thresholds(path: Path | None, code: int) -> Thresholds:
    from ..health.config import ThresholdsError, load_thresholds

    try:
        return load_thresholds(path)
    except ThresholdsError as exc:
        fail(str(exc), code)


def _collect(host: Host, limits: Thresholds, code: int) -> tuple[HealthReport, Inventory]:
    from ...core.errors import TierdeckError
    from ..health.collect import collect

    try:
        return collect(host, limits)
    except TierdeckError as exc:
        fail(str(exc), code)


@click.command()
@host_options
@click.option("--json", "as_json", is_flag=True, help="Print the documented JSON shape.")
@click.option("--no-save", is_flag=True,
              help="Do not keep this collection's readings in the history file.")  # fmt: skip
@_THRESHOLDS
def health(
    demo: bool, recorded: Path | None, as_json: bool, no_save: bool, thresholds: Path | None
) -> None:
    """Show every disk's SMART health and every pool's, each state with its reasons.

    Disks: smartctl (smartmontools >= 7, as root) with -n standby, so a sleeping disk
    is shown asleep and never woken. Pools: ZFS scrub age and errors, btrfs device
    errors, md mismatch_cnt. States: ok, warning, critical, asleep, unknown. The
    thresholds are health.toml's in the config folder (or --thresholds FILE). The
    --json shape is stable and documented in docs/health-json.md (schema
    "tierdeck.health/1").

    Each run keeps its readings (per disk, by serial: state, temperature, power-on
    hours, bytes written, wear, pending and reallocated sectors) in the history file,
    so trends show and each cache SSD's wear forecast ("reaches 100 % rated wear in
    about N months") has a rate; --no-save keeps nothing (--demo never keeps any).
    """
    from ..health.render import health_to_dict, render_health_text

    limits = _thresholds(thresholds, EXIT_REFUSED)
    host = make_host(demo, recorded)
    report, inv = _collect(host, limits, EXIT_FAILED)
    wears = _cache_wear(host, report, inv, save=not (no_save or demo))
    if as_json:
        # one write: json.dump would write each of its ~30,000 pieces on its own
        sys.stdout.write(json.dumps(health_to_dict(report, wears), indent=2,
                                    ensure_ascii=False) + "\n")  # fmt: skip
    else:
        click.echo(render_health_text(report, wears))


def _cache_wear(
    host: Host, report: HealthReport, inv: Inventory, *, save: bool,
    layout_cache: tuple[str, ...] | None = None,
) -> list[CacheWear]:  # fmt: skip
    """Keep the report's readings (``save``), then forecast each cache SSD's wear from
    all of them. A history that cannot be written or read is said on stderr: the
    report itself is still good, and the forecast rests on its reading alone."""
    from ...core.errors import TierdeckError
    from ..health.wear import host_cache_wear
    from ..history.health_readings import readings_of
    from ..history.paths import default_history_path
    from ..history.readings_file import benchmark_writes, keep, kept

    path = default_history_path()
    if save:
        try:
            keep(path, readings_of(report, {d.name: d.wwn for d in inv.disks if d.wwn}),
                 host.identity)  # fmt: skip
        except TierdeckError as exc:
            click.echo(f"tierdeck: readings not kept: {exc}", err=True)

    def kept_here(key: str) -> list[HealthReading]:
        try:
            return kept(path, key)
        except TierdeckError as exc:
            click.echo(f"tierdeck: kept readings unread: {exc}", err=True)
            return []

    def written(mountpoint: str, since: float, until: float) -> int | None:
        return benchmark_writes(path, host.identity, mountpoint, since, until)

    return host_cache_wear(host, report, inv, kept_here, layout_cache, written)


class _PluginCommand(click.Command):
    """Monitoring plugins exit 3 (UNKNOWN) when they cannot run, bad options included:
    click's own usage status, 2, would read as CRITICAL."""

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        try:
            return super().make_context(*args, **kwargs)
        except click.UsageError as exc:
            exc.show()
            sys.exit(CHECK_UNKNOWN)


@click.command(cls=_PluginCommand)
@host_options
@once("--layout", "layout_path", type=click.Path(dir_okay=False, path_type=Path),
      help="Check this layout's cache fill against its mover's watermarks, and the "
           "mover's last run (default: the layouts tierdeck applied on the machine).")  # fmt: skip
@once("--prometheus", "prometheus", type=click.Path(dir_okay=False, path_type=Path),
      help="Also write the figures in node_exporter's textfile format to FILE (atomically).")  # fmt: skip
@click.option("--keep-readings", is_flag=True,
              help="Keep this collection's readings in the history file, as `tierdeck health` "
                   "does (a timer running check alone keeps the trends and the wear forecast "
                   "going).")  # fmt: skip
@_THRESHOLDS
def check(
    demo: bool, recorded: Path | None, layout_path: Path | None, prometheus: Path | None,
    keep_readings: bool, thresholds: Path | None,
) -> None:  # fmt: skip
    """Check disks, pools, the cache fill and the mover: one line, exit 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.

    The monitoring-plugins convention, so cron, a systemd timer, Nagios or Icinga can
    run it as it is; a disk asleep counts as OK, a disk whose health cannot be read as
    UNKNOWN (unless something is worse). With --prometheus FILE the figures are also
    written for node_exporter's textfile collector, replaced atomically. A check that
    cannot run at all (bad options, an unreadable thresholds or layout file) exits 3.
    It reads the kept readings (the cache wear forecast) and keeps none, unless
    --keep-readings (a layout's health timer runs it so: one collection an hour).
    """
    import time

    from ..health.check import (
        applied_items,
        layout_items,
        overall,
        report_items,
        summary_line,
        wear_items,
    )
    from ..health.check import exit_code as state_exit

    limits = _thresholds(thresholds, CHECK_UNKNOWN)
    layout = None
    if layout_path is not None:
        try:
            layout = load_layout_or_exit(layout_path)
        except SystemExit:
            sys.exit(CHECK_UNKNOWN)
    try:
        host = make_host(demo, recorded)
    except click.UsageError as exc:
        exc.show()
        sys.exit(CHECK_UNKNOWN)
    except SystemExit as exc:  # the host could not be reached: said on stderr
        if exc.code:
            click.echo("TIERDECK UNKNOWN - the host could not be reached")
            sys.exit(CHECK_UNKNOWN)
        raise
    report, inv = _collect(host, limits, CHECK_UNKNOWN)
    items = report_items(report)
    history = None
    if requested_host() is None and not demo and recorded is None:
        # the mover's runs are recorded where it ran: this machine's history is only
        # this machine's
        from ..mover.history import default_mover_path

        history = default_mover_path()
    if layout is not None and layout_path is not None:
        items += layout_items(layout, layout_path, inv, history, time.time())
    else:
        items += applied_items(host, inv, history, time.time())
    cache = layout.cache if layout is not None else None
    wears = _cache_wear(host, report, inv, save=keep_readings and not demo, layout_cache=cache)
    items += wear_items(wears, limits)
    state = overall(items)
    if prometheus is not None:
        from ...backends.localfiles import write_atomically
        from ..health.prometheus import render_prometheus

        try:
            write_atomically(prometheus, render_prometheus(report, items, state, wears))
        except OSError as exc:
            click.echo(f"TIERDECK UNKNOWN - cannot write {prometheus}: {exc.strerror}")
            sys.exit(CHECK_UNKNOWN)
    click.echo(summary_line(items, state))
    sys.exit(state_exit(state))
