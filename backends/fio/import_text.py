"""fio's default ("normal") text output, as users paste it, to fio's JSON shape.

What is read (fio 3.x, the seeds' fio-3.8 and fio-3.16 reports; and fio 2.x, below):

- ``name: (g=0): rw=write, bs=(R) 1024KiB-1024KiB, (W) ..., ioengine=libaio, iodepth=8``:
  a job's options, as fio prints them before it starts;
- a ``fio --name=... --rw=...`` command line pasted with it (a shell prompt in front
  is fine): the options of the job it names;
- ``fio-3.16``: the version;
- a job's report: ``name: (groupid=0, jobs=8): err= 0: pid=...: <date>``, per direction
  ``write: IOPS=1240, BW=1240MiB/s (1300MB/s)(72.7GiB/60017msec)``, the ``slat``/``clat``/
  ``lat`` lines in their unit (nsec, usec, msec), the percentiles table in its unit,
  ``issued rwts: total=r,w,t,x``;
- ``Run status group 0 (all jobs):`` and its ``WRITE: bw=..., io=..., run=...`` lines
  (also with a label in front, ``SEQUENTIAL WRITE: bw=...``, as seed 002's script
  prints them, and alone: a snippet holding only that line).

fio 2.x prints the same report in other words: ``read : io=16384MB, bw=316360KB/s,
iops=79090 , runt= 53032msec``, ``issued : total=r=4194304/w=0/d=0``, group lines
``READ: io=..., aggrb=..., maxt=...msec``, and fio 2.0 a bare version line (``2.0.8``).
Its ``KB``, ``MB`` and ``GB`` are powers of 1024 (fio 2.x's default kb_base).

A report printed again and again by ``--status-interval`` (the same jobs and pids after
``Run status group`` lines) is one run: the last report is kept, as for JSON.

A file can hold several fio runs one after the other (notes, a script's output): each
run is read on its own (``read_texts``), with its own version, options and groups. A new
run begins where a job's option line, a version line (``fio-3.1``) or a ``fio --...``
command line follows results, a job report follows ``Run status group`` lines, a group
number does not grow, a group line repeats a direction, or a script's labelled line
names another test.

A bandwidth, a job's or a group's, is the most precise figure its line holds: the
binary figure, the decimal one in brackets, or io / runtime (a group's longest), whichever
has the most significant digits; fio 3.1 printed ``BW=11.0MiB/s (12.6MB/s)(4096MiB/341704msec)`` for 11.99 MiB/s, so a
binary figure the decimal one contradicts is not taken.

Job reports become fio-JSON-shaped entries (bytes, bytes/s, ns) that
``backends.fio_stream.parse_report`` reads like fio's own; figures fio rounded for
print (``72.7GiB``, ``IOPS=36.6k``) stay rounded. Group lines without any job report are
kept apart: they give bandwidth and runtime only.
"""

from __future__ import annotations

import math
import re
import shlex
import time
from dataclasses import dataclass, field
from typing import Any

from ...core.imports import ImportRefusalKind, ImportRefused

