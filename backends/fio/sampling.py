"""Successive cumulative fio reports in, per-interval samples out (the live graph).

Apart from parsing (``stream``): fio's reports are totals since the start, and turning
them into what happened in each second is a concern of its own.
"""

from __future__ import annotations

import math

from ...core.errors import ParseError
from ...core.fio_models import (
    EMPTY_DIRECTION,
    Bins,
    Direction,
    DirectionSample,
    FioJobResult,
    FioReport,
    Sample,
)
from .histograms import merge_bins, percentile_from_bins, subtract_bins
from .stream import SOURCE


class IntervalSampler:
    """Cumulative status reports in, per-interval samples out.

    Intervals are timed by the documents' ``timestamp_ms`` (wall clock at print time),
    not by ``job_runtime``: a stonewalled job that has not started reports nonsense
    runtimes, and sequential jobs would otherwise overlap. Rates are the deltas of
    ``io_bytes``/``total_ios`` summed over jobs, so a finished job adds nothing and a
    job that has not started adds nothing: a stonewall shows as a step, not a ramp.

    Latency per interval: the mean from deltas of ``mean * N`` (exact, and the same
    total-latency mean the final report shows, json or json+); p99 from the delta of
    json+ histograms, or None without them.
    """

    def __init__(self) -> None:
        self._previous: FioReport | None = None
        self._previous_ms: float = 0.0
        self._interval_ms: float = 1000.0  # length of the last interval, for sanity checks
        self._start_ms: float | None = None

    @property
    def start_ms(self) -> float | None:
        """Estimated wall-clock time (ms) when I/O began; samples' t counts from it."""
        return self._start_ms

    def add(self, report: FioReport) -> Sample | None:
        """Take the next report; return the interval since the previous one, or None
        when there is nothing to measure yet (first report before any I/O, or a report
        with the same timestamp as the last)."""
        now = _report_ms(report)
        if now is None:
            raise ParseError(SOURCE, "status report without timestamp: cannot time it")
        previous = self._previous
        if previous is None:
            return self._first(report, now)
        if [job.name for job in previous.jobs] != [job.name for job in report.jobs]:
            # Not the same run any more (fio never reshuffles jobs mid-run): start over
            # from this report without inventing an interval.
            self._previous, self._previous_ms = report, now
            return None
        interval_ms = now - self._previous_ms
        if interval_ms <= 0:
            return None  # same instant; the next interval will include these counts
        sample = _delta(previous, report, interval_ms, now - (self._start_ms or now))
        if not sample.active_jobs and interval_ms < 0.5 * self._interval_ms:
            # fio's final report can repeat the last status document a few ms later
            # (seen: 15 ms, fio333_status_ramp.json). A zero-rate sliver would draw a
            # false drop to 0; a real stall lasts whole intervals and still shows.
            return None
        self._previous, self._previous_ms = report, now
        self._interval_ms = interval_ms
        return sample

    def _first(self, report: FioReport, now: float) -> Sample | None:
        # The implicit baseline is all zeros when I/O began: the longest-running job
        # started first. Per-direction "runtime", not "job_runtime": the latter is
        # garbage for unstarted jobs and summed over members under group_reporting
        # (3506 ms for a 470 ms run in fio333_seqwrite_group.json).
        runtimes = [
            max(d.runtime_ms for d in (job.read, job.write, job.trim))
            for job in report.jobs
            if job.has_io
        ]
        self._previous, self._previous_ms = report, now
        started = max(runtimes, default=0)
        self._start_ms = now - started
        if started <= 0:
            return None
        self._interval_ms = float(started)
        empty = _zero_report(report)
        return _delta(empty, report, float(started), float(started))


def _report_ms(report: FioReport) -> float | None:
    if report.timestamp_ms is not None:
        return float(report.timestamp_ms)
    if report.timestamp is not None:  # fio 2.x: whole seconds only
        return report.timestamp * 1000.0
    return None


def _zero_report(report: FioReport) -> FioReport:
    jobs = tuple(
        FioJobResult(job.name, job.groupid, 0, EMPTY_DIRECTION, EMPTY_DIRECTION, EMPTY_DIRECTION)
        for job in report.jobs
    )
    return FioReport(
        report.fio_version, None, None, jobs, EMPTY_DIRECTION, EMPTY_DIRECTION, EMPTY_DIRECTION
    )


def _delta(before: FioReport, after: FioReport, interval_ms: float, t_ms: float) -> Sample:
    per_direction: dict[Direction, DirectionSample] = {}
    active: set[str] = set()
    for direction in Direction:
        d_bytes = d_ios = d_count = 0
        d_lat = 0.0
        histograms: list[Bins] = []
        histograms_complete = True
        for old_job, new_job in zip(before.jobs, after.jobs, strict=True):
            old, new = old_job.direction(direction), new_job.direction(direction)
            if new.io_bytes < old.io_bytes or new.total_ios < old.total_ios:
                old = EMPTY_DIRECTION  # fio reset its counters (ramp_time): count anew
            ios = new.total_ios - old.total_ios
            if ios <= 0 and new.io_bytes == old.io_bytes:
                continue
            active.add(new_job.name)
            d_bytes += new.io_bytes - old.io_bytes
            d_ios += ios
            count = new.lat_count - old.lat_count
            if new.lat_mean_ns is not None and count > 0:
                d_count += count
                d_lat += new.lat_mean_ns * new.lat_count - (old.lat_mean_ns or 0.0) * old.lat_count
            diff = subtract_bins(new.bins, old.bins) if new.bins else None
            if diff is None:
                histograms_complete = False
            else:
                histograms.append(diff)
        seconds = interval_ms / 1000.0
        p99 = None
        if d_ios and histograms_complete and histograms:
            p99 = percentile_from_bins(merge_bins(histograms), 99.0)
        mean = d_lat / d_count if d_count and math.isfinite(d_lat) else None
        per_direction[direction] = DirectionSample(
            bw_bytes_per_s=d_bytes / seconds,
            iops=d_ios / seconds,
            lat_mean_ns=mean if mean is None or mean >= 0 else None,
            lat_p99_ns=p99,
        )
    return Sample(
        t=t_ms / 1000.0,
        interval_s=interval_ms / 1000.0,
        read=per_direction[Direction.READ],
        write=per_direction[Direction.WRITE],
        trim=per_direction[Direction.TRIM],
        active_jobs=tuple(job.name for job in after.jobs if job.name in active),
    )
