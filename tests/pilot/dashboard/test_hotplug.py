"""Hotplug: udev events debounce into one refresh; the watcher is a no-op off live hosts."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest
from tierdeck.app.machine import hotplug
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.app.tui.messages import HotplugEvent
from tierdeck.backends.host import HostCapabilities, LiveHost, RecordedHost

from ..conftest import CountingCollector
from ..waiting import wait_for_inventory


def test_udev_database_is_current_only_populated_and_with_udevd_listening(
    tmp_path: Path,
) -> None:
    import socket

    from tierdeck.backends.host import udev_database_current

    data, control = tmp_path / "data", tmp_path / "control"
    assert not udev_database_current(str(data), str(control))
    data.mkdir()
    assert not udev_database_current(str(data), str(control))  # empty database
    (data / "b8:0").write_text("E:ID_MODEL=x\n")
    assert not udev_database_current(str(data), str(control))  # stale: udevd is gone
    server = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    server.bind(str(control))
    server.listen(1)
    try:
        assert udev_database_current(str(data), str(control))
    finally:
        server.close()


def test_no_watcher_on_recorded_host(demo_host: RecordedHost) -> None:
    assert not demo_host.capabilities.watch_devices
    assert hotplug.start_hotplug(demo_host, lambda action, dev: None) is None


def test_no_watcher_without_udevd(monkeypatch: pytest.MonkeyPatch) -> None:
    no_udev = HostCapabilities(live=True, run_benchmarks=True, watch_devices=False)
    monkeypatch.setattr(LiveHost, "capabilities", property(lambda self: no_udev))
    assert hotplug.start_hotplug(LiveHost(), lambda action, dev: None) is None


def test_watcher_passes_add_change_remove_but_not_bind() -> None:
    seen: list[tuple[str, str]] = []
    watcher = hotplug.HotplugWatcher(lambda a, d: seen.append((a, d)))
    for action in ("add", "change", "remove", "bind"):
        watcher._handle(SimpleNamespace(action=action, sys_name="sdf"))
    assert seen == [("add", "sdf"), ("change", "sdf"), ("remove", "sdf")]


@pytest.mark.skipif(os.geteuid() != 0, reason="netlink kernel uevents need root")
def test_watcher_thread_starts_and_stops_cleanly() -> None:
    # The "kernel" netlink source works without udevd, so the thread really polls.
    watcher = hotplug.HotplugWatcher(lambda a, d: None, source="kernel")
    assert watcher.start()
    assert watcher.running
    thread = watcher._observer
    watcher.stop()
    assert not watcher.running
    assert not thread.is_alive()
    assert not any(t.name == "tierdeck-hotplug" for t in threading.enumerate())


async def test_burst_of_events_gives_one_refresh(
    demo_host: RecordedHost, demo_collector: CountingCollector
) -> None:
    app = TierdeckApp(demo_host, demo=True, collect=demo_collector, hotplug=False)
    app.HOTPLUG_DEBOUNCE = 0.05
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_inventory(pilot, app)
        for dev in ("sdf", "sdf1", "sdf2", "sdf9"):
            app.post_message(HotplugEvent("add", dev))
        await wait_for_inventory(pilot, app, after=1)
        await app.workers.wait_for_complete()
        assert demo_collector.calls == 2


class FakeWatcher:
    def __init__(self) -> None:
        self.stopped = False

    def stop(self) -> None:
        self.stopped = True


async def test_watcher_stops_on_exit(
    monkeypatch: pytest.MonkeyPatch, demo_host: RecordedHost, demo_collector: CountingCollector
) -> None:
    fake = FakeWatcher()
    callbacks = []

    def fake_start(host: object, on_event: object) -> FakeWatcher:
        callbacks.append(on_event)
        return fake

    monkeypatch.setattr("tierdeck.app.tui.app.start_hotplug", fake_start)
    app = TierdeckApp(demo_host, demo=True, collect=demo_collector)
    app.HOTPLUG_DEBOUNCE = 0.01
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_inventory(pilot, app)
        # The watcher thread's callback posts messages thread-safely.
        thread = threading.Thread(target=callbacks[0], args=("remove", "sdc"))
        thread.start()
        thread.join()
        await wait_for_inventory(pilot, app, after=1)
    assert fake.stopped
