"""Disk health on the dashboard: read after the first paint, in a worker thread, with
-n standby on every device call; shown in the Health column, the disk detail and the
Problems tab; read again with a refresh."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from textual.widgets import TabbedContent
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.backends.host import RecordedHost
from tierdeck.backends.host.seam import DEFAULT_TIMEOUT, CommandResult
from tierdeck.widgets.dashboard.disk_table import DiskTable
from tierdeck.widgets.detail_pane import DetailPane

from ..waiting import screen_text, shown_text, wait_for_health, wait_for_inventory, wait_until

SIZE = (80, 24)


class GatedSmartHost(RecordedHost):
    """The demo NAS whose smartctl calls wait for ``gate`` and are written down with
    the thread that made them."""

    def __init__(self, folder: object) -> None:
        super().__init__(folder)  # type: ignore[arg-type]
        self.gate = threading.Event()
        self.smart_calls: list[tuple[tuple[str, ...], str]] = []

    def run(self, argv: Sequence[str], timeout: float = DEFAULT_TIMEOUT) -> CommandResult:
        if argv and argv[0] == "smartctl":
            self.smart_calls.append((tuple(argv), threading.current_thread().name))
            assert self.gate.wait(timeout=30), "the test never opened the gate"
        return super().run(argv, timeout)


def gated_demo(*, held: bool) -> tuple[GatedSmartHost, TierdeckApp]:
    """The demo dashboard on a host whose smartctl calls wait for ``host.gate`` while
    ``held`` (else they answer at once)."""
    from tierdeck.app.machine.demo import demo_host_path

    host = GatedSmartHost(demo_host_path())
    if not held:
        host.gate.set()
    return host, TierdeckApp(host, demo=True, hotplug=False)


def health_cell(app: TierdeckApp, disk: str) -> str:
    table = app.screen.query_one(DiskTable)
    return str(table.get_cell(disk, "health"))


async def test_health_comes_after_the_inventory_and_off_the_ui_thread() -> None:
    host, app = gated_demo(held=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_inventory(pilot, app)
        await wait_until(pilot, lambda: host.smart_calls, "the first smartctl call")
        # smartctl is held: the dashboard is up, answers keys, and says health is coming
        assert health_cell(app, "nvme0n1") == ""
        assert "reading SMART" in shown_text(app.screen.query_one("#disk-detail .detail-body"))
        await pilot.press("4")
        assert app.screen.query_one("#sections", TabbedContent).active == "problems"
        assert "reading SMART" in screen_text(app)
        assert all(thread != threading.main_thread().name for _, thread in host.smart_calls)
        host.gate.set()
        await wait_for_health(pilot, app)
        assert "CRITICAL disk nvme0n1" in screen_text(app)
        assert "media errors" in screen_text(app)
        assert "4 Problems (1)" in screen_text(app)
        assert "1 problem" in str(app.sub_title)


async def test_no_device_call_could_wake_a_sleeping_disk() -> None:
    host, app = gated_demo(held=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_health(pilot, app)
        device_calls = [argv for argv, _ in host.smart_calls if "--scan-open" not in argv]
        assert {argv[-1] for argv in device_calls} >= {"/dev/sdc", "/dev/sdd", "/dev/sde"}
        for argv in device_calls:
            assert argv[argv.index("-n") + 1] == "standby", argv
        assert health_cell(app, "sdd") == "asleep"
        assert health_cell(app, "sdc") == "ok 32°"
        assert health_cell(app, "nvme0n1") == "crit 35°"
        assert health_cell(app, "sda") == "?"


async def test_the_detail_pane_follows_the_highlighted_disk() -> None:
    host, app = gated_demo(held=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_health(pilot, app)
        table = app.screen.query_one(DiskTable)
        body = app.screen.query_one("#disk-detail", DetailPane).query_one(".detail-body")
        assert "critical: 7 media errors" in shown_text(body)
        assert "Spare" in shown_text(body) and "99 % (threshold 10 %)" in shown_text(body)
        order = [str(key.value) for key in table.rows]
        await pilot.press(*["down"] * order.index("sdd"))
        await wait_until(pilot, lambda: "in standby" in shown_text(body), "sdd's detail")
        assert "Temperature" not in shown_text(body)  # a sleeping disk was not read


async def test_a_refresh_reads_health_again() -> None:
    host, app = gated_demo(held=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_health(pilot, app)
        scans = sum("--scan-open" in argv for argv, _ in host.smart_calls)
        await pilot.press("r")
        await wait_for_inventory(pilot, app, after=1)
        await wait_for_health(pilot, app, after=1)
        assert sum("--scan-open" in argv for argv, _ in host.smart_calls) == scans + 1
