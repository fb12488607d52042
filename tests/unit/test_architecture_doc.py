"""docs/architecture.md against the tree: what it names exists, and every module is in it."""

from __future__ import annotations

import re

from ..paths import REPO

ROOT = REPO
DOC = ROOT / "docs" / "architecture.md"
FOLDERS = ("app", "core", "backends", "screens", "widgets", "tests", "bench", "scripts", "docs")
MODULE_FOLDERS = ("app", "core", "backends", "screens", "widgets")
# "where to add a storage backend" walks through one that does not exist yet
EXAMPLES = {"backends/lvm.py", "tests/unit/test_lvm.py", "tests/fixtures/lvm/"}
PATH = re.compile(r"(?<![\w/.])((?:" + "|".join(FOLDERS) + r")/[\w./*-]*\w/?)")


def named_paths(text: str) -> set[str]:
    """Paths in the text, placeholders (NAME, <name>) left out."""
    return {
        m.group(1)
        for m in PATH.finditer(text)
        if not re.search(r"NAME|/widgets$", m.group(1)) and text[m.end() : m.end() + 1] != "<"
    }


def missing(paths: set[str]) -> list[str]:
    def exists(p: str) -> bool:
        path = ROOT / p
        return path.exists() or path.with_suffix(".py").exists() or any(ROOT.glob(p))

    return sorted(p for p in paths - EXAMPLES if not exists(p))


def test_every_path_the_architecture_names_exists() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert len(named_paths(text)) > 100
    assert missing(named_paths(text)) == []


def test_the_check_sees_a_wrong_path() -> None:
    found = named_paths(
        "see `app/no_such_module.py` and core/nothing_here, app/sweep/examples/NAME.toml, `app/x_<y>.py`"
    )
    assert missing(found) == ["app/no_such_module.py", "core/nothing_here"]


def test_every_module_is_placed_in_the_architecture() -> None:
    text = DOC.read_text(encoding="utf-8")
    unnamed = [
        f"{folder}/{path.name}"
        for folder in MODULE_FOLDERS
        for path in sorted((ROOT / folder).glob("*.py"))
        if path.name != "__init__.py"
        and f"{folder}/{path.stem}" not in text
        and not re.search(rf"(?<![\w/]){re.escape(path.stem)}\b", text)
    ]
    assert unnamed == []


def test_the_host_table_has_every_call_of_the_host_contract() -> None:
    from tierdeck.backends.host import Host

    seam = DOC.read_text(encoding="utf-8").split("## The host seam", 1)[1].split("\n## ", 1)[0]
    calls = [name for name in vars(Host) if not name.startswith("_")]
    assert "mount_users" in calls
    assert [c for c in calls if not re.search(rf"`{c}[`(]", seam)] == []


def test_every_history_schema_version_is_described() -> None:
    from tierdeck.app.history.schema import MIGRATIONS

    text = DOC.read_text(encoding="utf-8").split("## Persistence", 1)[1].split("\n## ", 1)[0]
    assert [v for v in range(2, len(MIGRATIONS) + 1) if not re.search(rf"\bv{v}\b", text)] == []


def test_where_to_add_a_cli_command_names_every_group_that_defers_commands() -> None:
    import click
    from tierdeck.app.cli import main
    from tierdeck.app.cli.common import CommandGroup, DeferredCommand

    text = DOC.read_text(encoding="utf-8").split("- a CLI command:", 1)[1].split("\n- ", 1)[0]
    ctx = click.Context(main)
    groups = [main, *(main.get_command(ctx, name) for name in main.list_commands(ctx))]
    deferring = [
        g
        for g in groups
        if isinstance(g, CommandGroup)
        and any(isinstance(c, DeferredCommand) for c in g.commands.values())
    ]
    assert {g.name for g in deferring} >= {"main", "bench", "history"}
    assert "DeferredCommand(" in text and "`CommandGroup`" in text
    assert [g.name for g in deferring if g.name != "main" and f"`{g.name}`" not in text] == []


def test_code_blocks_fit_a_terminal() -> None:
    # a fenced block is shown as written: merged edits had left lines of 140 columns
    blocks = re.findall(r"```\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert [line for b in blocks for line in b.splitlines() if len(line) > 100] == []


def test_the_ladder_paragraph_names_how_noise_is_read() -> None:
    from tierdeck.core.ladder import model as ladder

    text = DOC.read_text(encoding="utf-8")
    for name in ("bandwidth_spread", "noise_band", "diagnose"):
        assert hasattr(ladder, name)
    assert "`bandwidth_spread`" in text and "`noise_band`" in text


def test_where_to_add_a_screen_names_the_help_and_footer_attributes() -> None:
    from tierdeck.screens.dashboard.dashboard import DashboardScreen

    text = DOC.read_text(encoding="utf-8").split("- a screen:", 1)[1].split("\n- ", 1)[0]
    for attribute in ("HELP_TITLE", "HELP_NOTES", "HELP_LEGEND", "FOOTER_IF_ROOM"):
        assert hasattr(DashboardScreen, attribute)
        assert f"`{attribute}`" in text
