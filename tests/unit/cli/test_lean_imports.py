"""The history's read-only commands import only what they use: no Textual, no rich, no
fio backend, no export, no inventory types (bench/history.py times them against
``python -c pass``). Each command runs in a fresh interpreter, which then lists the
heavy modules it holds."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from tierdeck.app.history.store import HistoryStore

from tests.unit.history.test_history import recorded_result

HEAVY = (
    "textual",
    "rich",
    "numpy",
    "tierdeck.backends.fio",
    "tierdeck.app.export",
    "tierdeck.app.tui",
    "tierdeck.core.models",
    "tierdeck.core.presets",
)

PROBE = """
import json, sys
from tierdeck.app.cli import main
heavy = json.loads(sys.argv[2])
sys.argv = ["tierdeck", *json.loads(sys.argv[1])]
try:
    main()
except SystemExit as exc:
    code = exc.code
else:
    code = 0
held = sorted(m for m in sys.modules if any(m == h or m.startswith(h + ".") for h in heavy))
print(json.dumps({"code": code, "held": held}), file=sys.stderr)
"""


def heavy_modules(data: Path, *argv: str) -> list[str]:
    env = {**os.environ, "TIERDECK_DATA_DIR": str(data)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(argv), json.dumps(HEAVY)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    report = json.loads(done.stderr.strip().splitlines()[-1])
    assert report["code"] in (0, None), done.stderr
    return list(report["held"])


@pytest.fixture
def history(tmp_path: Path) -> Path:
    store = HistoryStore(tmp_path / "history.sqlite3")
    for i in range(2):
        store.save(replace(recorded_result(), started_at=1e9 + i))
    return tmp_path


def test_history_list_json_imports_nothing_heavy(history: Path) -> None:
    assert heavy_modules(history, "history", "list", "--json") == []


def test_compare_json_imports_nothing_heavy(history: Path) -> None:
    assert heavy_modules(history, "compare", "1", "2", "--format", "json") == []


def test_the_probe_sees_a_heavy_import(history: Path) -> None:
    # The table of `compare` draws with rich: the probe must notice it.
    assert "rich" in heavy_modules(history, "compare", "1", "2", "--format", "table")
