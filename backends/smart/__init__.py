"""Disk health from smartmontools' ``smartctl --json`` (>= 7): the scan, each device's
document read into a :class:`~tierdeck.core.disk_health.SmartReading`, and the
collection over a host, in parallel and without waking a sleeping disk."""
