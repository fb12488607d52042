"""The import layers of pyproject.toml ([tool.importlinter]) hold, and would catch a
wrong import: lint-imports runs on a copy of the package, once as it is and once with a
deliberate violation in each contract."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ..paths import REPO

ROOT = REPO
LINT = Path(sys.executable).parent / "lint-imports"
PACKAGE_PARTS = ("__init__.py", "app", "core", "backends", "screens", "widgets")
APP_LAYERS = "app: cli > tui > features > history"
CLI_GROUPS = "CLI command groups stand alone, sharing only app/cli/common.py"
SCREENS = "Screen folders stand alone, sharing only the modals"
WIDGETS = "Widget folders stand alone, drawing charts with widgets/charts"
CORE = "core: ladder > sweep, mover > compare, layout"


def lint(copy_parent: Path) -> subprocess.CompletedProcess[str]:
    # The copy is the "tierdeck" that Python finds first, so grimp reads its files.
    env = {**os.environ, "PYTHONPATH": str(copy_parent)}
    return subprocess.run(
        [str(LINT), "--no-cache"],
        cwd=copy_parent / "tierdeck", env=env, capture_output=True, text=True, timeout=300,
        check=False,
    )  # fmt: skip


@pytest.fixture
def package_copy(tmp_path: Path) -> Path:
    target = tmp_path / "tierdeck"
    target.mkdir()
    for part in PACKAGE_PARTS:
        source = ROOT / part
        if source.is_dir():
            shutil.copytree(source, target / part, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, target / part)
    shutil.copy2(ROOT / "pyproject.toml", target / "pyproject.toml")
    return tmp_path


@pytest.mark.skipif(not LINT.exists(), reason="import-linter is not installed")
def test_the_layers_hold_as_the_code_is(package_copy: Path) -> None:
    done = lint(package_copy)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Contracts: 10 kept, 0 broken." in done.stdout


@pytest.mark.skipif(not LINT.exists(), reason="import-linter is not installed")
@pytest.mark.parametrize(
    ("file", "line", "broken"),
    [
        # the domain must not know the application that uses it
        ("core/units.py", "from ..app import history as _wrong\n", "app -> backends -> core"),
        # no Textual below app: the CLI and a remote front end reuse these layers
        ("backends/mounts.py", "import textual as _wrong\n", "No Textual below app"),
        # the history is below what stores into it; sweeps and ladders do not know each
        # other; the features never reach up to the CLI
        ("app/history/run_sets.py", "from ..sweep import store as _wrong\n", APP_LAYERS),
        ("app/sweep/run.py", "from ..ladder import plan as _wrong\n", APP_LAYERS),
        ("app/mover/run.py", "from ..cli import common as _wrong\n", APP_LAYERS),
        # a command group shares only common.py with the others
        ("app/cli/mover.py", "from .bench import run as _wrong\n", CLI_GROUPS),
        ("app/cli/common.py", "from .history import runs as _wrong\n", CLI_GROUPS),
        # a screen opens another through the app, never by importing it
        ("screens/history/history.py", "from ..sequence import sweep as _wrong\n", SCREENS),
        ("screens/modals/help.py", "from ..dashboard import dashboard as _wrong\n", SCREENS),
        ("widgets/charts/series_chart.py", "from ..bench import run_view as _wrong\n", WIDGETS),
        ("widgets/compare/table.py", "from ..layout import mover_views as _wrong\n", WIDGETS),
        ("app/history/store.py", "import textual as _wrong\n", "Textual only in the TUI of app/"),
        ("core/compare/noise.py", "from ..sweep import model as _wrong\n", CORE),
        ("core/layout/model.py", "from ..mover import DAY as _wrong\n", CORE),
    ],
)
def test_a_wrong_import_breaks_its_contract(
    package_copy: Path, file: str, line: str, broken: str
) -> None:
    path = package_copy / "tierdeck" / file
    path.write_text(path.read_text(encoding="utf-8") + "\n" + line, encoding="utf-8")
    done = lint(package_copy)
    assert done.returncode != 0
    assert f"{broken} BROKEN" in done.stdout, done.stdout
