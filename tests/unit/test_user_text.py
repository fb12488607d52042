"""What a user reads and installs: the package's extras, --help, README and docs."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).parent.parent.parent
SOURCE_DIRS = ("app", "core", "backends", "screens", "widgets", "bench")


def _imported_modules() -> set[str]:
    found: set[str] = set()
    for folder in SOURCE_DIRS:
        for path in (ROOT / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            found |= set(re.findall(r"^\s*(?:import|from)\s+([A-Za-z_][\w]*)", text, re.M))
    return found


def test_every_extra_installs_only_what_the_code_imports() -> None:
    # "pyzfs" in the zfs extra installed a 2016 Python-2 binding nothing imports
    doc = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extras = doc["project"]["optional-dependencies"]
    assert "zfs" in extras  # old install lines keep working
    imported = _imported_modules()
    for name, requirements in extras.items():
        if name == "test":
            continue
        for requirement in requirements:
            module = re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].replace("-", "_")
            assert module in imported, f"extra {name!r} installs {requirement!r}, never imported"
