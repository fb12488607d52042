"""fio job files (``.fio``) -> JobSpecs.

The format, as fio 3.33's init.c/parse.c read it: ``[section]`` headers; ``[global]``
options apply to every later job (a second ``[global]`` adds to them for the jobs after
it); ``key=value`` (spaces around ``=`` allowed) or a bare flag; comments start at
``;`` or ``#``, also mid-line. Options tierdeck models get their JobSpec field; all
others stay in ``extra`` in file order. The inverse is ``JobSpec.to_jobfile``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from ...core.errors import ParseError
from ...core.jobspec import JobSpec, JobSpecError

SOURCE = "fio job file"

_KEY_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_TIME_RE = re.compile(r"^([0-9]+)\s*(s|m|h|d)?$", re.IGNORECASE)
_TIME_MULT = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}
_ALIASES = {
    "readwrite": "rw",
    "blocksize": "bs",
    "timeout": "runtime",
    "wait_for_previous": "stonewall",
}
_BOOL_TRUE = {"1", "true", "yes", "on"}
_BOOL_FALSE = {"0", "false", "no", "off"}


@dataclass(frozen=True)
class _Option:
    key: str
    value: str | None  # None: bare flag
    line_no: int
    line: str


def parse_jobfile(text: str) -> list[JobSpec]:
    """Every job section of ``text``, with [global] merged in. Raises ParseError (with
    the line number) on lines fio would reject. Does not validate values beyond types:
    call ``JobSpec.validate`` before running."""
    jobs: list[JobSpec] = []
    global_opts: dict[str, _Option] = {}
    section: str | None = None
    current: dict[str, _Option] = {}

    def finish() -> None:
        if section is not None and section != "global":
            jobs.append(_to_spec(section, {**global_opts, **current}))

    for line_no, raw in enumerate(text.splitlines(), start=1):
        line = _strip_comment(raw).strip()
        if not line:
            continue
        if line.startswith("["):
            if not line.endswith("]") or len(line) < 3:
                raise ParseError(SOURCE, f"line {line_no}: bad section header", raw)
            finish()
            section, current = line[1:-1].strip(), {}
            if not section:
                raise ParseError(SOURCE, f"line {line_no}: empty section name", raw)
            continue
        if section is None:
            raise ParseError(SOURCE, f"line {line_no}: option outside a [job] section", raw)
        option = _parse_option(line, line_no, raw)
        (global_opts if section == "global" else current)[option.key] = option
    finish()
    return jobs


def spec_from_options(name: str, options: Mapping[str, str | None]) -> JobSpec:
    """A job from options as fio echoes them ("job options" of its JSON output merged
    over "global options"; a command line's --key=value). Raises ParseError on a value
    of the wrong type, as for a job file."""
    opts = {}
    for key, value in options.items():
        line = key if value is None else f"{key}={value}"
        opts[_ALIASES.get(key, key)] = _Option(_ALIASES.get(key, key), value, 0, line)
    return _to_spec(name, opts)


def option_name(key: str) -> str:
    """An option's own name for one of its aliases ("readwrite" -> "rw")."""
    return _ALIASES.get(key, key)


def _strip_comment(line: str) -> str:
    # parse.c strip_blank_end(): everything from the first ';' or '#' is a comment
    cut = [i for i in (line.find(";"), line.find("#")) if i >= 0]
    return line[: min(cut)] if cut else line


def _parse_option(line: str, line_no: int, raw: str) -> _Option:
    if "=" in line:
        key, value = (part.strip() for part in line.split("=", 1))
    else:
        key, value = line, None
    if key.startswith("include ") or key == "include":
        raise ParseError(
            SOURCE, f"line {line_no}: 'include' of other job files is not supported", raw
        )
    if not _KEY_RE.match(key):
        raise ParseError(SOURCE, f"line {line_no}: not an option: {key!r}", raw)
    return _Option(_ALIASES.get(key, key), value, line_no, raw)


def _to_spec(name: str, opts: dict[str, _Option]) -> JobSpec:
    def take(key: str) -> _Option | None:
        return opts.pop(key, None)

    name_opt = take("name")
    if name_opt is not None and name_opt.value:
        name = name_opt.value
    return JobSpec(
        name=name,
        rw=_opt_value(take("rw")) or "read",  # fio's defaults: rw=read, bs=4k
        bs=_opt_value(take("bs")) or "4k",
        iodepth=_int(take("iodepth"), 1),
        numjobs=_int(take("numjobs"), 1),
        ioengine=_opt_value(take("ioengine")),
        direct=_bool(take("direct")),
        size=_opt_value(take("size")),
        runtime=_seconds(take("runtime")),
        time_based=_bool(take("time_based")),
        fsync=_int(take("fsync"), 0),
        fdatasync=_int(take("fdatasync"), 0),
        end_fsync=_bool(take("end_fsync")),
        group_reporting=_bool(take("group_reporting")),
        rate=_opt_value(take("rate")),
        stonewall=_bool(take("stonewall")),
        filename=_opt_value(take("filename")),
        extra={key: opt.value for key, opt in opts.items()},
    )


def _value(opt: _Option) -> str:
    if opt.value is None or opt.value == "":
        raise ParseError(SOURCE, f"line {opt.line_no}: {opt.key} needs a value", opt.line)
    return opt.value


def _opt_value(opt: _Option | None) -> str | None:
    return None if opt is None else _value(opt)


def _int(opt: _Option | None, default: int) -> int:
    if opt is None:
        return default
    text = _value(opt)
    if not (text.isascii() and text.isdigit()):  # "²" is a digit to isdigit, not to int
        raise ParseError(
            SOURCE, f"line {opt.line_no}: {opt.key}={text!r} is not a number", opt.line
        )
    return int(text)


def _bool(opt: _Option | None) -> bool:
    if opt is None:
        return False
    if opt.value is None:  # a bare flag switches the option on
        return True
    text = opt.value.lower()
    if text in _BOOL_TRUE:
        return True
    if text in _BOOL_FALSE:
        return False
    raise ParseError(SOURCE, f"line {opt.line_no}: {opt.key}={opt.value!r} is not 0 or 1", opt.line)


def _seconds(opt: _Option | None) -> int | None:
    if opt is None:
        return None
    text = _value(opt)
    match = _TIME_RE.match(text)
    if match is None:
        raise ParseError(
            SOURCE,
            f"line {opt.line_no}: {opt.key}={text!r} is not whole seconds (60, 60s, 5m)",
            opt.line,
        )
    return int(match.group(1)) * _TIME_MULT[(match.group(2) or "").lower()]


def check_jobfile(text: str) -> tuple[list[JobSpec], str | None]:
    """Parse and validate a job file as the user types it: the jobs, and the first
    problem in words (naming its line when it can), or None."""
    try:
        jobs = parse_jobfile(text)
    except ParseError as exc:
        return [], exc.detail
    if not jobs:
        return [], "no job section: add one, like [my-job] with rw=... under it"
    for job in jobs:
        try:
            job.validate()
        except JobSpecError as exc:
            return jobs, f"{_section_line(text, job.name)}{exc}"
    return jobs, None


def _section_line(text: str, name: str) -> str:
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip() == f"[{name}]":
            return f"line {number}: "
    return ""
