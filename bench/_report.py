"""The bench scripts' own record: each appends what it printed to docs/performance.md,
dated, under its section, so the figures there are the ones a script produced."""

from __future__ import annotations

import datetime
import os
from pathlib import Path

PERFORMANCE = Path(__file__).resolve().parent.parent / "docs" / "performance.md"


def load_note() -> str:
    """ "load 1.2" (the one-minute load average): how busy the shared machine was."""
    return f"load {os.getloadavg()[0]:.1f}"


def append_run(section: str, title: str, lines: list[str], path: Path = PERFORMANCE) -> None:
    """Add ``lines`` (as printed) under the ``## section`` heading of ``path``, as a
    dated block at the end of that section."""
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    block = [f"#### {title}, {stamp} ({load_note()})", "", "```", *lines, "```", ""]
    text = path.read_text(encoding="utf-8").splitlines()
    start = next((i for i, line in enumerate(text) if line == f"## {section}"), None)
    if start is None:
        text += ["", f"## {section}", "", *block]
    else:
        end = next((i for i in range(start + 1, len(text)) if text[i].startswith("## ")), len(text))
        while end > start + 1 and not text[end - 1].strip():
            end -= 1
        text[end:end] = ["", *block]
    path.write_text("\n".join(text) + "\n", encoding="utf-8")
