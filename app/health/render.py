"""A health report as ``tierdeck.health/1`` JSON (docs/health-json.md) and as text."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import Any

from ...core.cache_wear import CacheWear
from ...core.disk_health import DiskHealth, HealthReport, PoolHealth, SmartReading
from ...core.units import format_bytes

SCHEMA = "tierdeck.health/1"
# the keys, in its order; the rest of SmartReading follows
_SMART_KEYS = (
    "passed", "temperature_c", "power_on_hours", "reallocated_sectors", "pending_sectors",
    "offline_uncorrectable", "crc_errors", "percentage_used", "available_spare_pct",
    "media_errors", "bytes_written",
)  # fmt: skip
_EXTRA_SMART_KEYS = (
    "available_spare_threshold_pct", "critical_warning", "unsafe_shutdowns",
    "self_test_passed", "self_test", "grown_defects", "non_medium_errors",
)  # fmt: skip


def _iso(epoch: float | None) -> str | None:
    if epoch is None:
        return None
    return datetime.datetime.fromtimestamp(epoch, datetime.UTC).isoformat(timespec="seconds")


def smart_dict(smart: SmartReading) -> dict[str, Any]:
    return {key: getattr(smart, key) for key in (*_SMART_KEYS, *_EXTRA_SMART_KEYS)}


def disk_dict(disk: DiskHealth) -> dict[str, Any]:
    return {
        "name": disk.name,
        "model": disk.model,
        "serial": disk.serial,
        "state": disk.state.value,
        "reasons": list(disk.reasons),
        "smart": smart_dict(disk.smart),
        "device": disk.device,
        "device_type": disk.device_type,
        "protocol": disk.protocol,
        "needs_root": disk.needs_root,
    }


def pool_dict(pool: PoolHealth) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": pool.name,
        "kind": pool.kind,
        "state": pool.state.value,
        "reasons": list(pool.reasons),
    }
    if pool.kind == "zfs" and pool.scrub is not None:
        out["scrub"] = {
            "state": pool.scrub.state,
            "ended": _iso(pool.scrub.ended),
            "age_days": None if pool.scrub.age_days is None else round(pool.scrub.age_days, 1),
            "errors": pool.scrub.errors,
        }
    if pool.kind == "btrfs":
        out["device_errors"] = [
            {"device": d.device, "write_io_errs": d.write_io_errs, "read_io_errs": d.read_io_errs,
             "flush_io_errs": d.flush_io_errs, "corruption_errs": d.corruption_errs,
             "generation_errs": d.generation_errs}
            for d in pool.device_errors
        ]  # fmt: skip
    if pool.kind == "md":
        out["mismatch_cnt"] = pool.mismatch_cnt
    return out


def wear_dict(wear: CacheWear) -> dict[str, Any]:
    def rounded(value: float | None, digits: int = 1) -> float | None:
        return None if value is None else round(value, digits)

    return {
        "branch": wear.branch,
        "disk": wear.disk,
        "serial": wear.serial,
        "model": wear.model,
        "percentage_used": wear.percentage_used,
        "bytes_written": wear.bytes_written,
        "power_on_hours": wear.power_on_hours,
        "lifetime_write_bytes_per_day": rounded(wear.lifetime_write_bytes_per_day, 0),
        "recent_write_bytes_per_day": rounded(wear.recent_write_bytes_per_day, 0),
        "wear_pct_per_month": rounded(wear.wear_pct_per_month, 3),
        "months_to_rated_wear": rounded(wear.months_to_rated_wear),
        "basis": wear.basis,
        "readings": wear.readings,
        "days_covered": rounded(wear.days_covered),
        "benchmark_bytes_written": wear.benchmark_bytes_written,
        "benchmark_write_share": rounded(wear.benchmark_write_share, 3),
    }


def health_to_dict(report: HealthReport, cache_wear: Sequence[CacheWear] = ()) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "host": report.hostname,
        "collected_at": _iso(report.collected_at),
        "state": report.state.value,
        "disks": [disk_dict(d) for d in report.disks],
        "pools": [pool_dict(p) for p in report.pools],
        "cache_wear": [wear_dict(w) for w in cache_wear],
        "notes": list(report.notes),
    }


def _figure(value: int | None, unit: str = "", needs_root: bool = False) -> str:
    if value is None:
        return "needs root" if needs_root else "-"
    return f"{value}{unit}"


def _disk_line(disk: DiskHealth, width: int) -> str:
    s = disk.smart
    root = disk.needs_root
    written = (
        format_bytes(s.bytes_written) if s.bytes_written is not None else _figure(None, "", root)
    )
    parts = [
        f"{disk.name:<{width}} {disk.state.value:<8}",
        f"{_figure(s.temperature_c, ' °C', root):>10}",
        f"{_figure(s.power_on_hours, ' h', root):>10}",
        f"{_figure(s.percentage_used, ' %', root):>10}",
        f"{written:>10}",
        f"  {disk.model or '-'}",
    ]
    line = " ".join(parts)
    if disk.reasons:
        line += "\n" + " " * (width + 2) + "; ".join(disk.reasons)
    return line


def wear_line(wear: CacheWear) -> str:
    """ "reaches 100 % rated wear in about N months at the current rate", or why not."""
    if wear.months_to_rated_wear is None:
        return f"{wear.branch} ({wear.disk}): forecast {wear.basis}"
    if wear.months_to_rated_wear <= 0:
        return f"{wear.branch} ({wear.disk}): {wear.basis}"
    months = wear.months_to_rated_wear
    when = f"{months:.0f} months" if months >= 1.5 else f"{months * 30.44:.0f} days"
    return (f"{wear.branch} ({wear.disk}): reaches 100 % rated wear in about {when} at the "
            f"current rate ({wear.basis})")  # fmt: skip


def _writes(wear: CacheWear) -> str:
    parts = []
    if wear.lifetime_write_bytes_per_day is not None:
        parts.append(f"{format_bytes(int(wear.lifetime_write_bytes_per_day))}/day over its life")
    if wear.recent_write_bytes_per_day is not None:
        parts.append(f"{format_bytes(int(wear.recent_write_bytes_per_day))}/day over the last "
                     f"{wear.days_covered:.0f} days")  # fmt: skip
    if wear.benchmark_write_share is not None:
        parts.append(f"{wear.benchmark_write_share * 100:.0f} % of it by tierdeck's benchmarks")
    return "written " + ", ".join(parts) if parts else "write rate unknown"


def render_health_text(report: HealthReport, cache_wear: Sequence[CacheWear] = ()) -> str:
    lines = [f"{report.hostname}: {report.state.value}", ""]
    width = max([12, *(len(d.name) for d in report.disks)])
    lines.append(f"{'disk':<{width}} {'state':<8} {'temp':>10} {'power-on':>10} {'wear':>10}"
                 f" {'written':>10}  model")  # fmt: skip
    lines += [_disk_line(d, width) for d in report.disks] or ["(no disks)"]
    if report.pools:
        lines += ["", f"{'pool':<20} {'kind':<6} state"]
        for pool in report.pools:
            lines.append(f"{pool.name:<20} {pool.kind:<6} {pool.state.value}")
            if pool.reasons:
                lines.append(" " * 22 + "; ".join(pool.reasons))
    if cache_wear:
        lines += ["", "cache wear"]
        for wear in cache_wear:
            lines += [wear_line(wear), "  " + _writes(wear)]
    if report.notes:
        lines += ["", *(f"note: {n}" for n in report.notes)]
    return "\n".join(lines)
