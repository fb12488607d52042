"""A ``--clients`` run in the TUI at 80x24: hosts picked from the fleet on the setup
screen (keyboard only), the run screen's line per host and total, the result, cancel
and a refusal. The run is a recording (tests/snapshots/apps/clients.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, SelectionList, Static
from tierdeck.app.clients.live import ALL_CLIENTS
from tierdeck.app.clients.plan import ClientSpot
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.backends.host import RecordedHost
from tierdeck.screens.bench.clients_pick import ClientsPickScreen, picked_spots
from tierdeck.screens.bench.clients_run import ClientsRunScreen
from tierdeck.screens.modals.confirm import ConfirmScreen

from tests.pilot.bench.test_bench_setup import open_setup
from tests.pilot.conftest import CountingCollector
from tests.pilot.waiting import screen_text, shown_text
from tests.snapshots.apps.clients import ClientsRunApp, RecordedClients, recorded_ticks
from tests.waiting import wait_until

SIZE = (80, 24)


def run_screen(pilot: Pilot[None]) -> ClientsRunScreen:
    screen = next(s for s in pilot.app.screen_stack if isinstance(s, ClientsRunScreen))
    return screen


async def test_one_line_per_host_and_the_total_then_each_hosts_result() -> None:
    runner = RecordedClients(ticks=4)
    app = ClientsRunApp(runner)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: runner.paused, "the recorded seconds")
        screen = run_screen(pilot)
        await wait_until(pilot, lambda: screen.ticks == 4, "four seconds drawn")
        bw = screen.charts[0]
        ticks = recorded_ticks()
        for name in ("tdc1", "tdc2", ALL_CLIENTS):
            values = bw.values(name)
            expected = [t.hosts.get(name) or t.total for t in ticks[:4]]
            assert values == [e.bw_bytes_per_s for e in expected if e is not None]
        # one machine under two names: the total is its disk once, not twice
        assert bw.values(ALL_CLIENTS) == bw.values("tdc1")
        text = screen_text(app)
        assert "2 hosts at once: tdc1, tdc2" in text and "fio's figures at the end" in text
        assert screen.check_action("back", ()) is False
        runner.release.set()
        await wait_until(pilot, lambda: not screen.running, "the run to end")
        await pilot.pause()
        text = screen_text(app)
        assert "all clients  write" in text
        assert "saved as clients:4, runs #11, #12, all clients #13" in text
        assert screen.check_action("history", ()) is True


async def test_a_host_on_a_share_draws_its_bandwidth_without_iops() -> None:
    """A second where tdc2's line is its interface's (no I/O count, no time per I/O):
    its bandwidth is drawn, its IOPS and latency points left out, the screen goes on."""
    from tierdeck.app.clients.live import Activity, LiveTick
    from tierdeck.screens.bench.clients_run import ClientsTicked

    runner = RecordedClients(ticks=1)
    app = ClientsRunApp(runner)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: runner.paused, "the recorded second")
        screen = run_screen(pilot)
        await wait_until(pilot, lambda: screen.ticks == 1, "one second drawn")
        disk, net = Activity(2 * 1048576, 10.0, 1e6), Activity(3 * 1048576, None, None)
        total = Activity(5 * 1048576, 10.0, 1e6)
        seen = LiveTick(2.0, {"tdc1": disk, "tdc2": net}, total, {"tdc2": "net eth0"})
        screen.post_message(ClientsTicked(seen))
        await wait_until(pilot, lambda: screen.ticks == 2, "the share's second drawn")
        bw, iops, lat = screen.charts
        assert bw.values("tdc2")[-1] == 3 * 1048576
        assert iops.values("tdc2")[-1] is None and lat.values("tdc2")[-1] is None  # a gap
        assert iops.values(ALL_CLIENTS)[-1] == 10.0


async def test_cancel_asks_then_stops_every_host() -> None:
    runner = RecordedClients(ticks=2)
    app = ClientsRunApp(runner)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: runner.paused, "the recorded seconds")
        screen = run_screen(pilot)
        await pilot.press("c")
        await wait_until(pilot, lambda: app.screen is not screen, "the question")
        assert "Stop every host's fio?" in screen_text(app)
        await pilot.press("y")
        await wait_until(pilot, lambda: not screen.running, "the run to stop")
        assert screen.outcome is not None and screen.outcome.stored is None
        assert screen.outcome.result.status.value == "cancelled"


async def test_a_refusal_is_shown_and_nothing_runs() -> None:
    runner = RecordedClients(refuse="tdc2:/srv/bench does not exist on tdc2")
    app = ClientsRunApp(runner)
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(pilot)
        await wait_until(pilot, lambda: not screen.running, "the refusal")
        await pilot.pause()
        assert "refused: tdc2:/srv/bench does not exist on tdc2" in screen_text(app)
        assert screen.ticks == 0 and screen.check_action("back", ()) is True


def test_picked_hosts_take_one_folder_or_one_each() -> None:
    assert picked_spots(["a", "b"], " /srv/x ") == [
        ClientSpot("a", "/srv/x"),
        ClientSpot("b", "/srv/x"),
    ]
    assert picked_spots(["a", "b"], "a:/x b:/y") == [ClientSpot("a", "/x"), ClientSpot("b", "/y")]
    for names, typed, said in (([], "/x", "tick at least one"), (["a"], "", "full path"),
                               (["a", "b"], "a:/x", "no path for b")):  # fmt: skip
        with pytest.raises(ValueError, match=said):
            picked_spots(names, typed)


async def test_hosts_are_picked_from_the_fleet_with_the_keyboard(
    demo_host: RecordedHost,
    demo_collector: CountingCollector,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "hosts.toml").write_text(
        '[[host]]\nname = "nas1"\nssh = "admin@nas1"\n\n[[host]]\nname = "laptop"\nssh = "laptop"\n'
    )
    monkeypatch.setenv("TIERDECK_CONFIG_DIR", str(tmp_path))
    opened: list[tuple[list[ClientSpot], str | None]] = []
    app = TierdeckApp(demo_host, demo=True, collect=demo_collector, hotplug=False)
    monkeypatch.setattr(
        app, "open_clients_run", lambda spots, jobs, preset: opened.append((spots, preset))
    )
    async with app.run_test(size=SIZE) as pilot:
        setup = await open_setup(pilot, app)
        await pilot.press("ctrl+l")
        await wait_until(pilot, lambda: isinstance(app.screen, ClientsPickScreen), "the picker")
        picker = app.screen
        assert "nas1  (admin@nas1)" in screen_text(app)
        picker.query_one(SelectionList).focus()
        await pilot.press("space", "down", "space", "tab")
        assert picker.query_one(Input).has_focus
        await pilot.press("enter")  # no folder yet: said, not started
        await pilot.pause()
        assert "give the folder" in screen_text(app) and not opened
        await pilot.press(*"/srv/bench", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        asked = shown_text(app.screen.query_one(".modal-question", Static))
        assert "test files are written in /srv/bench on nas1, laptop" in asked
        await pilot.press("y")
        await wait_until(pilot, lambda: app.screen is setup, "back on the setup")
        assert opened == [
            (
                [ClientSpot("nas1", "/srv/bench"), ClientSpot("laptop", "/srv/bench")],
                setup.preset_name,
            )
        ]
