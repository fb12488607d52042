"""Sweeps: one base job and axes of values, every combination one run.

A sweep file is TOML, format ``tierdeck.sweep/1``::

    schema = "tierdeck.sweep/1"
    name = "seed 003: compressibility x processes"   # optional, shown in the history
    target = "/mnt/tank"          # optional: --target, or a targets axis, gives it
    [base]                        # fio options as in a job file ...
    rw = "write"
    bs = "128k"
    size = "2g"
    refill_buffers = true         # a bare flag
    # ... or preset = "NAME" plus options that override every job of the preset
    [axes]                        # each a fio option and its values, in this order
    numjobs = [1, 2, 3]
    buffer_compress_percentage = [0, 50, 100]
    # targets = ["/mnt/a", "/mnt/b"] makes the target one more axis

Cells come in the order of nested loops: the first axis outermost, the last axis
changing fastest. A cell's ``key`` (its values as canonical JSON) is how a resumed
sweep recognises the cells it already has. Pure: reading the file is the caller's.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ..bench_models import DirectionSummary
from ..compare.noise import Metric
from ..errors import TierdeckError
from ..jobspec import TARGET_OPTIONS

SWEEP_SCHEMA = "tierdeck.sweep/1"
SWEEP_RESULT_SCHEMA = "tierdeck.sweep-result/1"
TARGETS_AXIS = "targets"
# A sweep of 4 x 4 x 4 x 4 is already 256 fio runs; a typo such as range(1, 1000)
# should be refused, not started.
MAX_CELLS = 512

AxisValue = str | int | float | bool

_OPTION_RE = re.compile(r"^[a-z][a-z0-9_]*$")
_TOP_KEYS = frozenset({"schema", "name", "target", "base", "axes"})
# The target decides where fio does I/O (core/placement.py); a sweep cannot move it.
_NOT_SWEEPABLE = TARGET_OPTIONS | {"name"}


class SweepErrorKind(StrEnum):
    SYNTAX = "syntax"  # not TOML
    FORMAT = "format"  # TOML, not tierdeck.sweep/1
    MISSING = "missing"
    WRONG_TYPE = "wrong-type"
    BAD_VALUE = "bad-value"
    UNKNOWN_KEY = "unknown-key"
    TOO_BIG = "too-big"


class SweepError(TierdeckError):
    """A sweep file tierdeck refuses, naming the key at fault (None: the whole file)."""

    def __init__(self, kind: SweepErrorKind, key: str | None, detail: str) -> None:
        where = f"{key}: " if key else ""
        super().__init__(f"sweep: {where}{detail}")
        self.kind = kind
        self.key = key
        self.detail = detail


class AxisKind(StrEnum):
    FIO_OPTION = "fio-option"
    TARGET = "target"


@dataclass(frozen=True)
class Axis:
    name: str  # a fio option, or "targets"
    values: tuple[AxisValue, ...]

    @property
    def kind(self) -> AxisKind:
        return AxisKind.TARGET if self.name == TARGETS_AXIS else AxisKind.FIO_OPTION


@dataclass(frozen=True)
class SweepSpec:
    """A sweep file, checked. ``base`` holds fio options as a job file would (a bare
    flag maps to None); with ``preset`` they override every job of the preset."""

    axes: tuple[Axis, ...]
    base: Mapping[str, str | None] = field(default_factory=dict, hash=False)
    preset: str | None = None
    name: str | None = None
    target: str | None = None

    @property
    def cell_count(self) -> int:
        return math.prod(len(a.values) for a in self.axes)

    def cells(self) -> tuple[SweepCell, ...]:
        return expand(self)


@dataclass(frozen=True)
class SweepCell:
    index: int  # 0-based, in expansion order
    values: tuple[tuple[str, AxisValue], ...]  # (axis name, value), in axis order

    @property
    def key(self) -> str:
        return cell_key(self.values)

    @property
    def as_dict(self) -> dict[str, AxisValue]:
        return dict(self.values)

    def value(self, axis: str) -> AxisValue | None:
        return dict(self.values).get(axis)

    @property
    def label(self) -> str:
        """``numjobs=2 buffer_compress_percentage=50``: the run's name suffix."""
        return " ".join(f"{name}={fio_value(value)}" for name, value in self.values)


def cell_key(values: tuple[tuple[str, AxisValue], ...]) -> str:
    return json.dumps([[name, value] for name, value in values], separators=(",", ":"))


