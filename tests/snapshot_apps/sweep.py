"""Sweeps and ladders with fixed data, for snapshots and Pilot tests.

``SWEEP``: seed 003's matrix (numjobs 1-3 x buffer_compress_percentage 0/50/100 on a
128k write), eight cells stored and one missing; ``WIDE``: three axes (bs as the third).
The figures are typed summaries (core.bench_models.DirectionSummary), shaped like fio's
on the lab NAS: more jobs write more, compressible data more still. Nothing from the
clock or the machine.
"""

from __future__ import annotations

from tierdeck.core.bench_models import DirectionSummary
from tierdeck.core.sweep import Axis, CellResult, SweepResult, SweepSpec

MiB = 1024 * 1024

SPEC = SweepSpec(
    axes=(Axis("numjobs", (1, 2, 3)), Axis("buffer_compress_percentage", (0, 50, 100))),
    base={"rw": "write", "bs": "128k", "size": "16M"},
    name="seed 003 compressibility",
    target="/mnt/cache",
)


def write_summary(mib_s: float, lat_ms: float) -> dict[str, DirectionSummary]:
    bw = int(mib_s * MiB)
    return {
        "write": DirectionSummary(
            bw_bytes=bw,
            iops=bw / (128 * 1024),
            lat_mean_ns=lat_ms * 1e6,
            lat_p99_ns=int(lat_ms * 3.1e6),
        )
    }


FIGURES = {  # (numjobs, compress) -> (MiB/s, mean ms)
    (1, 0): (148.2, 0.84),
    (1, 50): (201.7, 0.62),
    (1, 100): (612.4, 0.20),
    (2, 0): (151.0, 1.65),
    (2, 50): (236.9, 1.05),
    (2, 100): (1010.3, 0.25),
    (3, 0): (149.6, 2.50),
    (3, 50): (240.2, 1.56),
}


def result_of(
    spec: SweepSpec, figures: dict[tuple[int, int], tuple[float, float]], first_id: int = 40
) -> SweepResult:
    cells = []
    for cell in spec.cells():
        key = (cell.value("numjobs"), cell.value("buffer_compress_percentage"))
        found = figures.get(key)  # type: ignore[arg-type]
        if found is None:
            cells.append(CellResult(cell))
            continue
        cells.append(CellResult(cell, first_id + cell.index, "ok", write_summary(*found)))
    return SweepResult(id=3, spec=spec, cells=tuple(cells))


SWEEP = result_of(SPEC, FIGURES)
