"""fio's JSON output, live and final.

``fio --output-format=json --status-interval=1 --eta=never`` prints one complete JSON
document per interval, every value cumulative since the start. Three steps turn that
into a live graph:

1. :class:`JsonDocumentSplitter` cuts the stdout stream into documents, whatever the
   chunking, and keeps fio's own text lines ("fio: pid=..., err=22/...") apart.
2. :func:`parse_report` turns one document into a :class:`FioReport` (fio 2.x to 3.3x).
3. :class:`IntervalSampler` turns successive cumulative reports into per-interval
   :class:`Sample` deltas.

Pure functions over text: the runner that owns the subprocess feeds them.
"""

from __future__ import annotations

import codecs
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...core.bench_models import DirectionSummary, JobSummary
from ...core.errors import ParseError
from ...core.fio_models import (
    EMPTY_DIRECTION,
    Bins,
    Direction,
    DirectionSample,
    DirectionStats,
    FioJobResult,
    FioReport,
    Sample,
)
from ...core.jobspec import JobSpec

SOURCE = "fio JSON"

# Arguments that make fio stream. json+ adds latency histograms ("bins") so that each
# interval gets its own p99, at about 10 KiB more per job per second.
STREAM_ARGS = ("--output-format=json+", "--status-interval=1", "--eta=never")


# --------------------------------------------------------------------------- splitting

_STRUCTURE = re.compile(r"[{}\"]")
_IN_STRING = re.compile(r"[\"\\]")


class JsonDocumentSplitter:
    """Cuts a text stream into complete top-level JSON documents.

    A document starts with ``{`` as the first non-blank character of a line, which is
    how fio prints them; anything else outside a document is a message line (fio's
    ``fio: ...`` warnings and errors share stdout with the JSON). Brace depth is counted
    outside strings only, with backslash escapes honoured, so a ``}`` inside a job name
    or a file path never ends a document early.
    """

    def __init__(self) -> None:
        self._messages: list[str] = []
        self._line: list[str] = []  # message text of the current line
        self._doc: list[str] = []  # pieces of the document being read
        self._depth = 0
        self._in_string = False
        self._escape = False
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    @property
    def messages(self) -> list[str]:
        """Non-JSON lines seen so far, without their line ends."""
        return list(self._messages)

    @property
    def in_document(self) -> bool:
        return self._depth > 0

    def feed_bytes(self, data: bytes) -> list[str]:
        """Like :meth:`feed`, for raw pipe reads that may split a UTF-8 character."""
        return self.feed(self._decoder.decode(data))

    def feed(self, chunk: str) -> list[str]:
        """Consume ``chunk``; return the documents it completed, in order."""
        done: list[str] = []
        pos = 0
        end = len(chunk)
        while pos < end:
            if self._depth == 0:
                pos = self._scan_outside(chunk, pos, done)
            elif self._in_string:
                pos = self._scan_string(chunk, pos)
            else:
                pos = self._scan_document(chunk, pos, done)
        return done

    def close(self) -> str:
        """End of stream: flush a last message line; return an unfinished document
        ("" if none), which fio leaves behind when it is killed mid-print."""
        self._flush_line()
        leftover = "".join(self._doc)
        self._doc.clear()
        self._depth = 0
        self._in_string = self._escape = False
        return leftover

    # -- states ---------------------------------------------------------------------

    def _scan_outside(self, chunk: str, pos: int, done: list[str]) -> int:
        newline = chunk.find("\n", pos)
        stop = len(chunk) if newline < 0 else newline
        if not "".join(self._line).strip():
            # Still at the start of a line: does a document begin here?
            start = pos
            while start < stop and chunk[start] in " \t\r":
                start += 1
            if start < stop and chunk[start] == "{":
                self._line.clear()
                self._doc.append("{")
                self._depth = 1
                return start + 1
        self._line.append(chunk[pos:stop])
        if newline < 0:
            return len(chunk)
        self._flush_line()
        return newline + 1

    def _scan_string(self, chunk: str, pos: int) -> int:
        if self._escape:  # the escaped character sits at the start of this chunk
            self._escape = False
            self._doc.append(chunk[pos])
            return pos + 1
        match = _IN_STRING.search(chunk, pos)
        if match is None:
            self._doc.append(chunk[pos:])
            return len(chunk)
        at = match.start()
        self._doc.append(chunk[pos : at + 1])
        if chunk[at] == "\\":
            if at + 1 < len(chunk):
                self._doc.append(chunk[at + 1])
                return at + 2
            self._escape = True
            return at + 1
        self._in_string = False
        return at + 1

    def _scan_document(self, chunk: str, pos: int, done: list[str]) -> int:
        match = _STRUCTURE.search(chunk, pos)
        if match is None:
            self._doc.append(chunk[pos:])
            return len(chunk)
        at = match.start()
        char = chunk[at]
        self._doc.append(chunk[pos : at + 1])
        if char == '"':
            self._in_string = True
        elif char == "{":
            self._depth += 1
        elif char == "}":
            self._depth -= 1
            if self._depth == 0:
                done.append("".join(self._doc))
                self._doc.clear()
        return at + 1

    def _flush_line(self) -> None:
        line = "".join(self._line).rstrip("\r")
        self._line.clear()
        if line.strip():
            self._messages.append(line)


