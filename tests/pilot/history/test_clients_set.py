"""A stored ``clients:ID`` set from the history at 80x24: W lists it with the sweeps
and ladders, picking it lists its hosts and total with their figures (a failed host
with its reason), and from there compare sets the ok runs side by side, or enter
opens one host's run. Stored from fio 3.33's recorded client report."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from tierdeck.app.clients.render import row_line
from tierdeck.app.clients.store import load_clients, store_clients
from tierdeck.app.history.run_sets import RunSetStore
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.backends.host import RecordedHost
from tierdeck.core.bench_models import RunHost, RunStatus
from tierdeck.core.presets import find_preset
from tierdeck.screens.history.compare import CompareScreen
from tierdeck.screens.history.run_detail import RunDetailScreen
from tierdeck.screens.modals.choice import ChoiceScreen

from tests.pilot.conftest import CountingCollector
from tests.pilot.waiting import open_history, screen_text
from tests.snapshots.apps.clients import recorded_result
from tests.waiting import wait_until

SIZE = (80, 24)


def store_set(*, lose_second: bool) -> int:
    result = recorded_result()
    if lose_second:
        lost = dataclasses.replace(result.hosts[1], status=RunStatus.FAILED, summary={},
                                   error="tdc2: the connection to tdc2 was lost")  # fmt: skip
        result = dataclasses.replace(result, hosts=(result.hosts[0], lost))
    preset = find_preset("nas-seqwrite-1m-qd8x8")
    assert preset is not None
    stored = store_clients(
        RunSetStore(), result, preset.jobs, preset=preset.name, name="seq from tdc1, tdc2",
        machines={"tdc1": RunHost("tdc1", "id1"), "tdc2": RunHost("tdc2", "id2")},
        fio_version="fio-3.33",
    )  # fmt: skip
    return stored.set_id


@pytest.fixture
def history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TIERDECK_DATA_DIR", str(tmp_path / "data"))
    return tmp_path


def test_a_stored_set_reads_back_hosts_then_total(history: Path) -> None:
    set_id = store_set(lose_second=True)
    found = load_clients(RunSetStore(), set_id)
    assert [r.label for r in found.rows] == ["tdc1", "tdc2", "all clients"]
    assert [r.ok for r in found.rows] == [True, False, True]
    assert "connection to tdc2 was lost" in row_line(found.rows[1])
    assert row_line(found.rows[0]).startswith("write ") and "MiB/s" in row_line(found.rows[0])
    assert found.comparable == [found.rows[0].run_id, found.rows[2].run_id]


async def test_the_set_lists_its_hosts_and_compares_them(
    demo_host: RecordedHost, demo_collector: CountingCollector, history: Path
) -> None:
    set_id = store_set(lose_second=False)
    app = TierdeckApp(demo_host, demo=True, collect=demo_collector, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_history(pilot, app)
        await pilot.press("W")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the sets")
        assert f"clients #{set_id}" in screen_text(app)
        await pilot.press("enter")
        await wait_until(pilot, lambda: f"clients:{set_id}" in screen_text(app), "the set's hosts")
        text = screen_text(app)
        for label in ("compare the 3 ok runs", "tdc1 ", "tdc2 ", "all clients "):
            assert label in text
        await pilot.press("enter")  # compare
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen), "the compare")
        compare = app.screen
        assert isinstance(compare, CompareScreen)
        assert compare.run_ids == load_clients(RunSetStore(), set_id).comparable
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen, "back to the history")
        # w on one of the set's runs opens the set too; enter on a host opens its run
        await pilot.press("w")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the set")
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, RunDetailScreen), "tdc1's run")
