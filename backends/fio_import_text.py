"""fio's default ("normal") text output, as users paste it, to fio's JSON shape.

What is read (fio 3.x; the seeds paste fio-3.8 and fio-3.16 reports):

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

Job reports become fio-JSON-shaped entries (bytes, bytes/s, ns) that
``backends.fio_stream.parse_report`` reads like fio's own; figures fio rounded for
print (``72.7GiB``, ``IOPS=36.6k``) stay rounded. Group lines without any job report are
kept apart: they give bandwidth and runtime only.
"""

from __future__ import annotations

import re
import shlex
import time
from dataclasses import dataclass, field
from typing import Any

from ..core.imports import ImportRefusalKind, ImportRefused

_VERSION = re.compile(r"^\s*fio-(\d+)\.(\d+)\S*\s*$")
_JOB_OPTIONS = re.compile(
    r"^(?P<name>\S[^:]*): \(g=(?P<g>\d+)\): rw=(?P<rw>[^,\s]+), bs=(?P<bs>.*?),"
    r" ioengine=(?P<engine>[^,\s]+), iodepth=(?P<depth>\d+)"
)
_JOB_REPORT = re.compile(
    r"^(?P<name>\S[^:]*): \(groupid=(?P<g>\d+), jobs=(?P<jobs>\d+)\): err=\s*(?P<err>-?\d+)"
    r"(?:: pid=\d+: (?P<date>.+?))?\s*$"
)
_NUM = r"[0-9]+(?:\.[0-9]+)?[kMGT]?"
_UNIT = r"(?:[KMGTP]iB|[kKMGTP]B|B)"
_DIRECTION = re.compile(
    rf"^\s+(?P<dir>read|write|trim)\s*: IOPS=(?P<iops>{_NUM}), BW=(?P<bw>[0-9]+(?:\.[0-9]+)?)"
    rf"(?P<bwu>{_UNIT})/s(?: \([^)]*\))?\((?P<io>[0-9]+(?:\.[0-9]+)?)(?P<iou>{_UNIT})/"
    r"(?P<rt>[0-9]+)msec\)"
)
_STAT = re.compile(
    rf"^\s+(?P<kind>slat|clat|lat) \((?P<unit>nsec|usec|msec|sec)\): min=\s*{_NUM},"
    rf" max=\s*{_NUM}, avg=\s*(?P<avg>{_NUM}),"
)
_PCT_HEAD = re.compile(r"^\s+(?P<kind>clat|lat|slat) percentiles \((?P<unit>nsec|usec|msec)\):")
_PCT_ROW = re.compile(r"^\s+\|")
_PCT_ENTRY = re.compile(r"([0-9]+\.[0-9]+)th=\[\s*([0-9]+)\]")
_ISSUED = re.compile(r"^\s+issued rwts?: total=([0-9]+),([0-9]+),([0-9]+)")
_GROUP_HEAD = re.compile(r"^\s*Run status group (?P<g>[0-9]+) \(all jobs\):")
_GROUP_LINE = re.compile(
    r"^\s*(?:(?P<label>[A-Za-z][A-Za-z0-9 _-]*?)\s+)?(?P<dir>READ|WRITE|TRIM): bw=(?P<bw>[0-9]+(?:\.[0-9]+)?)"
    rf"(?P<bwu>{_UNIT})/s"
)
_GROUP_IO = re.compile(rf"\bio=(?P<io>[0-9]+(?:\.[0-9]+)?)(?P<iou>{_UNIT})")
_GROUP_RUN = re.compile(r"\brun=(?P<min>[0-9]+)-(?P<max>[0-9]+)msec")
# fio 2.x's text: "write: io=..., bw=..., iops=..., runt=..." and "aggrb=" group lines.
_OLD_TEXT = re.compile(r"^\s+(?:read|write|trim)\s*: io=.*\bruntime?=|\baggrb=", re.MULTILINE)
# fio run by any path or wrapper, after any prompt: "fio", "./fio", "/usr/bin/fio",
# "$ sudo fio", "root@box:/test# fio" (seed 001), "time fio"; options with "--" follow.
# The path part cannot cross a prompt's characters, so a long line is scanned once.
_COMMAND = re.compile(r"(?:^|[\s#$>`'\"(])(?:[^\s#$>`'\"(]*/)?fio\s+")

_UNIT_BYTES = {
    "B": 1, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3, "TiB": 1024**4, "PiB": 1024**5,
    "kB": 1000, "KB": 1000, "MB": 1000**2, "GB": 1000**3, "TB": 1000**4, "PB": 1000**5,
}  # fmt: skip
_UNIT_NS = {"nsec": 1, "usec": 1000, "msec": 1_000_000, "sec": 1_000_000_000}
_SUFFIX = {"": 1, "k": 1000, "M": 1000**2, "G": 1000**3, "T": 1000**4}
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
    return any(
        regex.search(line)
        for line in text.splitlines()
        for regex in (_JOB_REPORT, _DIRECTION, _GROUP_HEAD, _GROUP_LINE, _JOB_OPTIONS)
    )


