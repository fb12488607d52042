"""The setup form at 80x24 on the demo NAS: check boxes that read without colour, and
a bad field reported once. Nothing is started (the demo is a recording)."""

from __future__ import annotations

from textual.pilot import Pilot
from textual.widgets import TextArea
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.backends.host import RecordedHost
from tierdeck.screens.bench.setup import BenchSetupScreen
from tierdeck.widgets.state_checkbox import OFF, ON, StateCheckbox

from tests.pilot.conftest import CountingCollector
from tests.pilot.waiting import screen_text, wait_for_inventory
from tests.waiting import wait_until

SIZE = (80, 24)


async def open_setup(pilot: Pilot[None], app: TierdeckApp) -> BenchSetupScreen:
    await wait_for_inventory(pilot, app)
    assert app.inventory is not None
    setup = BenchSetupScreen(app.host, app.inventory, initial_path="/mnt/cached")
    app.push_screen(setup)
    await wait_until(pilot, lambda: app.screen is setup, "the setup screen")
    return setup


def box_line(app: TierdeckApp) -> str:
    return next(line for line in screen_text(app).splitlines() if "direct=" in line)


async def test_direct_box_reads_on_and_off_without_colour(
    demo_host: RecordedHost, demo_collector: CountingCollector
) -> None:
    app = TierdeckApp(demo_host, demo=True, collect=demo_collector, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        setup = await open_setup(pilot, app)
        direct = setup.query_one("#direct", StateCheckbox)
        assert direct.value  # the first preset is direct=1
        assert f"{ON} direct=1" in box_line(app)
        direct.focus()
        await pilot.press("space")
        await wait_until(pilot, lambda: not direct.value, "direct unticked")
        line = box_line(app)
        assert f"{OFF} direct=0" in line and ON not in line.split("direct=0")[0][-6:]
        # the job text follows the box (fio's default, direct=0, is not written out)
        job = setup.query_one("#jobfile", TextArea).text.split("[fiotest]")[1]
        assert "direct=1" not in job
        drop = setup.query_one("#drop", StateCheckbox)
        assert f"{OFF} drop caches: no" in box_line(app) and not drop.value


async def test_a_bad_size_is_reported_once(
    demo_host: RecordedHost, demo_collector: CountingCollector
) -> None:
    app = TierdeckApp(demo_host, demo=True, collect=demo_collector, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        setup = await open_setup(pilot, app)
        setup.query_one("#size").focus()
        await pilot.press(*"12x")
        await wait_until(pilot, lambda: setup.job_error is not None, "the size error")
        assert setup.query_one("#job-error").display
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert not setup.planning  # nothing was checked with a bad size
        assert not setup.query_one("#setup-message").display
        text = " ".join(screen_text(app).split())
        assert text.count("is not a size like 64M or 4G") == 1, text
