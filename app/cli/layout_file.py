"""Reading the layout file a command names, for the CLI: a bad or missing file is a
refusal (exit 2, one line). Its own module so that ``tierdeck mover run`` (the timer's
command) need not import the rest of ``tierdeck layout`` (~35 ms at every start)."""

from __future__ import annotations

from pathlib import Path

from ...core.layout.model import Layout, LayoutError
from ..layout.files import load_layout
from .common import EXIT_REFUSED, fail


def load_layout_or_exit(path: Path) -> Layout:
    try:
        return load_layout(path)
    except LayoutError as exc:
        fail(f"{path}: {exc}", EXIT_REFUSED)
    except OSError as exc:
        fail(f"{path}: {exc.strerror}", EXIT_REFUSED)
