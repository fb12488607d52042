"""bench/_report.py: a bench script's lines land, dated, at the end of its own section of
docs/performance.md, and nowhere else."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from ..paths import REPO


def report_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_report", REPO / "bench" / "_report.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


DOC = """# Performance

## Inventory: `bench/inventory.py`

Old text.

## Mover: speed

Mover text.
"""


def test_lines_go_to_the_end_of_their_section(tmp_path: Path) -> None:
    doc = tmp_path / "performance.md"
    doc.write_text(DOC)
    report_module().append_run("Inventory: `bench/inventory.py`", "Measured", ["a 1.00x", "b"], doc)
    text = doc.read_text()
    inventory, mover = text.split("## Mover: speed")
    assert inventory.rstrip().endswith("```\na 1.00x\nb\n```")
    assert "### Measured, 20" in inventory and "UTC (load " in inventory
    assert inventory.index("Old text.") < inventory.index("### Measured")
    assert mover == "\n\nMover text.\n"


def test_a_missing_section_is_added_at_the_end(tmp_path: Path) -> None:
    doc = tmp_path / "performance.md"
    doc.write_text(DOC)
    report_module().append_run("New: `bench/new.py`", "Measured", ["x"], doc)
    text = doc.read_text()
    assert text.index("Mover text.") < text.index("## New: `bench/new.py`") < text.index("x\n```")
