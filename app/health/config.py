"""The health thresholds a user sets: ``health.toml`` in tierdeck's config folder (the
one holding hosts.toml), or the file ``--thresholds`` names::

    [thresholds]
    temperature_warning_c = 45
    wear_warning_pct = 70

Keys are :class:`~tierdeck.core.health_rules.Thresholds` fields; what is not set keeps
its default. An unknown key or a value that is not a whole number is refused with the
file's name, never ignored: a typo must not leave a threshold silently at its default.
"""

from __future__ import annotations

import tomllib
from dataclasses import replace
from pathlib import Path

from ...core.errors import TierdeckError
from ...core.health_rules import Thresholds
from ..fleet.config import config_folder

HEALTH_FILE = "health.toml"


class ThresholdsError(TierdeckError):
    """The thresholds file cannot be used."""


def thresholds_path() -> Path:
    return config_folder() / HEALTH_FILE


def load_thresholds(path: Path | None = None) -> Thresholds:
    """The thresholds of ``path`` (or the default file when it exists), else defaults."""
    explicit = path is not None
    path = path or thresholds_path()
    if not explicit and not path.exists():
        return Thresholds()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ThresholdsError(f"{path}: {exc.strerror}") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ThresholdsError(f"{path}: {exc}") from exc
    table = data.get("thresholds", {})
    extra = set(data) - {"thresholds"}
    if extra or not isinstance(table, dict):
        raise ThresholdsError(f"{path}: only a [thresholds] table is read, found {sorted(extra)}")
    unknown = sorted(set(table) - set(Thresholds.names()))
    if unknown:
        raise ThresholdsError(
            f"{path}: unknown threshold {', '.join(unknown)} (known: {', '.join(Thresholds.names())})"
        )
    for key, value in table.items():
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100_000:
            raise ThresholdsError(f"{path}: {key} must be a whole number, got {value!r}")
    return replace(Thresholds(), **table)
