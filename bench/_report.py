"""The bench scripts' own record: each appends what it printed to docs/performance.md,
dated, under its section, so the figures there are the ones a script produced."""

from __future__ import annotations

import datetime
import os
from pathlib import Path

PERFORMANCE = Path(__file__).resolve().parent.parent / "docs" / "performance.md"


def append_run(
    section: str,
    title: str,
    lines: list[str],
    path: Path = PERFORMANCE,
    *,
    load: float | None = None,
) -> None:
    """Add ``lines`` (as printed) under the ``## section`` heading of ``path``, as a
    dated block at the end of that section. ``load``: the one-minute load average to
    note (default: now's), how busy the shared machine was."""
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0] if load is None else load
    block = [f"### {title}, {stamp} (load {load:.1f})", "", "```", *lines, "```", ""]
    text = path.read_text(encoding="utf-8").splitlines()
    start = next((i for i, line in enumerate(text) if line == f"## {section}"), None)
    if start is None:
        text += ["", f"## {section}", "", *block]
    else:
        end = next((i for i in range(start + 1, len(text)) if text[i].startswith("## ")), len(text))
        last = end  # the section's blank lines at its end make way for the block's
        while last > start + 1 and not text[last - 1].strip():
            last -= 1
        text[last:end] = ["", *block] if end < len(text) else ["", *block[:-1]]
    path.write_text("\n".join(text) + "\n", encoding="utf-8")
