"""The kept health readings of ``tierdeck --demo``: a daily timer's year on the demo NAS,
so a disk's chart has a trend to draw.

``demo_runs/health_readings.json`` (written by scripts/make_demo_host.py) holds each
demo disk's figures as the demo host's smartctl answers give them (the real documents
of tests/fixtures/smart/), read on the seed's night. The days before are worked back
from those figures, never drawn at random: power-on hours one day less a day, bytes
written and wear in step with them at the drive's own lifetime rate (wear in whole
percents, as drives count it), sector counts as they are, and the temperature through
the seasons, a few degrees under the reading in winter and over it in summer, within
the drive's own lifetime minimum and maximum where it reports them. A disk counts back
no further than its power-on hours, nor more than a year.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from ...core.cache_wear import DAY_S, HealthReading

READINGS_FILE = Path(__file__).resolve().parent / "demo_runs" / "health_readings.json"
MOST_DAYS = 365
SWING_C = 4.0  # half a home NAS room's yearly temperature swing, on the drive
WARMEST_DAY = 200  # of the year: mid-July, in the seed's northern hemisphere


def _season(t: float) -> float:
    """-1 in mid-January .. 1 in mid-July."""
    day = (t / DAY_S) % 365.25
    return math.cos(2 * math.pi * (day - (WARMEST_DAY - 1)) / 365.25)


def _temperature(disk: dict[str, Any], t: float, end: float) -> int | None:
    current: int | None = disk["temperature_c"]
    if current is None:
        return None
    value: float = current + SWING_C * (_season(t) - _season(end))
    low, high = disk.get("temperature_range") or (None, None)
    if low is not None and high is not None:
        value = min(max(value, low), high)
    return round(value)


def _scaled(value: int | None, share: float, whole: bool = False) -> int | None:
    if value is None:
        return None
    return math.floor(value * share) if whole else round(value * share)


def disk_readings(disk: dict[str, Any], end: float) -> list[HealthReading]:
    """One disk's readings, a day apart, oldest first, the last at ``end``."""
    hours = disk["power_on_hours"]
    days = MOST_DAYS if not hours else min(MOST_DAYS, hours // 24 - 1)
    out = []
    for back in range(days, -1, -1):
        t = end - back * DAY_S
        on = None if hours is None else hours - 24 * back
        share = 1.0 if not hours or on is None else on / hours
        out.append(
            HealthReading(
                disk["disk_id"], t, disk["name"], disk["state"], _temperature(disk, t, end),
                on, _scaled(disk["bytes_written"], share),
                _scaled(disk["percentage_used"], share, whole=True),
                disk["pending_sectors"], disk["reallocated_sectors"],
            )
        )  # fmt: skip
    return out


def demo_readings(path: Path = READINGS_FILE) -> list[HealthReading]:
    """Every demo disk's readings (none when the file is missing)."""
    if not path.exists():
        return []
    data = json.loads(path.read_text(encoding="utf-8"))
    return [r for disk in data["disks"] for r in disk_readings(disk, float(data["end"]))]