def read_text(text: str) -> TextImport:
    if _OLD_TEXT.search(text):
        raise ImportRefused(
            "fio 2.x text output is not read; import that run's JSON output"
            " (fio --output-format=json) instead",
            kind=ImportRefusalKind.UNSUPPORTED,
        )
    reader = _Reader()
    for line in text.splitlines():
        reader.feed(line.rstrip())
    result = reader.finish()
    with_io = [j for j in result.jobs if any(d in j for d in _DIRECTIONS) or j["error"]]
    if not with_io and not result.groups:
        raise ImportRefused(
            "fio's text, but no job report and no 'Run status group' line with figures",
            kind=ImportRefusalKind.NO_RESULTS,
        )
    return result


class _Reader:
    def __init__(self) -> None:
        self.out = TextImport()
        self.invocation = 0  # fio runs pasted one after the other
        self.seen_results = False  # a report or group line since the invocation began
        self.job: dict[str, Any] | None = None
        self.direction: dict[str, Any] | None = None
        self.pct: dict[str, Any] | None = None  # the percentile block being read
        self.pct_scale = 1
        self.last_header: str | None = None  # job name of the last options line
        self.group_head: int | None = None  # "Run status group N" just read
        self.group_dirs: set[str] = set()

    def feed(self, line: str) -> None:
        if self.pct is not None:
            if _PCT_ROW.match(line):
                for key, value in _PCT_ENTRY.findall(line):
                    self.pct[f"{float(key):.6f}"] = int(value) * self.pct_scale
                return
            self.pct = None
        if (match := _VERSION.match(line)) is not None:
            self.out.fio_version = line.strip()
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
            self._command(args)
        elif (match := _JOB_REPORT.match(line)) is not None:
            self._job_report(match)
        elif (match := _DIRECTION.match(line)) is not None and self.job is not None:
            self._direction(match)
        elif (match := _STAT.match(line)) is not None and self.direction is not None:
            scale = _UNIT_NS[match["unit"]]
            block = self.direction.setdefault(f"{match['kind']}_ns", {})
            block["mean"] = _number(match["avg"]) * scale
        elif (match := _PCT_HEAD.match(line)) is not None and self.direction is not None:
            block = self.direction.setdefault(f"{match['kind']}_ns", {})
            self.pct = block.setdefault("percentile", {})
            self.pct_scale = _UNIT_NS[match["unit"]]
        elif (match := _ISSUED.match(line)) is not None and self.job is not None:
            for name, count in zip(_DIRECTIONS, match.groups(), strict=True):
                if name in self.job:
                    self.job[name]["total_ios"] = int(count)
        elif (match := _GROUP_HEAD.match(line)) is not None:
            self.job = self.direction = None
            self.group_head = int(match["g"])
            self.group_dirs = set()
        elif (match := _GROUP_LINE.match(line)) is not None:
            self._group_line(line, match)

    def _new_invocation_if_done(self) -> None:
        if self.seen_results:
            self.invocation += 1
            self.seen_results = False
            self.last_header = None
            self.group_head = None

    def _command(self, args: str) -> None:
        for name, options in command_options(args):
            if name in self.out.from_command:
                continue
            # fio's "rw=..., bs=..." line may have come first: the command says more
            self.out.options[name] = {**self.out.options.get(name, {}), **options}
            self.out.from_command.add(name)

    def _job_report(self, match: re.Match[str]) -> None:
        if self.group_head is not None or (self.seen_results and not self.out.jobs):
            self._new_invocation_if_done()
        self.seen_results = True
        self.group_head = None
        self.job = {
            "jobname": match["name"],
            "groupid": self.invocation * 1000 + int(match["g"]),
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

    def _direction(self, match: re.Match[str]) -> None:
        assert self.job is not None
        io_bytes = _bytes(match["io"], match["iou"])
        runtime = int(match["rt"])
        iops = _number(match["iops"])
        self.direction = {
            "io_bytes": io_bytes,
            "bw_bytes": _bytes(match["bw"], match["bwu"]),
            "iops": iops,
            "runtime": runtime,
            "total_ios": round(iops * runtime / 1000),  # replaced by "issued rwts"
        }
        self.job[match["dir"]] = self.direction

    def _group_line(self, line: str, match: re.Match[str]) -> None:
        direction = match["dir"].lower()
        if self.group_head is None or direction in self.group_dirs:
            # a line pasted alone, or the next run's: a group of its own
            self._new_invocation_if_done()
            self.group_head = 0
            self.group_dirs = set()
        self.seen_results = True
        self.job = self.direction = None
        self.group_dirs.add(direction)
        io = _GROUP_IO.search(line)
        run = _GROUP_RUN.search(line)
        label = match["label"]
        # seed 002's script prints "SEQUENTIAL WRITE: bw=...": its label names the test
        name = self.last_header or (f"{label.strip()} {match['dir']}" if label else None)
        self.out.groups.append(
            GroupStatus(
                name=name or f"group {self.invocation * 1000 + self.group_head}",
                direction=direction,
                bw_bytes=_bytes(match["bw"], match["bwu"]),
                io_bytes=_bytes(io["io"], io["iou"]) if io else None,
                runtime_ms=int(run["max"]) if run else None,
            )
        )

    def finish(self) -> TextImport:
        return self.out


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
    return None


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
    return float(digits) * _SUFFIX[suffix]


def _bytes(value: str, unit: str) -> int:
    return round(float(value) * _UNIT_BYTES[unit])