_VERSION = re.compile(r"^\s*(?:fio-\d+\.\d+\S*|(?P<bare>[12]\.\d+\.\d+))\s*$")
_JOB_OPTIONS = re.compile(
    r"^(?P<name>\S[^:]*): \(g=(?P<g>\d+)\): rw=(?P<rw>[^,\s]+), bs=(?P<bs>.*?),"
    r" ioengine=(?P<engine>[^,\s]+), iodepth=(?P<depth>\d+)"
)
_JOB_REPORT = re.compile(
    r"^(?P<name>\S[^:]*): \(groupid=(?P<g>\d+), jobs=(?P<jobs>\d+)\): err=\s*(?P<err>-?\d+)"
    # a failed job: "err= 5 (file:io_u.c:1756, func=io_u error, ..., error=Input/output
    # error): pid=..." (fio's verror; its func may hold parentheses: open(/mnt/x))
    r"(?: \((?P<verror>.*)\))?"
    r"(?:: pid=(?P<pid>\d+)(?:: (?P<date>.+?))?)?\s*$"  # fio 2.0 printed no date
)
_NUM = r"[0-9]+(?:\.[0-9]+)?[kKMGT]?"
_DEC = r"[0-9]+(?:\.[0-9]+)?"
_UNIT = r"(?:[KMGTP]iB|[kKMGTP]B|B)"
_UNIT_2X = r"(?:[KMGTP]?B)"
_DIRECTION = re.compile(
    rf"^\s+(?P<dir>read|write|trim)\s*: IOPS=(?P<iops>{_NUM}), BW=(?P<bw>{_DEC})"
    rf"(?P<bwu>{_UNIT})/s(?: \((?:(?P<bwd>{_DEC})(?P<bwdu>{_UNIT})/s)?[^)]*\))?"
    rf"\((?P<io>{_DEC})(?P<iou>{_UNIT})/(?P<rt>[0-9]+)msec\)"
)
_DIRECTION_2X = re.compile(
    rf"^\s+(?P<dir>read|write|trim)\s*: io=(?P<io>{_DEC})(?P<iou>{_UNIT_2X}),"
    rf" bw=(?P<bw>{_DEC})(?P<bwu>{_UNIT_2X})/s, iops=(?P<iops>{_NUM})\s*,"
    r" runt=\s*(?P<rt>[0-9]+)msec"
)
_STAT = re.compile(
    rf"^\s+(?P<kind>slat|clat|lat) \((?P<unit>nsec|usec|msec|sec)\): min=\s*{_NUM}\s*,"
    rf" max=\s*{_NUM}\s*, avg=\s*(?P<avg>{_NUM})\s*,"
)
_PCT_HEAD = re.compile(r"^\s+(?P<kind>clat|lat|slat) percentiles \((?P<unit>nsec|usec|msec)\):")
_PCT_ROW = re.compile(r"^\s+\|")
_PCT_ENTRY = re.compile(r"([0-9]+\.[0-9]+)th=\[\s*([0-9]+)\]")
_ISSUED = re.compile(r"^\s+issued rwts?: total=([0-9]+),([0-9]+),([0-9]+)")
_ISSUED_2X = re.compile(r"^\s+issued\s*: total=r=([0-9]+)/w=([0-9]+)/d=([0-9]+)")
_GROUP_HEAD = re.compile(r"^\s*Run status group (?P<g>[0-9]+) \(all jobs\):")
_GROUP_LINE = re.compile(
    r"^\s*(?:(?P<label>[A-Za-z][A-Za-z0-9 _-]*?)\s+)?(?P<dir>READ|WRITE|TRIM): bw=(?P<bw>[0-9]+(?:\.[0-9]+)?)"
    rf"(?P<bwu>{_UNIT})/s(?: \((?P<bwd>{_DEC})(?P<bwdu>{_UNIT})/s\))?"
)
_GROUP_LINE_2X = re.compile(
    r"^\s*(?:(?P<label>[A-Za-z][A-Za-z0-9 _-]*?)\s+)?(?P<dir>READ|WRITE|TRIM):"
    rf" io=(?P<io>{_DEC})(?P<iou>{_UNIT_2X}), aggrb=(?P<bw>{_DEC})(?P<bwu>{_UNIT_2X})/s"
)
_GROUP_IO = re.compile(rf"\bio=(?P<io>[0-9]+(?:\.[0-9]+)?)(?P<iou>{_UNIT})")
_GROUP_RUN = re.compile(r"\brun=(?P<min>[0-9]+)-(?P<max>[0-9]+)msec")
_GROUP_RUN_2X = re.compile(r"\bmaxt=(?P<max>[0-9]+)msec")
# fio run by any path or wrapper, after any prompt: "fio", "./fio", "/usr/bin/fio",
# "$ sudo fio", "root@box:/test# fio" (seed 001), "time fio"; options with "--" follow.
# The path part cannot cross a prompt's characters, so a long line is scanned once.
_COMMAND = re.compile(r"(?:^|[\s#$>`'\"(])(?:[^\s#$>`'\"(]*/)?fio\s+")