def split_documents(text: str) -> tuple[list[str], list[str]]:
    """Whole captured output -> (documents, message lines)."""
    splitter = JsonDocumentSplitter()
    docs = splitter.feed(text)
    leftover = splitter.close()
    messages = splitter.messages
    if leftover.strip():
        messages.append(leftover.strip())
    return docs, messages


# --------------------------------------------------------------------------- parsing


def parse_report(doc: str | Mapping[str, Any]) -> FioReport:
    """One fio JSON document -> FioReport. Raises ParseError on anything else.

    Handles fio 3.x (bytes, ``bw_bytes``, ``*_ns`` latencies; ``bins`` with json+),
    fio 3.0-3.1 (no ``bw_bytes``) and fio 2.x (``io_bytes`` in KiB, ``clat``/``lat`` in
    microseconds). Jobs are summed into per-direction totals (see :func:`aggregate`).
    """
    data: Any
    if isinstance(doc, str):
        try:
            data = json.loads(doc)
        except (ValueError, RecursionError) as exc:
            raise ParseError(SOURCE, f"not JSON: {exc}", doc[:80]) from exc
    else:
        data = doc
    if not isinstance(data, Mapping):
        raise ParseError(SOURCE, f"expected an object, got {type(data).__name__}")
    version = data.get("fio version")
    if not isinstance(version, str):
        raise ParseError(SOURCE, 'no "fio version": not fio output')
    raw_jobs = data.get("jobs")
    if not isinstance(raw_jobs, list):
        raise ParseError(SOURCE, 'no "jobs" list')
    # fio 2.x's JSON units (KiB, usec); tierdeck's reading of a 2.x text (marked
    # "tierdeck") is already in bytes and nanoseconds
    legacy = version.startswith("fio-2.") and "tierdeck" not in data
    jobs = tuple(_parse_job(raw, legacy, i) for i, raw in enumerate(raw_jobs))
    return FioReport(
        fio_version=version,
        timestamp=_opt_int(data, "timestamp", "report"),
        timestamp_ms=_opt_int(data, "timestamp_ms", "report"),
        jobs=jobs,
        read=aggregate(jobs, Direction.READ),
        write=aggregate(jobs, Direction.WRITE),
        trim=aggregate(jobs, Direction.TRIM),
        global_options=_str_map(data.get("global options")),
    )


def _parse_job(raw: Any, legacy: bool, index: int) -> FioJobResult:
    where = f"job {index}"
    if not isinstance(raw, Mapping):
        raise ParseError(SOURCE, f"{where} is not an object")
    name = raw.get("jobname")
    if not isinstance(name, str):
        raise ParseError(SOURCE, f"{where} has no jobname")
    where = f"job {name!r}"
    directions = {}
    for direction in Direction:
        part = raw.get(direction.value)
        if part is None:
            directions[direction] = EMPTY_DIRECTION
        elif isinstance(part, Mapping):
            directions[direction] = _parse_direction(part, legacy, f"{where} {direction}")
        else:
            raise ParseError(SOURCE, f"{where} {direction} is not an object")
    options = raw.get("job options")
    return FioJobResult(
        name=name,
        groupid=_opt_int(raw, "groupid", where) or 0,
        error=_opt_int(raw, "error", where) or 0,
        read=directions[Direction.READ],
        write=directions[Direction.WRITE],
        trim=directions[Direction.TRIM],
        job_runtime_ms=_opt_int(raw, "job_runtime", where),
        elapsed_s=_opt_int(raw, "elapsed", where),
        options=_str_map(options),
    )


