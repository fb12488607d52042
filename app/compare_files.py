"""The compare view's export key: the comparison as Markdown, in a file beside the user.

``tierdeck-compare-<ids>.md`` (ids in the comparison's order, baseline first) in the
folder tierdeck was started from, written atomically (backends/localfiles): the same
Markdown as ``tierdeck compare --format markdown``, a table to paste on a forum.
Pressing the key again rewrites the file with the current baseline.
"""

from __future__ import annotations

from pathlib import Path

from ..backends.localfiles import write_atomically
from ..core.compare import Comparison
from .compare_render import to_markdown


def export_name(comparison: Comparison) -> str:
    runs = comparison.runs
    order = [runs[comparison.baseline], *(r for r in runs if r is not runs[comparison.baseline])]
    return "tierdeck-compare-" + "-".join(str(r.id) for r in order) + ".md"


def write_markdown(comparison: Comparison, folder: Path) -> Path:
    """Write the comparison's Markdown into ``folder``; the file's absolute path.
    Raises OSError as the file system does (a read-only folder, a full disk)."""
    path = (folder / export_name(comparison)).absolute()
    write_atomically(path, to_markdown(comparison))
    return path
