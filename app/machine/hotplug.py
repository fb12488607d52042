"""Watch udev for block devices coming and going, so the dashboard refreshes itself.

Only on a host that can watch devices (``capabilities.watch_devices``: this machine,
with udevd running and its database filled): without udevd (containers) the netlink
"udev" source never speaks, and a recorded host has no events at all. pyudev's MonitorObserver runs its own thread and wakes on a pipe to stop, so
``stop()`` returns promptly even while poll() is waiting for events.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from ...backends.host import Host

log = logging.getLogger(__name__)

# "change" too: attaching or detaching a loop device, a partition table rescan and a
# media change all arrive as "change" (the device node itself already existed).
ACTIONS = frozenset({"add", "remove", "change"})

EventCallback = Callable[[str, str], None]  # (action, kernel name); called on the thread


class HotplugWatcher:
    """A pyudev monitor on subsystem ``block`` in a background thread."""

    def __init__(self, on_event: EventCallback, *, source: str = "udev") -> None:
        self._on_event = on_event
        self._source = source  # "kernel" lets tests see raw uevents without udevd
        self._observer: Any = None

    @property
    def running(self) -> bool:
        return self._observer is not None and self._observer.is_alive()

    def start(self) -> bool:
        """Start watching; False (and a log line) when pyudev or netlink is unavailable."""
        try:
            import pyudev

            context = pyudev.Context()
            monitor = pyudev.Monitor.from_netlink(context, source=self._source)
            monitor.filter_by("block")
            observer = pyudev.MonitorObserver(
                monitor, callback=self._handle, name="tierdeck-hotplug"
            )
            observer.start()
        except Exception as exc:  # noqa: BLE001 - no libudev, no netlink: just no hotplug
            log.info("hotplug disabled: %s", exc)
            return False
        self._observer = observer
        return True

    def _handle(self, device: Any) -> None:
        action = str(device.action or "")
        if action in ACTIONS:
            self._on_event(action, str(device.sys_name))

    def stop(self) -> None:
        observer, self._observer = self._observer, None
        if observer is not None:
            observer.stop()  # writes to its wake-up pipe, then joins the thread


def start_hotplug(host: Host, on_event: EventCallback) -> HotplugWatcher | None:
    """A running watcher for a live host with udevd, else None (recorded hosts: no-op)."""
    if not host.capabilities.watch_devices:
        return None
    watcher = HotplugWatcher(on_event)
    return watcher if watcher.start() else None