def fio_value(value: AxisValue) -> str:
    """An axis value as fio reads it in a job file (booleans as 1/0)."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def expand(spec: SweepSpec) -> tuple[SweepCell, ...]:
    """Every combination, the last axis changing fastest."""
    names = [a.name for a in spec.axes]
    combos = itertools.product(*(a.values for a in spec.axes))
    return tuple(
        SweepCell(i, tuple(zip(names, combo, strict=True))) for i, combo in enumerate(combos)
    )


# --------------------------------------------------------------------------- reading


def parse_sweep(text: str) -> SweepSpec:
    """A sweep file's text to a SweepSpec; SweepError for anything else, whatever the
    bytes."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SweepError(SweepErrorKind.SYNTAX, None, f"not TOML: {exc}") from None
    schema = data.get("schema")
    if schema != SWEEP_SCHEMA:
        raise SweepError(
            SweepErrorKind.FORMAT, "schema", f'must be "{SWEEP_SCHEMA}" (found {schema!r})'
        )
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise SweepError(
            SweepErrorKind.UNKNOWN_KEY,
            unknown[0],
            f"unknown key (a sweep file has {', '.join(sorted(_TOP_KEYS))})",
        )
    name = _optional_text(data, "name")
    target = _optional_text(data, "target")
    base, preset = _read_base(data.get("base", {}))
    axes = _read_axes(data.get("axes"))
    for axis in axes:
        if axis.name in base:
            raise SweepError(
                SweepErrorKind.BAD_VALUE,
                f"axes.{axis.name}",
                "also set in [base]: a value there would be overridden in every cell",
            )
    if target is not None and any(a.kind is AxisKind.TARGET for a in axes):
        raise SweepError(
            SweepErrorKind.BAD_VALUE, "target", "give either target or a targets axis, not both"
        )
    spec = SweepSpec(axes=axes, base=base, preset=preset, name=name, target=target)
    if spec.cell_count > MAX_CELLS:
        raise SweepError(
            SweepErrorKind.TOO_BIG,
            "axes",
            f"{spec.cell_count} cells; at most {MAX_CELLS} runs in one sweep",
        )
    return spec


def _optional_text(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise SweepError(SweepErrorKind.WRONG_TYPE, key, "must be a non-empty string")
    return value


def _option_text(key: str, value: Any) -> str | None:
    if isinstance(value, bool):
        return None if value else "0"  # a bare flag sets it, as in a job file
    if isinstance(value, int | float) or (isinstance(value, str) and value.strip()):
        return fio_value(value)
    raise SweepError(SweepErrorKind.WRONG_TYPE, key, "must be a string, a number or true/false")


def _read_base(raw: Any) -> tuple[dict[str, str | None], str | None]:
    if not isinstance(raw, dict):
        raise SweepError(SweepErrorKind.WRONG_TYPE, "base", "must be a table of fio options")
    base: dict[str, str | None] = {}
    preset: str | None = None
    for key, value in raw.items():
        where = f"base.{key}"
        if key == "preset":
            if not isinstance(value, str) or not value.strip():
                raise SweepError(SweepErrorKind.WRONG_TYPE, where, "must be a preset's name")
            preset = value
            continue
        _check_option_name(key, where)
        base[key] = _option_text(where, value)
    if preset is None and "rw" not in base:
        raise SweepError(
            SweepErrorKind.MISSING, "base.rw", "a base job needs rw= (or preset = NAME)"
        )
    return base, preset


def _check_option_name(name: str, where: str) -> None:
    if not _OPTION_RE.match(name):
        raise SweepError(SweepErrorKind.BAD_VALUE, where, "not a fio option name")
    if name in _NOT_SWEEPABLE:
        raise SweepError(
            SweepErrorKind.BAD_VALUE,
            where,
            "the target decides where fio does I/O (--target, target = or a targets axis)",
        )


def _read_axes(raw: Any) -> tuple[Axis, ...]:
    if raw is None:
        raise SweepError(SweepErrorKind.MISSING, "axes", "a sweep needs at least one axis")
    if not isinstance(raw, dict) or not raw:
        raise SweepError(SweepErrorKind.WRONG_TYPE, "axes", "must be a table of option = [values]")
    axes = []
    for name, values in raw.items():
        where = f"axes.{name}"
        if name != TARGETS_AXIS:
            _check_option_name(name, where)
        if not isinstance(values, list) or not values:
            raise SweepError(SweepErrorKind.WRONG_TYPE, where, "must be a non-empty list")
        checked: list[AxisValue] = []
        for value in values:
            if isinstance(value, dict | list) or (
                isinstance(value, float) and not math.isfinite(value)
            ):
                raise SweepError(
                    SweepErrorKind.WRONG_TYPE, where, f"{value!r} is not a single value"
                )
            if isinstance(value, str) and not value.strip():
                raise SweepError(SweepErrorKind.BAD_VALUE, where, "an empty value")
            if name == TARGETS_AXIS and not (isinstance(value, str) and value.startswith("/")):
                raise SweepError(
                    SweepErrorKind.BAD_VALUE, where, f"{value!r} is not an absolute path"
                )
            if value in checked:
                raise SweepError(SweepErrorKind.BAD_VALUE, where, f"{value!r} given twice")
            checked.append(value)
        axes.append(Axis(name, tuple(checked)))
    return tuple(axes)


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class CellResult:
    """One cell as stored: its run (None: not run yet) and that run's summary."""

    cell: SweepCell
    run_id: int | None = None
    status: str | None = None  # RunStatus value of its run; None when missing
    summary: Mapping[str, DirectionSummary] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class SweepResult:
    id: int
    spec: SweepSpec
    cells: tuple[CellResult, ...]

    @property
    def missing(self) -> tuple[SweepCell, ...]:
        return tuple(c.cell for c in self.cells if c.run_id is None or c.status != "ok")

    @property
    def complete(self) -> bool:
        return not self.missing


def metric_value(
    summary: Mapping[str, DirectionSummary], metric: Metric, direction: str | None = None
) -> float | None:
    """A cell's figure: ``direction`` ("read"/"write"), or by default the direction
    that moved the most bytes (a write sweep's writes). None when it has no figure."""
    if direction is None:
        busy = [d for d, s in summary.items() if s.bw_bytes > 0]
        if not busy:
            return None
        direction = max(busy, key=lambda d: summary[d].bw_bytes)
    found = summary.get(direction)
    if found is None:
        return None
    value = getattr(found, metric.value)
    return None if value is None else float(value)
