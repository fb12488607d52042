"""A form's row: its label in the label column, then the field (common.tcss lays out
``form-row`` and ``form-label``), as the benchmark setup's rows are drawn."""

from __future__ import annotations

from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Label


def form_row(label: str, *fields: Widget) -> Horizontal:
    return Horizontal(Label(label, classes="form-label"), *fields, classes="form-row")
