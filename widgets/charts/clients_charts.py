"""The live charts of a ``--clients`` run: one line per host and one for all of them,
on the run screen's chart widget (bandwidth, IOPS, time per I/O).

What they draw is each host's disk activity under its folder, or its share's traffic
(its NFS mount's counters, or the interface that carries it: app/clients/live): fio's
client gives nothing per host before the end. An interface counts no I/Os: a host on
one has a bandwidth line only.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...app.clients.live import ALL_CLIENTS, Activity, LiveTick
from .series_axes import COUNT, LATENCY, RATE
from .series_chart import DEFAULT_ROWS, PALETTE, SeriesChart

TOTAL_STYLE = "white"


def clients_charts(
    names: Sequence[str], span: float | None, rows: int = DEFAULT_ROWS
) -> tuple[SeriesChart, SeriesChart, SeriesChart]:
    lines = [(n, n, PALETTE[i % len(PALETTE)]) for i, n in enumerate(names)]
    lines.append((ALL_CLIENTS, "all", TOTAL_STYLE))

    return (
        SeriesChart("I/O r+w", lines, unit=RATE, rows=rows, span=span,
                    id="clients-bw"),
        SeriesChart("IOPS", lines, unit=COUNT, rows=rows, span=span, id="clients-iops"),
        SeriesChart("Time per I/O", lines, unit=LATENCY, rows=rows,
                    span=span, log_scale=True, id="clients-lat"),
    )  # fmt: skip


def feed_clients(charts: Sequence[SeriesChart], tick: LiveTick) -> None:
    """One second of every host, and the total."""
    seen: dict[str, Activity | None] = {**tick.hosts, ALL_CLIENTS: tick.total}
    bw, iops, lat = charts
    bw.push({n: None if a is None else a.bw_bytes_per_s for n, a in seen.items()}, t=tick.t)
    iops.push({n: None if a is None else a.iops for n, a in seen.items()}, t=tick.t)
    lat.push({n: None if a is None else a.lat_mean_ns for n, a in seen.items()}, t=tick.t)
