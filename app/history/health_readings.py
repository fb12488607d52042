"""Health readings kept in the history file (schema v10's ``health_readings``): one row
per disk per ``tierdeck health`` collection, so trends show and the cache wear forecast
(core/cache_wear.py) has rates.

A disk is filed under its serial (or, without one, its wwn): kernel names move between
boots. A disk with neither is not kept: its readings could not be told from another's.
The store keeps and reads them with this module's rows; `tierdeck health` does with
readings_file.py. Keeping thins the older readings (core/reading_thinning.py): an hourly
timer would add ~8,760 rows a disk a year.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping

from ...core.cache_wear import DAY_S, HealthReading
from ...core.disk_health import DiskHealth, HealthReport
from ...core.reading_thinning import crossed, readings_to_drop

_COLUMNS = ("disk_id", "t", "name", "state", "temperature_c", "power_on_hours",
            "bytes_written", "percentage_used", "pending_sectors", "reallocated_sectors")  # fmt: skip
_SELECT = f"SELECT {', '.join(_COLUMNS)} FROM health_readings"


def disk_id(serial: str | None, wwn: str | None = None) -> str | None:
    """The key a disk's readings are kept under; None when it has no identity."""
    if serial and serial.strip():
        return f"serial:{serial.strip()}"
    if wwn and wwn.strip():
        return f"wwn:{wwn.strip().lower()}"
    return None


def reading_of(disk: DiskHealth, t: float, wwn: str | None = None) -> HealthReading | None:
    key = disk_id(disk.serial, wwn)
    if key is None:
        return None
    s = disk.smart
    return HealthReading(key, t, disk.name, disk.state.value, s.temperature_c, s.power_on_hours,
                         s.bytes_written, s.percentage_used, s.pending_sectors,
                         s.reallocated_sectors)  # fmt: skip


def readings_of(report: HealthReport, wwns: Mapping[str, str] | None = None) -> list[HealthReading]:
    """The report's disks as readings (``wwns``: kernel name -> wwn, from the inventory)."""
    wwns = wwns or {}
    found = (reading_of(d, report.collected_at, wwns.get(d.name)) for d in report.disks)
    return [r for r in found if r is not None]


def insert(conn: sqlite3.Connection, readings: list[HealthReading], host_id: str) -> int:
    """Store ``readings``; a disk read twice at the same instant keeps the first. The
    first keeping of a (UTC) day also thins each of those disks' older readings."""
    due = _thinning_due(conn, readings)
    rows = [(r.disk_id, r.t, host_id, r.name, r.state, r.temperature_c, r.power_on_hours,
             r.bytes_written, r.percentage_used, r.pending_sectors, r.reallocated_sectors)
            for r in readings]  # fmt: skip
    cur = conn.executemany(
        f"INSERT OR IGNORE INTO health_readings (disk_id, t, host_id, {', '.join(_COLUMNS[2:])})"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    stored = cur.rowcount
    if due:
        thin(conn, due, max(r.t for r in readings))
    return stored


def _thinning_due(conn: sqlite3.Connection, readings: list[HealthReading]) -> dict[str, float]:
    """The disks of ``readings`` whose newest kept reading is of an earlier day, with
    that reading's time: thinning runs once a day, on what crossed a line since."""
    keys = sorted({r.disk_id for r in readings})
    if not keys:
        return {}
    newest = {r.disk_id: r.t for r in readings}
    marks = ", ".join("?" * len(keys))
    rows = conn.execute(
        f"SELECT disk_id, MAX(t) FROM health_readings WHERE disk_id IN ({marks}) GROUP BY disk_id",
        keys,
    ).fetchall()
    return {key: t for key, t in rows if t is not None and t // DAY_S < newest[key] // DAY_S}


def thin(conn: sqlite3.Connection, due: dict[str, float], now: float) -> int:
    """Let go of the readings core/reading_thinning picks among those of each disk in
    ``due`` that crossed an age line since its previous keeping (the time given); how
    many rows went."""
    gone = 0
    for key, before in due.items():
        for start, end in crossed(before, now):
            # the reading before the span: the counters it had, to tell a move from
            rows = conn.execute(
                f"SELECT * FROM ({_SELECT} WHERE disk_id = ? AND t < ? ORDER BY t DESC LIMIT 1)"
                f" UNION ALL {_SELECT} WHERE disk_id = ? AND t >= ? AND t < ? ORDER BY t",
                (key, start, key, start, end),
            ).fetchall()
            span = [HealthReading(*tuple(row)) for row in rows]
            drop = readings_to_drop(span, now, keep_newest=False)
            conn.executemany(
                "DELETE FROM health_readings WHERE disk_id = ? AND t = ?",
                ((key, t) for t in drop),
            )
            gone += len(drop)
    return gone


def select(conn: sqlite3.Connection, key: str, since: float | None = None) -> list[HealthReading]:
    """The disk's readings, oldest first (``since``: from that epoch second on)."""
    rows = conn.execute(
        f"{_SELECT} WHERE disk_id = ? AND t >= ? ORDER BY t",
        (key, -1.0 if since is None else since),
    ).fetchall()
    return [HealthReading(*tuple(row)) for row in rows]
