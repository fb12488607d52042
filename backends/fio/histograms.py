"""fio's latency histograms ("bins" in json+): merged across jobs, differenced between
cumulative reports, and read for a percentile the way fio computes it.

Apart from the sampler that uses them: pure arithmetic on bins, tested on its own.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...core.fio_models import Bins


def merge_bins(histograms: Iterable[Bins]) -> Bins:
    merged: dict[int, int] = {}
    for histogram in histograms:
        for value, count in histogram:
            merged[value] = merged.get(value, 0) + count
    return tuple(sorted((v, c) for v, c in merged.items() if c))


def subtract_bins(current: Bins, previous: Bins) -> Bins | None:
    """Histogram of what happened between two cumulative ones; None if it went down
    (fio reset its stats, e.g. after ramp_time)."""
    before = dict(previous)
    out: list[tuple[int, int]] = []
    for value, count in current:
        diff = count - before.pop(value, 0)
        if diff < 0:
            return None
        if diff:
            out.append((value, diff))
    if any(before.values()):  # a bucket vanished: also a reset
        return None
    return tuple(out)


def percentile_from_bins(bins: Bins, percent: float) -> int | None:
    """The percentile as fio computes it (stat.c calc_clat_percentiles): the first
    bucket at which the running count reaches percent% of all samples."""
    total = sum(count for _, count in bins)
    if total <= 0:
        return None
    threshold = percent / 100.0 * total
    running = 0
    for value, count in bins:
        running += count
        if running >= threshold:
            return value
    return bins[-1][0]  # pragma: no cover - float rounding at 100%