_UNIT_BYTES = {
    "B": 1, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3, "TiB": 1024**4, "PiB": 1024**5,
    "kB": 1000, "KB": 1000, "MB": 1000**2, "GB": 1000**3, "TB": 1000**4, "PB": 1000**5,
}  # fmt: skip
_UNIT_BYTES_2X = {"B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3, "TB": 1024**4, "PB": 1024**5}
_UNIT_NS = {"nsec": 1, "usec": 1000, "msec": 1_000_000, "sec": 1_000_000_000}
_SUFFIX = {"": 1, "k": 1000, "K": 1000, "M": 1000**2, "G": 1000**3, "T": 1000**4}
_DIRECTIONS = ("read", "write", "trim")


@dataclass(frozen=True)
class GroupStatus:
    """One ``Run status group`` line: what fio says of a group, and nothing more."""

    name: str  # the job it follows, the line's own label, or "group N"
    direction: str  # "read" / "write" / "trim"
    bw_bytes: int
    io_bytes: int | None  # None when the paste cut the line before it
    runtime_ms: int | None


@dataclass
class TextImport:
    fio_version: str | None = None
    jobs: list[dict[str, Any]] = field(default_factory=list)  # fio-JSON-shaped entries
    groups: list[GroupStatus] = field(default_factory=list)
    options: dict[str, dict[str, str | None]] = field(default_factory=dict)  # per job name
    # jobs whose options come from a pasted command line: all of them, not a summary
    from_command: set[str] = field(default_factory=set)
    ended_at: float | None = None  # the last job report's date (local time)
    # --status-interval: fio printed the report again and again; the last one is kept
    last_of_several: bool = False

    def document(self) -> dict[str, Any]:
        """The job reports as fio's JSON would hold them (for parse_report and to
        store as the run's fio JSON); marked as tierdeck's reading of a text."""
        return {
            "fio version": self.fio_version or "unknown",
            "tierdeck": {"read from": "fio text output"},
            "jobs": self.jobs,
            "group status": [vars(g) for g in self.groups],
        }


def looks_like_text(text: str) -> bool:
    regexes = (_JOB_REPORT, _DIRECTION, _DIRECTION_2X, _GROUP_HEAD, _GROUP_LINE, _GROUP_LINE_2X)
    return any(
        regex.search(line) for line in text.splitlines() for regex in (*regexes, _JOB_OPTIONS)
    )


def read_texts(text: str) -> list[TextImport]:
    """Each fio run the text holds, in order; raises ImportRefused when none has
    figures."""
    reader = _Reader()
    for line in text.splitlines():
        reader.feed(line.rstrip())
    found = [run for run in reader.finish() if _has_results(run)]
    if not found:
        raise ImportRefused(
            "fio's text, but no job report and no 'Run status group' line with figures",
            kind=ImportRefusalKind.NO_RESULTS,
        )
    return found


def _has_results(run: TextImport) -> bool:
    return bool(run.groups) or any(
        any(d in job for d in _DIRECTIONS) or job["error"] for job in run.jobs
    )


class _Reader:
    def __init__(self) -> None:
        self.done: list[TextImport] = []  # the fio runs before this one
        self.out = TextImport()
        self.seen_results = False  # a report or group line since the run began
        self.job: dict[str, Any] | None = None
        self.direction: dict[str, Any] | None = None
        self.pct: dict[str, Any] | None = None  # the percentile block being read
        self.pct_scale = 1
        self.last_header: str | None = None  # job name of the last options line
        self.group_head: int | None = None  # "Run status group N" just read
        self.group_dirs: set[str] = set()
        self.group_label: str | None = None  # "SEQUENTIAL" of "SEQUENTIAL WRITE: bw=..."
        self.pids: set[tuple[str, str]] = set()  # (job name, pid) of this run's reports

    def feed(self, line: str) -> None:
        if self.pct is not None:
            if _PCT_ROW.match(line):
                for key, value in _PCT_ENTRY.findall(line):
                    self.pct[f"{float(key):.6f}"] = int(value) * self.pct_scale
                return
            self.pct = None
        if (match := _VERSION.match(line)) is not None:
            self._new_invocation_if_done()
            self.out.fio_version = f"fio-{match['bare']}" if match["bare"] else line.strip()
        elif (match := _JOB_OPTIONS.match(line)) is not None:
            self._new_invocation_if_done()
            self.last_header = match["name"]
            # under a command that came first, fio's line fills what the command left
            # to fio's defaults (ioengine): fio printed what it ran
            self.out.options[match["name"]] = {
                **_header_options(match),
                **self.out.options.get(match["name"], {}),
            }
        elif (args := command_args(line)) is not None:
            self._new_invocation_if_done()
            self._command(args)
        elif (match := _JOB_REPORT.match(line)) is not None:
            self._job_report(match)
        elif self.job is not None and (match := _DIRECTION.match(line)) is not None:
            self._direction(match, _UNIT_BYTES)
        elif self.job is not None and (match := _DIRECTION_2X.match(line)) is not None:
            self._direction(match, _UNIT_BYTES_2X)
        elif (match := _STAT.match(line)) is not None and self.direction is not None:
            scale = _UNIT_NS[match["unit"]]
            block = self.direction.setdefault(f"{match['kind']}_ns", {})
            block["mean"] = _number(match["avg"]) * scale
        elif (match := _PCT_HEAD.match(line)) is not None and self.direction is not None:
            block = self.direction.setdefault(f"{match['kind']}_ns", {})
            self.pct = block.setdefault("percentile", {})
            self.pct_scale = _UNIT_NS[match["unit"]]
        elif self.job is not None and (
            (match := _ISSUED.match(line)) or (match := _ISSUED_2X.match(line))
        ):
            for name, count in zip(_DIRECTIONS, match.groups(), strict=True):
                if name in self.job:
                    self.job[name]["total_ios"] = int(count)
        elif (match := _GROUP_HEAD.match(line)) is not None:
            if self.group_head is not None and int(match["g"]) <= self.group_head:
                self._new_invocation_if_done()  # fio numbers its groups upwards
            self.job = self.direction = None
            self.group_head = int(match["g"])
            self.group_dirs = set()
            self.group_label = None
        elif (match := _GROUP_LINE.match(line)) is not None:
            io, run = _GROUP_IO.search(line), _GROUP_RUN.search(line)
            self._group_line(
                match,
                io_bytes=_bytes(io["io"], io["iou"]) if io else None,
                runtime_ms=int(run["max"]) if run else None,
                bw_bytes=_rate(match, _UNIT_BYTES, io, run["max"] if io and run else None),
            )
        elif (match := _GROUP_LINE_2X.match(line)) is not None:
            run = _GROUP_RUN_2X.search(line)
            self._group_line(
                match,
                io_bytes=_bytes(match["io"], match["iou"], _UNIT_BYTES_2X),
                runtime_ms=int(run["max"]) if run else None,
                bw_bytes=_rate(match, _UNIT_BYTES_2X, match, run["max"] if run else None),
            )

    def _new_invocation_if_done(self) -> None:
        if self.seen_results:
            self.done.append(self.out)
            self.out = TextImport()
            self.seen_results = False
            self.job = self.direction = None
            self.last_header = None
            self.group_head = None
            self.pids = set()

    def _command(self, args: str) -> None:
        for name, options in command_options(args):
            if name in self.out.from_command:
                continue
            # fio's "rw=..., bs=..." line may have come first: the command says more
            self.out.options[name] = {**self.out.options.get(name, {}), **options}
            self.out.from_command.add(name)

    def _job_report(self, match: re.Match[str]) -> None:
        reporter = (match["name"], match["pid"])
        if self.group_head is not None and reporter in self.pids:
            # --status-interval: the same processes reported again, later in the run
            self.out.jobs.clear()
            self.out.groups.clear()
            self.out.last_of_several = True
        elif self.group_head is not None or (self.seen_results and not self.out.jobs):
            self._new_invocation_if_done()
        if match["pid"]:
            self.pids.add(reporter)
        self.seen_results = True
        self.group_head = None
        self.job = {
            "jobname": match["name"],
            "groupid": int(match["g"]),
            "error": int(match["err"]),
            "tierdeck jobs": int(match["jobs"]),
        }
        self.direction = None
        self.out.jobs.append(self.job)
        if match["date"]:
            try:
                self.out.ended_at = time.mktime(
                    time.strptime(" ".join(match["date"].split()), "%a %b %d %H:%M:%S %Y")
                )
            except (ValueError, OverflowError):
                pass

    def _direction(self, match: re.Match[str], units: dict[str, int]) -> None:
        assert self.job is not None
        io_bytes = _bytes(match["io"], match["iou"], units)
        runtime = int(match["rt"])
        iops = _number(match["iops"])
        self.direction = {
            "io_bytes": io_bytes,
            "bw_bytes": _rate(match, units),
            "iops": iops,
            "runtime": runtime,
            "total_ios": round(iops * runtime / 1000),  # replaced by "issued rwts"
        }
        self.job[match["dir"]] = self.direction

    def _group_line(
        self, match: re.Match[str], *, io_bytes: int | None, runtime_ms: int | None, bw_bytes: int
    ) -> None:
        direction = match["dir"].lower()
        # seed 002's script prints "SEQUENTIAL WRITE: bw=...": its label names the test,
        # and a line of another label is another test (fio itself prints no label)
        label = match["label"].strip() if match["label"] else None
        other_test = label is not None and self.group_label not in (None, label)
        if self.group_head is None or direction in self.group_dirs or other_test:
            # a line pasted alone, or the next run's: a group of its own
            self._new_invocation_if_done()
            self.group_head = 0
            self.group_dirs = set()
            self.group_label = None
        self.seen_results = True
        self.job = self.direction = None
        self.group_dirs.add(direction)
        self.group_label = label or self.group_label
        name = self.last_header or (f"{label} {match['dir']}" if label else None)
        self.out.groups.append(
            GroupStatus(
                name=name or f"group {self.group_head}",
                direction=direction,
                bw_bytes=bw_bytes,
                io_bytes=io_bytes,
                runtime_ms=runtime_ms,
            )
        )

    def finish(self) -> list[TextImport]:
        return [*self.done, self.out]


def command_args(line: str) -> str | None:
    """The arguments of a fio command line as pasted ("$ sudo fio --name=x ..."),
    None when the line does not run fio with options."""
    match = _COMMAND.search(line)
    if match is None:
        return None
    args = line[match.end() :].rstrip().rstrip("`")  # `fio ...` quoted in markdown
    return args if "--" in args else None


def command_options(args: str) -> list[tuple[str, dict[str, str | None]]]:
    """``--name=a --rw=write ... --name=b ...`` (a fio command line's arguments) -> each
    job's options; options before the first --name apply to every job."""
    try:
        words = shlex.split(args)
    except ValueError:
        return []
    common: dict[str, str | None] = {}
    jobs: list[tuple[str, dict[str, str | None]]] = []
    for word in words:
        if not word.startswith("--"):
            continue
        key, sep, value = word[2:].partition("=")
        if key == "name":
            jobs.append((value, dict(common)))
        else:
            (jobs[-1][1] if jobs else common)[key] = value if sep else None
    return [(name, options) for name, options in jobs if name]


def _header_options(match: re.Match[str]) -> dict[str, str | None]:
    options: dict[str, str | None] = {"rw": match["rw"]}
    bs = _header_bs(match["bs"], match["rw"])
    if bs:
        options["bs"] = bs
    options["ioengine"] = match["engine"]
    options["iodepth"] = match["depth"]
    return options


def _header_bs(text: str, rw: str) -> str | None:
    """``(R) 4096B-4096B, (W) 4096B-4096B, (T) ...`` -> "4k": the size of the direction
    the job does (write for writes), as a job file would say it."""
    size = rf"[0-9]+(?:\.[0-9]+)?{_UNIT}"
    ranges = re.findall(rf"\((R|W|T)\) ({size})-({size})", text)
    wanted = "W" if "write" in rw or rw == "rw" else "T" if "trim" in rw else "R"
    for which, low, high in ranges:
        if which == wanted and low == high:
            return _short_size(_bytes(*_split_unit(low)))
    return _header_bs_2x(text, "RWT".index(wanted))


def _header_bs_2x(text: str, which: int) -> str | None:
    """fio 2.x's ``4K-4K/4K-4K/4K-4K`` (read/write/trim; fio 2.0 without trim)."""
    ranges = re.findall(r"([0-9]+)([KMG]?)-([0-9]+)([KMG]?)", text)
    if which >= len(ranges) or ranges[which][:2] != ranges[which][2:]:
        return None
    count, unit = ranges[which][:2]
    return _short_size(int(count) * _UNIT_BYTES_2X[f"{unit}B"])


def _split_unit(text: str) -> tuple[str, str]:
    match = re.match(r"([0-9]+(?:\.[0-9]+)?)(\D*)", text)
    assert match is not None
    return match[1], match[2]


def _short_size(n: int) -> str:
    for unit, factor in (("G", 1024**3), ("M", 1024**2), ("k", 1024)):
        if n >= factor and n % factor == 0:
            return f"{n // factor}{unit}"
    return str(n)


def _number(text: str) -> float:
    suffix = text[-1] if text[-1] in _SUFFIX and not text[-1].isdigit() else ""
    digits = text[: -len(suffix)] if suffix else text
    return _finite(float(digits) * _SUFFIX[suffix], text)


def _bytes(value: str, unit: str, units: dict[str, int] = _UNIT_BYTES) -> int:
    return round(_finite(float(value) * units[unit], value))


def _finite(number: float, text: str) -> float:
    """A figure of hundreds of digits is a damaged file, not something fio printed."""
    if not math.isfinite(number):
        raise ImportRefused(
            f"a figure too large to be fio's ({text[:20]}...)", kind=ImportRefusalKind.BAD_REPORT
        )
    return number


def _rate(
    match: re.Match[str],
    units: dict[str, int],
    io_match: re.Match[str] | None = None,
    runtime: str | None = None,
) -> int:
    """Bytes/s from a job's or a group's line: of the binary figure (``bw``), the
    decimal one in brackets (``bwd``, fio 3.x) and io / runtime, the one printed with
    the most significant digits, the first of equals. A binary figure off the decimal
    one by more than their last digits is fio 3.1's truncation (11.99 printed as 11.0)
    and is not taken. ``io_match`` and ``runtime`` default to ``match``'s own."""
    io_match = io_match or match
    runtime = runtime or match.groupdict().get("rt")
    binary = _bytes(match["bw"], match["bwu"], units)
    figures = [(binary, _digits(match["bw"]))]
    decimal_text = match.groupdict().get("bwd")
    if decimal_text:
        decimal = _bytes(decimal_text, match["bwdu"])
        slack = _last_digit(match["bw"], binary) + _last_digit(decimal_text, decimal)
        if abs(binary - decimal) > slack:
            figures = []
        figures.append((decimal, _digits(decimal_text)))
    if runtime is not None and int(runtime) > 0 and io_match.groupdict().get("io"):
        io = _bytes(io_match["io"], io_match["iou"], units)
        digits = min(_digits(io_match["io"]), len(runtime))
        figures.append((round(io * 1000 / int(runtime)), digits))
    return max(figures, key=lambda figure: figure[1])[0]


def _digits(text: str) -> int:
    """Significant digits of a printed figure: "11.0" 3, "4096" 4, "0.5" 1."""
    return len(text.replace(".", "").lstrip("0"))


def _last_digit(text: str, value: int) -> float:
    """What one unit in the last printed digit of ``text`` is worth, of ``value``."""
    number = float(text)
    decimals = len(text.partition(".")[2])
    return value * 10.0**-decimals / number if number > 0 else float(value)
