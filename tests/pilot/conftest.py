"""Fixtures for the TUI Pilot tests: the demo NAS, a degraded NAS, counting collectors."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from tierdeck.backends.host import Host, RecordedHost
from tierdeck.core.models import Inventory

from tests.snapshots.apps.inventories import degraded_inventory


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
