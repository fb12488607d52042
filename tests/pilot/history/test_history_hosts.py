"""The history screen names each run's host only when the history holds runs of more
than one host (benchmarks run over SSH); at 80 columns the table still fits."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import DataTable, Static
from tierdeck.app.history.store import HistoryStore
from tierdeck.core.bench_models import EnvFingerprint, RunHost
from tierdeck.screens.history.history import HistoryScreen
from tierdeck.screens.history.run_detail import env_renderable

from tests.pilot.waiting import history_listed, shown_text
from tests.snapshots.apps.bench_data import HistoryApp, load_events, result_of
from tests.unit.compare.test_compare_marks import text_of


def fill(path: Path, hosts: list[RunHost]) -> None:
    store = HistoryStore(path)
    base = result_of(load_events("pool_write"))
    for i, host in enumerate(hosts):
        store.save(dataclasses.replace(base, name=f"run {i + 1}", started_at=1e9 + i, host=host))


@asynccontextmanager
async def history_of(
    tmp_path: Path, hosts: list[RunHost]
) -> AsyncIterator[tuple[HistoryScreen, Pilot[None]]]:
    """The history screen at 80x24 listing one run per host given, newest last."""
    path = tmp_path / "history.sqlite3"
    fill(path, hosts)
    app = HistoryApp(path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await history_listed(pilot, app)
        yield screen, pilot


def headers(screen: HistoryScreen) -> list[str]:
    table = screen.query_one("#history-table", DataTable)
    return [str(column.label) for column in table.ordered_columns]


async def test_runs_of_two_hosts_get_a_host_column_that_fits_80_columns(tmp_path: Path) -> None:
    hosts = [RunHost("nas1", "ssh:aa"), RunHost("truenas-backup", "ssh:bb"), RunHost()]
    async with history_of(tmp_path, hosts) as (screen, pilot):
        assert headers(screen)[3] == "host"
        table = screen.query_one("#history-table", DataTable)
        assert [str(table.get_cell_at((row, 3))) for row in range(3)] == [
            "-",
            "truenas-backup",
            "nas1",
        ]
        widths = sum(column.get_render_width(table) for column in table.ordered_columns)
        assert widths <= 80 - 1  # no sideways scrolling: the scrollbar's column aside
        await pilot.press("down")
        assert "on truenas-backup" in shown_text(screen.query_one("#history-current", Static))


async def test_runs_of_one_host_list_no_host(tmp_path: Path) -> None:
    hosts = [RunHost("nas1", "ssh:aa"), RunHost("NAS1", "local:aa"), RunHost()]
    async with history_of(tmp_path, hosts) as (screen, _):
        assert "host" not in headers(screen)
        assert " on nas1" not in shown_text(screen.query_one("#history-current", Static))


def test_a_run_s_detail_names_its_host_first_in_its_environment() -> None:
    env = EnvFingerprint(kernel="6.18.0")
    shown = text_of(env_renderable(env, RunHost("nas1", "ssh:aa")))
    assert shown.splitlines()[:2] == ["host    nas1 (ssh:aa)", "kernel  6.18.0"]
    assert "host" not in text_of(env_renderable(env, RunHost()))
