"""A stored sweep as a file to share: Markdown tables (as the matrix), CSV (a row per
cell and direction) or the ``tierdeck.sweep-result/1`` JSON.

``tierdeck bench sweep-export`` prints or writes it; the sweep view's export key
writes it as ``tierdeck-sweep-<id>.<ext>`` in the folder tierdeck was started from,
never over an existing file (``app/export/formats.write_text_export``, as the run exports).
"""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path

from ...core.sweep.model import TARGETS_AXIS
from ..export.formats import ExportWritten, write_text_export
from ..history.run_sets import RunSetStore
from .render import sweep_csv, sweep_markdown, sweep_to_json
from .store import load_result, spec_of, sweep_set


class SweepExportFormat(StrEnum):
    MD = "md"
    CSV = "csv"
    JSON = "json"


def sweep_export_text(store: RunSetStore, sweep_id: int, fmt: SweepExportFormat) -> str:
    """Raises SweepNotFound, HistoryError."""
    found = sweep_set(store, sweep_id)
    result = load_result(store, sweep_id)
    if fmt is SweepExportFormat.JSON:
        _, settings = spec_of(found.definition)
        has_axis = any(a.name == TARGETS_AXIS for a in result.spec.axes)
        target = None if has_axis else settings.target or result.spec.target
        return json.dumps(sweep_to_json(result, found.name, target), indent=2) + "\n"
    if fmt is SweepExportFormat.CSV:
        return sweep_csv(result)
    return sweep_markdown(result, found.name)


def write_sweep_export(
    store: RunSetStore,
    sweep_id: int,
    fmt: SweepExportFormat,
    output: Path | None = None,
    *,
    folder: Path | None = None,
) -> ExportWritten:
    """Raises SweepNotFound, HistoryError, ExportRefused, OSError."""
    text = sweep_export_text(store, sweep_id, fmt)
    return write_text_export(text, f"tierdeck-sweep-{sweep_id}.{fmt.value}", output, folder=folder)