def _parse_direction(raw: Mapping[str, Any], legacy: bool, where: str) -> DirectionStats:
    # fio 2.x printed io_bytes >> 10 (KiB); fio 3.0 switched to bytes and added
    # io_kbytes. So io_kbytes tells the unit; the version decides when it is absent.
    io_value = _num(raw, "io_bytes", where)
    kib = "io_kbytes" not in raw and legacy
    io_bytes = int(io_value) * 1024 if kib else int(io_value)
    runtime_ms = int(_num(raw, "runtime", where, 0))
    iops = float(_num(raw, "iops", where, 0))
    if "total_ios" in raw:
        total_ios = int(_num(raw, "total_ios", where))
    else:  # fio 2.1 had no total_ios; iops * runtime is what it was computed from
        total_ios = round(iops * runtime_ms / 1000)
    if "bw_bytes" in raw:
        bw_bytes = int(_num(raw, "bw_bytes", where))
    elif runtime_ms > 0:  # fio < 3.2: "bw" is KiB/s, rounded; redo fio's own formula
        bw_bytes = 1000 * io_bytes // runtime_ms
    else:
        bw_bytes = int(_num(raw, "bw", where, 0)) * 1024

    scale = 1000 if legacy else 1  # 2.x: microseconds
    lat = _stat_block(raw, ("lat_ns", "lat"), legacy, where)
    clat = _stat_block(raw, ("clat_ns", "clat"), legacy, where)
    lat_mean: float | None = None
    lat_count = 0
    if lat is not None and total_ios > 0:
        lat_mean = float(_num(lat, "mean", where, 0)) * scale
        lat_count = int(_num(lat, "N", where, total_ios))
    # lat_percentiles=1 puts percentiles (and bins) on lat_ns; otherwise clat carries them
    pct_block = lat if lat is not None and "percentile" in lat else clat
    p99: int | None = None
    bins: Bins = ()
    if pct_block is not None and total_ios > 0:
        p99 = _percentile(pct_block.get("percentile"), 99.0, scale, where)
        bins = _bins(pct_block.get("bins"), where)
    return DirectionStats(
        io_bytes=io_bytes,
        total_ios=total_ios,
        bw_bytes=bw_bytes,
        iops=iops,
        runtime_ms=runtime_ms,
        lat_mean_ns=lat_mean,
        lat_count=lat_count,
        lat_p99_ns=p99,
        bins=bins,
    )


def _stat_block(
    raw: Mapping[str, Any], keys: tuple[str, str], legacy: bool, where: str
) -> Mapping[str, Any] | None:
    key = keys[1] if legacy else keys[0]
    block = raw.get(key)
    if block is None:
        return None
    if not isinstance(block, Mapping):
        raise ParseError(SOURCE, f"{where} {key} is not an object")
    return block


def _percentile(raw: Any, wanted: float, scale: int, where: str) -> int | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise ParseError(SOURCE, f"{where} percentile is not an object")
    for key, value in raw.items():
        # fio 2.x/3.1 pad the table with duplicate "0.00" keys: skip what is not ours
        try:
            if float(key) != wanted:
                continue
        except ValueError:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ParseError(SOURCE, f"{where} percentile {key} is not a number")
        if not math.isfinite(value):  # json.loads takes Infinity and NaN
            raise ParseError(SOURCE, f"{where} percentile {key} is not finite")
        return int(value) * scale
    return None


def _bins(raw: Any, where: str) -> Bins:
    if raw is None:
        return ()
    if not isinstance(raw, Mapping):
        raise ParseError(SOURCE, f"{where} bins is not an object")
    out: list[tuple[int, int]] = []
    for key, value in raw.items():
        if not (isinstance(key, str) and key.isascii() and key.isdigit()) or not _is_int(value):
            raise ParseError(SOURCE, f"{where} bad histogram bin {key!r}: {value!r}")
        if value:
            out.append((int(key), int(value)))
    return tuple(sorted(out))


