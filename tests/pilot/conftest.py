"""Fixtures for the TUI Pilot tests: the demo NAS, a degraded NAS, counting collectors,
and the demo's dashboard opened with its first inventory shown."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager

import pytest
from textual.pilot import Pilot
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.backends.host import Host, RecordedHost
from tierdeck.core.models import Inventory

from tests.snapshots.apps.inventories import degraded_inventory

from .waiting import wait_for_inventory

OpenDashboard = Callable[
    [tuple[int, int]], AbstractAsyncContextManager[tuple[TierdeckApp, "Pilot[None]"]]
]


class CountingCollector:
    """A collect_inventory stand-in: counts calls, can fail or block on demand."""

    def __init__(self, make: Callable[[Host], Inventory]) -> None:
        self.make = make
        self.calls = 0
        self.fail_with: Exception | None = None
        self.gate: threading.Event | None = None

    def __call__(self, host: Host) -> Inventory:
        self.calls += 1
        if self.gate is not None:
            self.gate.wait(timeout=10)
        if self.fail_with is not None:
            raise self.fail_with
        return self.make(host)


@pytest.fixture(scope="session")
def demo_host() -> RecordedHost:
    from tierdeck.app.machine.demo import load_demo_host

    return load_demo_host()


@pytest.fixture(scope="session")
def demo_inventory(demo_host: RecordedHost) -> Inventory:
    from tierdeck.app.machine.inventory import collect_inventory

    return collect_inventory(demo_host)


@pytest.fixture
def degraded() -> CountingCollector:
    return CountingCollector(lambda host: degraded_inventory())


@pytest.fixture
def demo_collector(demo_inventory: Inventory) -> CountingCollector:
    return CountingCollector(lambda host: demo_inventory)


@pytest.fixture
def opened_dashboard(demo_host: RecordedHost, demo_collector: CountingCollector) -> OpenDashboard:
    """``async with opened_dashboard(SIZE) as (app, pilot):`` the demo NAS's dashboard at
    that size, its first inventory shown: the set-up most Pilot tests start from. A
    context manager rather than an async fixture, so the app runs in the test's own task."""

    @contextlib.asynccontextmanager
    async def opened(size: tuple[int, int]) -> AsyncIterator[tuple[TierdeckApp, Pilot[None]]]:
        app = TierdeckApp(demo_host, demo=True, collect=demo_collector, hotplug=False)
        async with app.run_test(size=size) as pilot:
            await wait_for_inventory(pilot, app)
            yield app, pilot

    return opened