def aggregate(jobs: Iterable[FioJobResult], direction: Direction) -> DirectionStats:
    """Sum one direction over jobs, the way fio sums a reporting group.

    Jobs of one group run side by side, so a group lasts as long as its longest job;
    groups run one after another (stonewall starts a new group), so their durations add
    up. bw and iops are then total work over that time, as fio prints per group.
    """
    stats = [(job.groupid, job.direction(direction)) for job in jobs]
    with_io = [s for _, s in stats if s.has_io]
    if len(with_io) == 1:  # one job (or group_reporting): fio's own numbers, unrounded
        return with_io[0]
    io_bytes = sum(s.io_bytes for _, s in stats)
    total_ios = sum(s.total_ios for _, s in stats)
    group_runtime: dict[int, int] = {}
    for group, s in stats:
        group_runtime[group] = max(group_runtime.get(group, 0), s.runtime_ms)
    runtime_ms = sum(group_runtime.values())
    lat_count = sum(s.lat_count for _, s in stats if s.lat_mean_ns is not None)
    lat_mean: float | None = None
    if lat_count:
        weighted = sum(s.lat_mean_ns * s.lat_count for _, s in stats if s.lat_mean_ns is not None)
        lat_mean = weighted / lat_count
    p99: int | None = None
    bins: Bins = ()
    if with_io and all(s.bins for s in with_io):
        bins = merge_bins(s.bins for s in with_io)
        p99 = percentile_from_bins(bins, 99.0)
    # Several jobs without histograms: per-job p99s cannot be combined, so None.
    return DirectionStats(
        io_bytes=io_bytes,
        total_ios=total_ios,
        bw_bytes=1000 * io_bytes // runtime_ms if runtime_ms else 0,
        iops=1000.0 * total_ios / runtime_ms if runtime_ms else 0.0,
        runtime_ms=runtime_ms,
        lat_mean_ns=lat_mean,
        lat_count=lat_count,
        lat_p99_ns=p99,
        bins=bins,
    )


def job_summaries(report: FioReport, jobs: Sequence[JobSpec]) -> tuple[JobSummary, ...]:
    """Per job of the final report, in fio's order: the clones of a job (numjobs
    without group_reporting: one entry each, same name and group) added up as fio adds
    a reporting group; rw and bs from the planned job of that name."""
    planned = {job.name: job for job in jobs}
    groups: dict[tuple[str, int], list[FioJobResult]] = {}
    for entry in report.jobs:
        groups.setdefault((entry.name, entry.groupid), []).append(entry)
    out = []
    for (name, _group), entries in groups.items():
        job = planned.get(name)
        directions = {}
        for direction in Direction:
            stats = aggregate(entries, direction)
            if stats.has_io:
                directions[direction.value] = DirectionSummary(
                    stats.bw_bytes, stats.iops, stats.lat_mean_ns, stats.lat_p99_ns
                )
        out.append(
            JobSummary(
                name=name,
                rw=job.rw if job is not None else None,
                bs=job.bs if job is not None else None,
                directions=directions,
                error=next((e.error for e in entries if e.error), 0),
            )
        )
    return tuple(out)


# --------------------------------------------------------------------------- histograms


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


# --------------------------------------------------------------------------- sampling


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


# --------------------------------------------------------------------------- helpers


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _num(raw: Mapping[str, Any], key: str, where: str, default: float | None = None) -> float:
    value = raw.get(key)
    if value is None:
        if default is None:
            raise ParseError(SOURCE, f"{where}: missing {key!r}")
        return default
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ParseError(SOURCE, f"{where}: {key!r} is not a number: {value!r}")
    if not math.isfinite(value):
        raise ParseError(SOURCE, f"{where}: {key!r} is not finite")
    return value


def _opt_int(raw: Mapping[str, Any], key: str, where: str) -> int | None:
    value = raw.get(key)
    if value is None:
        return None
    if not _is_int(value):
        raise ParseError(SOURCE, f"{where}: {key!r} is not an integer: {value!r}")
    return int(value)


def _str_map(raw: Any) -> dict[str, str] | None:
    if not isinstance(raw, Mapping):
        return None
    return {str(k): str(v) for k, v in raw.items()}
